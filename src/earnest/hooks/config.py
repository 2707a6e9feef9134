"""The stop hook's configuration: ``[effects]`` and ``[hooks]`` in the project's TOML file.

The hook looks for ``earnest.toml``, then ``.earnest.toml``, in the agent's working directory.
Neither file is required: installing the hook is the opt-in, so with no file the hook is on
with the defaults. ``[hooks]`` keys win over ``[effects]`` keys.

```toml
[effects]
max_downgrades = 2        # blocks per user prompt before the stop is allowed anyway
strict_claims = false     # also block claims about files the run never touched
verify_artifacts = true   # stat written files on disk at stop time

[effects.tools]           # extra tool names → canonical kinds (see earnest.effects)
deploy_site = "write"

[hooks]
enabled = true            # false turns the hook off for this project
```

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / ".earnest.toml").write_text("[hooks]\\nmax_downgrades = 1\\n")
    >>> load_hook_config(d).max_downgrades
    1
    >>> load_hook_config(Path(tempfile.mkdtemp())).enabled
    True
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earnest.errors import InputError

CONFIG_NAMES = ("earnest.toml", ".earnest.toml")


@dataclass(frozen=True)
class HookConfig:
    """What the hook does in one project."""

    enabled: bool = True
    max_downgrades: int = 2
    strict_claims: bool = False
    verify_artifacts: bool = True
    tools: dict[str, str] = field(default_factory=dict)
    source: Path | None = None


def find_hook_config(cwd: Path) -> Path | None:
    for name in CONFIG_NAMES:
        candidate = cwd / name
        if candidate.is_file():
            return candidate
    return None


def load_hook_config(cwd: str | Path) -> HookConfig:
    """Read the hook's settings under ``cwd``; bad values raise :class:`InputError`."""
    path = find_hook_config(Path(cwd))
    if path is None:
        return HookConfig()
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, None, f"invalid TOML: {exc}") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    merged: dict[str, Any] = {}
    tools: dict[str, str] = {}
    for table_name in ("effects", "hooks"):
        table = data.get(table_name, {})
        if not isinstance(table, dict):
            raise InputError(path, table_name, "must be a table")
        for key, value in table.items():
            if key == "tools":
                tools.update(_tools(value, path, f"{table_name}.tools"))
            elif key in _KEYS:
                merged[key] = (value, f"{table_name}.{key}")
            elif table_name == "hooks":
                raise InputError(path, f"hooks.{key}", f"unknown key (one of: {_known()})")
    values: dict[str, Any] = {}
    for key, (value, place) in merged.items():
        kind = _KEYS[key]
        # bool is an int in Python: check it first so `max_downgrades = true` is refused.
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise InputError(path, place, "must be a whole number ≥ 0")
        if kind is bool and not isinstance(value, bool):
            raise InputError(path, place, "must be true or false")
        values[key] = value
    if "enabled" in values and merged["enabled"][1] != "hooks.enabled":
        # [effects].enabled is the library gate's default-off flag; installing the hook is the
        # opt-in here, so only [hooks].enabled switches the hook.
        del values["enabled"]
    return HookConfig(tools=tools, source=path, **values)


_KEYS: dict[str, type] = {
    "enabled": bool,
    "max_downgrades": int,
    "strict_claims": bool,
    "verify_artifacts": bool,
}


def _known() -> str:
    return ", ".join([*_KEYS, "tools"])


def _tools(value: Any, path: Path, place: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise InputError(path, place, "must be a table of tool name = kind strings")
    return {str(k): v for k, v in value.items()}


__all__ = ["CONFIG_NAMES", "HookConfig", "find_hook_config", "load_hook_config"]
