"""File edits from structured tool calls whose names say they write files.

Only calls the source itself records as edits count (a file-writing tool and its path);
shell commands are left to :mod:`earnest.effects`, which classifies them.

Example:
    >>> structured_edits("str_replace_editor", {"command": "create", "path": "/w/a.py"})
    [('/w/a.py', 'create')]
    >>> structured_edits("bash", {"command": "echo hi > a"})
    []
"""

from __future__ import annotations

from typing import Any

from earnest.trajectory.model import EditKind

_PATH_KEYS = (
    "file_path",
    "path",
    "filename",
    "filePath",
    "TargetFile",
    "target_file",
    "notebook_path",
)

_CREATE = frozenset({"write_file", "write_to_file", "create_file", "write", "Write", "create"})
_MODIFY = frozenset(
    {"replace", "edit_file", "Edit", "MultiEdit", "NotebookEdit", "edit", "insert", "append"}
)
_DELETE = frozenset({"delete_file", "remove_file"})
_EDITOR = frozenset({"str_replace_editor", "edit_file_tool", "file_editor", "text_editor"})
_EDITOR_KINDS: dict[str, EditKind] = {
    "create": "create",
    "str_replace": "modify",
    "insert": "modify",
    "undo_edit": "modify",
    "append": "modify",
    "write": "create",
}


def _path(args: dict[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return _unquote(value)
    return None


def _unquote(value: str) -> str:
    # Antigravity double-encodes argument values as JSON strings.
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1].replace("\\\\", "\\")
    return value


def structured_edits(name: str, args: Any) -> list[tuple[str, EditKind]]:
    """The ``(path, kind)`` edits a call makes, judged from its tool name and arguments."""
    if not isinstance(args, dict):
        return []
    if name in _EDITOR:
        kind = _EDITOR_KINDS.get(str(args.get("command", "")))
        path = _path(args)
        return [(path, kind)] if kind and path else []
    path = _path(args)
    if path is None:
        return []
    if name in _CREATE:
        return [(path, "create")]
    if name in _MODIFY:
        return [(path, "modify")]
    if name in _DELETE:
        return [(path, "delete")]
    return []


__all__ = ["structured_edits"]
