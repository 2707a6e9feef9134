"""The stop hook's configuration: ``[effects]`` and ``[hooks]`` in the project's TOML file.

The hook looks for ``earnest.toml``, then ``.earnest.toml``, in the agent's working directory.
Neither file is required: installing the hook is the opt-in, so with no file the hook is on
with the gate's defaults. ``[effects]`` is read by :func:`earnest.effects.load_effect_gate_config`
(the same table the library gate and the scorer read); ``[hooks]`` holds the hook's own
switches and may override the gate's budget and strictness for the hook alone.

```toml
[effects]
max_downgrades = 2        # blocks per user prompt before the stop is allowed anyway
strict_claims = true      # block claims that do not hold up (files, tests pass, counts)
verify_artifacts = true   # stat written files on disk at stop time

[effects.tools]           # extra tool names → canonical kinds (earnest.effects.TOOL_KINDS)
deploy_site = "write"

[hooks]
enabled = true            # false turns the hook off for this project
max_downgrades = 1        # the hook's own budget, if it should differ from [effects]
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

from dataclasses import dataclass, field, replace
from pathlib import Path

from earnest.effects.gate import EffectGateConfig
from earnest.errors import InputError

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

CONFIG_NAMES = ("earnest.toml", ".earnest.toml")
_HOOK_KEYS: dict[str, type] = {
    "enabled": bool,
    "max_downgrades": int,
    "strict_claims": bool,
    "verify_artifacts": bool,
}


def _gate_on() -> EffectGateConfig:
    return EffectGateConfig(enabled=True)


@dataclass(frozen=True)
class HookConfig:
    """What the hook does in one project: whether it runs, and the gate it runs."""

    enabled: bool = True
    gate: EffectGateConfig = field(default_factory=_gate_on)
    source: Path | None = None

    @property
    def max_downgrades(self) -> int:
        return self.gate.max_downgrades


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
    # Imported only with a file to read: most projects have none, and every stop gets here.
    from earnest.configkeys import unknown_key_message
    from earnest.effects.config import load_effect_gate_config

    # [effects].enabled is the library gate's default-off switch; installing the hook is the
    # opt-in here, so the hook's gate is always on and only [hooks].enabled switches the hook.
    gate = replace(load_effect_gate_config(path, base=_gate_on()), enabled=True)
    table = _hooks_table(path)
    values: dict[str, Any] = {}
    for key, value in table.items():
        kind = _HOOK_KEYS.get(key)
        place = f"hooks.{key}"
        if kind is None:
            raise InputError(path, place, unknown_key_message(key, _HOOK_KEYS))
        # bool is an int in Python: check it first so `max_downgrades = true` is refused.
        if kind is int and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise InputError(path, place, "must be a whole number >= 0")
        if kind is bool and not isinstance(value, bool):
            raise InputError(path, place, "must be true or false")
        values[key] = value
    enabled = values.pop("enabled", True)
    return HookConfig(enabled=enabled, gate=replace(gate, **values), source=path)


def _hooks_table(path: Path) -> dict[str, Any]:
    # Imported here, not at the top: most projects have no config file to read.
    from earnest.tomlfile import read_toml

    data = read_toml(path)
    table = data.get("hooks", {})
    if not isinstance(table, dict):
        raise InputError(path, "hooks", "must be a table")
    return table


__all__ = ["CONFIG_NAMES", "HookConfig", "find_hook_config", "load_hook_config"]
