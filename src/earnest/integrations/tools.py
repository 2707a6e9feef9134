"""A framework's tools, declared to the gate: which change state, which read, which check.

Every integration takes ``tools=``: either a mapping of tool name → class (``state_change``,
``read``, ``check``, or any kind of :data:`earnest.effects.TOOL_KINDS`), or the framework's own
tool objects, read by :func:`declared_kinds` where their definitions say what they do:

- an explicit ``earnest`` entry in the tool's ``metadata`` (LangChain's ``BaseTool.metadata``,
  Pydantic AI's ``Tool(metadata=...)``): ``{"earnest": "state_change"}``;
- MCP tool annotations: on an MCP SDK ``Tool`` (``annotations``), on an OpenAI Agents SDK
  ``FunctionTool`` made from an MCP tool (``mcp_annotations``), in a tool's ``metadata``
  (Pydantic AI's MCP tools keep them under ``annotations``; or the hints themselves), as an
  object or a dict, camelCase (the wire) or snake_case (MCP SDK 2): ``readOnlyHint: true`` is
  a read; ``readOnlyHint: false`` or ``destructiveHint: true`` a state change.

A tool whose definition says nothing is not declared: it counts as a read, the documented
default of :mod:`earnest.effects.registry` (its success grounds an answer, never backs a
"done"). ``[effects.tools]`` reaches an integration through its ``config``
(``config=load_effect_gate_config(".")``); ``tools=`` is layered over it.

Example:
    >>> declared_kinds({"cancel_reservation": "state_change", "get_user": "read"})
    {'cancel_reservation': 'action', 'get_user': 'read'}
    >>> class McpTool:
    ...     name = "delete_page"
    ...     annotations = {"readOnlyHint": False, "destructiveHint": True}
    >>> declared_kinds([McpTool()])
    {'delete_page': 'action'}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeAlias

from earnest.effects.gate import EffectGateConfig
from earnest.effects.registry import DEFAULT_REGISTRY, canonical_kind, expected_kinds

ToolsArg: TypeAlias = Mapping[str, str] | Iterable[Any] | None
"""What ``tools=`` takes: name → class, or the framework's tool objects."""


def declared_kinds(tools: ToolsArg) -> dict[str, str]:
    """Tool name → kind for the tools that declare one (see the module docstring).

    A mapping's unknown class raises ``ValueError`` naming the tool: it is the user's code.
    """
    if tools is None:
        return {}
    if isinstance(tools, Mapping):
        out: dict[str, str] = {}
        for name, value in tools.items():
            kind = canonical_kind(value) if isinstance(value, str) else None
            if kind is None:
                raise ValueError(
                    f"tool {name!r}: unknown kind {value!r} (expected one of {expected_kinds()})"
                )
            out[str(name)] = kind
        return out
    found: dict[str, str] = {}
    for tool in tools:
        name = _field(tool, "name") or getattr(tool, "__name__", None)
        kind = tool_kind(tool)
        if isinstance(name, str) and name and kind is not None:
            found[name] = kind
    return found


def tool_kind(tool: Any) -> str | None:
    """The kind one tool object's definition declares, or None when it says nothing."""
    metadata = _field(tool, "metadata")
    if isinstance(metadata, Mapping):
        explicit = metadata.get("earnest")
        if isinstance(explicit, str) and canonical_kind(explicit) is not None:
            return canonical_kind(explicit)
    for hints in (
        _field(tool, "annotations"),
        _field(tool, "mcp_annotations"),
        _field(metadata, "annotations"),
        metadata,
    ):
        kind = _hinted(hints)
        if kind is not None:
            return kind
    return None


def with_tools(config: EffectGateConfig, tools: ToolsArg) -> EffectGateConfig:
    """``config`` with ``tools`` declared over its registry (unchanged when none declare)."""
    kinds = declared_kinds(tools)
    if not kinds:
        return config
    registry = config.registry or DEFAULT_REGISTRY
    return replace(config, registry=registry.with_overrides(kinds))


def _hinted(hints: Any) -> str | None:
    read_only = _hint(hints, "readOnlyHint", "read_only_hint")
    if read_only is True:
        return "read"
    if read_only is False or _hint(hints, "destructiveHint", "destructive_hint") is True:
        return "action"
    return None


def _hint(hints: Any, wire: str, python: str) -> Any:
    value = _field(hints, wire)
    return _field(hints, python) if value is None else value


def _field(value: Any, key: str) -> Any:
    if value is None:
        return None
    if isinstance(value, Mapping):
        return value.get(key)
    return getattr(value, key, None)


__all__ = ["ToolsArg", "declared_kinds", "tool_kind", "with_tools"]
