"""File edits from structured tool calls, judged by :mod:`earnest.effects` (never a copy).

A call is a file edit when the shared tool registry (:data:`earnest.effects.DEFAULT_REGISTRY`)
says its tool writes, edits, deletes, moves or patches files, and
:func:`earnest.effects.observe_tool_result` finds the paths in its arguments. Shell commands
are left out: a file named in a redirection is the effect classifier's inference, not an
edit the source records.

Example:
    >>> structured_edits("str_replace_editor", {"command": "create", "path": "/w/a.py"})
    [('/w/a.py', 'create')]
    >>> structured_edits("mcp__filesystem__move_file", {"source": "a", "destination": "b"})
    [('b', 'create'), ('a', 'delete')]
    >>> structured_edits("bash", {"command": "echo hi > a"})
    []
"""

from __future__ import annotations

from earnest.effects import DEFAULT_REGISTRY, observe_tool_result
from earnest.trajectory.model import EditKind

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FILE_TOOL_KINDS = frozenset({"write", "edit", "delete", "move", "patch", "editor"})
"""Registry kinds whose calls name the files they change."""

_EDIT_KINDS: dict[str, EditKind] = {"write": "create", "edit": "modify", "delete": "delete"}


def structured_edits(name: str, args: Any) -> list[tuple[str, EditKind]]:
    """The ``(path, kind)`` edits a call makes, judged from its tool name and arguments.

    ``args`` may be a mapping or a JSON string (as some stacks record them). A move gives
    a ``create`` of its destination and a ``delete`` of its source.
    """
    if not name or DEFAULT_REGISTRY.kind_of(name) not in FILE_TOOL_KINDS:
        return []
    if not isinstance(args, (dict, str)):
        return []
    observation = observe_tool_result({"tool_name": name, "args": args}, DEFAULT_REGISTRY)
    edits: list[tuple[str, EditKind]] = []
    for evidence in observation.evidence:
        kind = _EDIT_KINDS.get(evidence.kind)
        if kind is None:
            continue
        edits.extend((path, kind) for path in evidence.artifact_paths)
    return edits


__all__ = ["FILE_TOOL_KINDS", "structured_edits"]
