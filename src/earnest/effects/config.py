"""Load the gate's settings and extra tool names from TOML.

``earnest.toml`` (or ``[tool.earnest]`` in ``pyproject.toml``)::

    [effects]
    enabled = true            # EARNEST_EFFECT_GATE still overrides this
    max_downgrades = 2
    verify_artifacts = true
    strict_claims = true      # false: claims (files, tests pass, N passed, ran X) are not checked
    unknown_shell = "delta"   # or "ignore": unknown shell commands give no evidence

    [effects.tools]           # your own tools: name -> class (state_change, read, check)
    cancel_reservation = "state_change"   # an effect (kind "action")
    get_reservation_details = "read"      # grounding, never an effect
    verify_payment = "check"              # a verified check when it succeeds (kind "test")
    save_report = "write"     # or any kind of earnest.effects.registry.TOOL_KINDS

A tool declared nowhere counts as a read (see :mod:`earnest.effects.registry`). The same
declarations reach the stop hooks, :class:`~earnest.effects.EffectGate` (through this
config), the framework integrations (``config=``), and ``trajectory score`` / ``replay-gate``
(:func:`tool_declarations`, with ``--tool NAME=CLASS`` on the command line over the file).

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

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earnest.configkeys import check_keys
from earnest.effects.gate import EffectGateConfig
from earnest.effects.registry import DEFAULT_REGISTRY, ToolRegistry, canonical_kind, expected_kinds
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
    """Validate an ``[effects.tools]`` table: tool name → kind (a class is turned into its kind)."""
    tools = table.get("tools", {})
    place = f"{prefix}effects.tools"
    if not isinstance(tools, dict):
        raise InputError(file, place, "must be a table of tool name = class or kind")
    out: dict[str, str] = {}
    for name, value in tools.items():
        kind = canonical_kind(value) if isinstance(value, str) else None
        if kind is None:
            raise InputError(
                file,
                f"{place}.{name}",
                f"unknown kind {value!r}; expected one of {expected_kinds()}",
            )
        out[str(name)] = kind
    return out


def parse_tool_options(values: Iterable[str], option: str = "--tool") -> dict[str, str]:
    """``NAME=CLASS`` command-line declarations → tool name → kind; a bad one is exit 2.

    Example:
        >>> parse_tool_options(["cancel_reservation=state_change", "get_user=read"])
        {'cancel_reservation': 'action', 'get_user': 'read'}
    """
    out: dict[str, str] = {}
    for value in values:
        name, sep, declared = value.partition("=")
        name, declared = name.strip(), declared.strip()
        if not sep or not name:
            raise InputError(
                None, option, f"{value!r}: expected NAME=CLASS (e.g. send_invoice=state_change)"
            )
        kind = canonical_kind(declared)
        if kind is None:
            raise InputError(
                None,
                option,
                f"{value!r}: unknown kind {declared!r}; expected one of {expected_kinds()}",
            )
        out[name] = kind
    return out


@dataclass(frozen=True, slots=True)
class ToolDeclarations:
    """The user's tool declarations as plain values (a worker process rebuilds the registry).

    Example:
        >>> ToolDeclarations((("send_invoice", "action"),)).registry().kind_of("send_invoice")
        'action'
    """

    tools: tuple[tuple[str, str], ...] = ()
    unknown_shell: str = "delta"

    def registry(self) -> ToolRegistry:
        """The built-in registry with these declarations over it."""
        if not self.tools and self.unknown_shell == DEFAULT_REGISTRY.unknown_shell:
            return DEFAULT_REGISTRY
        ignore = self.unknown_shell == "ignore"
        return DEFAULT_REGISTRY.with_overrides(
            dict(self.tools), unknown_shell="ignore" if ignore else "delta"
        )


def tool_declarations(
    source: str | Path | None, options: Iterable[str] = (), *, option: str = "--tool"
) -> ToolDeclarations:
    """``[effects.tools]`` and ``unknown_shell`` of the config at ``source`` (a file, or a
    folder with ``earnest.toml`` / ``pyproject.toml``; None: no file), then ``options``
    (``NAME=CLASS``, see :func:`parse_tool_options`) over them."""
    tools: dict[str, str] = {}
    policy = DEFAULT_REGISTRY.unknown_shell
    if source is not None:
        file, table, prefix = find_effects_table(source)
        if table:
            check_keys(table, _KEYS, file, f"{prefix}effects")
            tools = tool_overrides(table, file, prefix)
            policy = _unknown_shell(table, file, prefix, policy)
    tools.update(parse_tool_options(options, option))
    return ToolDeclarations(tuple(sorted(tools.items())), policy)


def _unknown_shell(table: Mapping[str, Any], file: Path | None, prefix: str, default: str) -> Any:
    policy = table.get("unknown_shell", default)
    if policy not in ("delta", "ignore"):
        raise InputError(file, f"{prefix}effects.unknown_shell", 'must be "delta" or "ignore"')
    return policy


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
    policy = _unknown_shell(table, file, prefix, config.registry.unknown_shell)
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


__all__ = [
    "ToolDeclarations",
    "find_effects_table",
    "load_effect_gate_config",
    "parse_tool_options",
    "tool_declarations",
    "tool_overrides",
]
