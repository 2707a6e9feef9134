"""Load the gate's settings and extra tool names from TOML.

``earnest.toml`` (or ``[tool.earnest]`` in ``pyproject.toml``)::

    [effects]
    enabled = true            # EARNEST_EFFECT_GATE still overrides this
    max_downgrades = 2
    verify_artifacts = true
    strict_claims = true      # false: claims (files, tests pass, N passed, ran X) are not checked
    unknown_shell = "delta"   # or "ignore": unknown shell commands give no evidence

    [effects.tools]           # tool name -> kind (see earnest.effects.registry.TOOL_KINDS)
    deploy_site = "shell"
    save_report = "write"

Every problem is an :class:`~earnest.errors.InputError` naming the file and the key.

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "earnest.toml").write_text('[effects]\\nenabled = true\\n[effects.tools]\\nship = "shell"\\n')
    >>> cfg = load_effect_gate_config(d)
    >>> cfg.enabled, cfg.registry.kind_of("ship")
    (True, 'shell')
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from earnest.configkeys import check_keys
from earnest.effects.gate import EffectGateConfig
from earnest.effects.registry import DEFAULT_REGISTRY, TOOL_KINDS, ToolRegistry
from earnest.errors import InputError

_KEYS = frozenset({"enabled", "max_downgrades", "verify_artifacts", "strict_claims",
                   "unknown_shell", "tools"})  # fmt: skip


def _read(path: Path) -> dict[str, Any]:
    # Imported here, not at the top: the stop hook often has no config file to read.
    from earnest.tomlfile import read_toml

    return read_toml(path)


def find_effects_table(source: str | Path) -> tuple[Path | None, dict[str, Any], str]:
    """``(file, [effects] table, key prefix)`` for a config file or a folder holding one.

    A folder without ``earnest.toml`` or a ``[tool.earnest]`` table gives ``(None, {}, "")``.
    """
    path = Path(source)
    if path.is_dir():
        for name in ("earnest.toml", "pyproject.toml"):
            candidate = path / name
            if candidate.is_file():
                file, table, prefix = find_effects_table(candidate)
                if name == "earnest.toml" or table:
                    return file, table, prefix
        return None, {}, ""
    if not path.is_file():
        raise InputError(path, None, "config file does not exist")
    data = _read(path)
    prefix = ""
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        data = tool.get("earnest", {}) if isinstance(tool, dict) else {}
        prefix = "tool.earnest."
        if not isinstance(data, dict):
            raise InputError(path, "tool.earnest", "must be a table")
    table = data.get("effects", {})
    if not isinstance(table, dict):
        raise InputError(path, f"{prefix}effects", "must be a table")
    return path, table, prefix


def tool_overrides(table: Mapping[str, Any], file: Path | None, prefix: str = "") -> dict[str, str]:
    """Validate an ``[effects.tools]`` table: tool name → known kind."""
    tools = table.get("tools", {})
    place = f"{prefix}effects.tools"
    if not isinstance(tools, dict):
        raise InputError(file, place, "must be a table of tool name = kind")
    out: dict[str, str] = {}
    for name, kind in tools.items():
        if not isinstance(kind, str) or kind not in TOOL_KINDS:
            raise InputError(
                file, f"{place}.{name}",
                f"unknown kind {kind!r}; expected one of {', '.join(sorted(TOOL_KINDS))}",
            )  # fmt: skip
        out[str(name)] = kind
    return out


def load_effect_gate_config(
    source: str | Path, *, base: EffectGateConfig | None = None
) -> EffectGateConfig:
    """An :class:`EffectGateConfig` from ``[effects]`` in ``source`` (file or folder)."""
    file, table, prefix = find_effects_table(source)
    config = base if base is not None else EffectGateConfig()
    if not table:
        return config
    check_keys(table, _KEYS, file, f"{prefix}effects")

    def flag(key: str, default: bool) -> bool:
        value = table.get(key, default)
        if not isinstance(value, bool):
            raise InputError(file, f"{prefix}effects.{key}", "must be true or false")
        return value

    downgrades = table.get("max_downgrades", config.max_downgrades)
    if not isinstance(downgrades, int) or isinstance(downgrades, bool) or downgrades < 0:
        raise InputError(file, f"{prefix}effects.max_downgrades", "must be a whole number >= 0")
    policy = table.get("unknown_shell", config.registry.unknown_shell)
    if policy not in ("delta", "ignore"):
        raise InputError(file, f"{prefix}effects.unknown_shell", 'must be "delta" or "ignore"')
    registry: ToolRegistry = (config.registry or DEFAULT_REGISTRY).with_overrides(
        tool_overrides(table, file, prefix), unknown_shell=policy
    )
    return EffectGateConfig(
        enabled=flag("enabled", config.enabled),
        max_downgrades=downgrades,
        verify_artifacts=flag("verify_artifacts", config.verify_artifacts),
        strict_claims=flag("strict_claims", config.strict_claims),
        registry=registry,
        score_cap=config.score_cap,
    )


__all__ = ["find_effects_table", "load_effect_gate_config", "tool_overrides"]
