"""Install and uninstall earnest's Cursor hooks (``earnest hook install|uninstall cursor``).

Cursor reads ``.cursor/hooks.json`` in the project and ``~/.cursor/hooks.json`` for the user:
``{"version": 1, "hooks": {"<event>": [{"command": ..., ...}]}}`` — each event a flat list of
handlers (no matcher groups, unlike Claude Code's). earnest's command goes on ``stop`` (with
``loop_limit``) and on the events that tell it the run (:data:`earnest.hooks.cursor.RECORDED`).
Installing merges as for the other CLIs: every other key and handler kept, a second install
changes nothing, invalid JSON refused (exit 2) and left untouched, the previous file kept as
``hooks.json.bak-<timestamp>``.

Example:
    >>> import json, tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> path = hooks_path("project", d)
    >>> install(path, command="earnest hook cursor").events[-1]
    'stop'
    >>> json.loads(path.read_text())["hooks"]["stop"]
    [{'command': 'earnest hook cursor', 'timeout': 30, 'loop_limit': 5}]
    >>> install(path, command="earnest hook cursor").changed
    False
    >>> uninstall(path).removed
    6
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from earnest.hooks.settings import (
    SettingsChange,
    _commit,
    default_command,
    event_list,
    home_dir,
    hooks_table,
    is_earnest_command,
    read_settings,
)

CLI = "cursor"
STOP = "stop"
RECORDED = (
    "beforeSubmitPrompt",
    "afterFileEdit",
    "afterShellExecution",
    "afterMCPExecution",
    "afterAgentResponse",
)  # the same as earnest.hooks.cursor.RECORDED (not imported: a stop must not load this)
EVENTS = (*RECORDED, STOP)
TIMEOUT = 30  # seconds
LOOP_LIMIT = 5  # Cursor's default, written out so the bound is visible


def hooks_path(
    scope: str, project_dir: str | Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """``.cursor/hooks.json`` under the project, or ``~/.cursor/hooks.json``."""
    if scope == "user":
        home = (env or {}).get("HOME")
        return (Path(home) if home else home_dir()) / ".cursor" / "hooks.json"
    return Path(project_dir or Path.cwd()) / ".cursor" / "hooks.json"


extension_path = hooks_path  # the name earnest.hooks.settings asks an own installer for


def _handler(event: str, command: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": command, "timeout": TIMEOUT}
    if event == STOP:
        entry["loop_limit"] = LOOP_LIMIT
    return entry


def _ours(handler: Any) -> bool:
    return isinstance(handler, dict) and is_earnest_command(handler.get("command"), CLI)


def install(path: Path, *, command: str | None = None) -> SettingsChange:
    """Add earnest's handlers to ``path`` (idempotent; everything else kept)."""
    command = command or default_command(CLI)
    data, existed = read_settings(path)
    hooks = hooks_table(data, path)
    changed = False
    for event in EVENTS:
        handlers = event_list(hooks, event, path)
        want = _handler(event, command)
        if any(_ours(h) for h in handlers):
            for i, handler in enumerate(handlers):
                if _ours(handler) and handler != want:
                    handlers[i] = want
                    changed = True
            continue
        hooks[event] = [*handlers, want]
        changed = True
    if data.get("version") is None:
        data = {"version": 1, **data}
        changed = True
    if not changed:
        return SettingsChange(CLI, path, False, EVENTS, command)
    data["hooks"] = hooks
    backup = _commit(path, data, existed)
    return SettingsChange(CLI, path, True, EVENTS, command, backup=backup)


def uninstall(path: Path) -> SettingsChange:
    """Remove earnest's own handlers from ``path``; everything else stays."""
    data, existed = read_settings(path)
    if not existed:
        return SettingsChange(CLI, path, False, (), "")
    hooks = hooks_table(data, path)
    removed = 0
    touched: list[str] = []
    commands: list[str] = []
    for event in list(hooks):
        handlers = hooks[event]
        if not isinstance(handlers, list):
            continue
        ours = [h for h in handlers if _ours(h)]
        if not ours:
            continue
        removed += len(ours)
        touched.append(event)
        commands.extend(str(h.get("command")) for h in ours)
        rest = [h for h in handlers if not _ours(h)]
        if rest:
            hooks[event] = rest
        else:
            del hooks[event]
    if not removed:
        return SettingsChange(CLI, path, False, (), "")
    data["hooks"] = hooks
    backup = _commit(path, data, existed)
    return SettingsChange(
        CLI, path, True, tuple(touched), commands[0], backup=backup, removed=removed
    )


def installed_entries(path: Path) -> list[tuple[str, int, int, str]]:
    """``(event, 0, handler index, command)`` of earnest's handlers (for the doctor)."""
    data, existed = read_settings(path)
    hooks = data.get("hooks") if existed else None
    found: list[tuple[str, int, int, str]] = []
    if not isinstance(hooks, dict):
        return found
    for event, handlers in hooks.items():
        for i, handler in enumerate(handlers if isinstance(handlers, list) else []):
            if _ours(handler) and event == STOP:
                found.append((str(event), 0, i, str(handler["command"])))
    return found


__all__ = [
    "CLI",
    "EVENTS",
    "LOOP_LIMIT",
    "RECORDED",
    "extension_path",
    "hooks_path",
    "install",
    "installed_entries",
    "uninstall",
]
