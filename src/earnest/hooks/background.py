"""Stops while subagents still run in the background: not a completion, not judged.

Claude Code 2.1.33x and Qwen Code 0.24 run a subagent in the background: the ``agent`` /
``Agent`` tool returns at once, the main agent may stop while the subagent works, and the CLI
restarts it with a ``<task-notification>`` when the subagent ends. The stop input lists them in
``background_tasks``: Claude Code's entries ``{type: "subagent", status, agent_type,
description}``, Qwen's ``{id, status, agent_type, description, started_at}`` (no ``type``).
Such a stop is allowed without spending the block budget or counting as a verdict
(:func:`pending`); the stop after the subagents finish is judged with their work counted.
Background shells do not hold a stop: a server started in the background may never end.

Example:
    >>> pending(["general-purpose"]).blocked
    False
"""

from __future__ import annotations

import re

from earnest.hooks.outcome import HookOutcome

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

PENDING = "background_subagents_running"
_RUNNING = frozenset({"running", "pending"})
_AGENT_TYPE = re.compile(r"[A-Za-z0-9_.:-]{1,60}")


def _subagent(task: dict[str, Any]) -> bool:
    """Claude Code names the kind (``type: "subagent"``); Qwen lists only subagents, each with
    its ``agent_type`` and no ``type``."""
    kind = task.get("type")
    return kind == "subagent" or (kind is None and isinstance(task.get("agent_type"), str))


def running_subagents(raw: dict[str, Any]) -> list[str]:
    """The subagents a main ``Stop`` input lists as still running in the background.

    Example:
        >>> running_subagents({"hook_event_name": "Stop", "background_tasks": [
        ...     {"type": "subagent", "status": "running", "description": "Fix app.py",
        ...      "agent_type": "general-purpose"},
        ...     {"type": "shell", "status": "running", "description": "npm run dev"}]})
        ['general-purpose']
        >>> running_subagents({"hook_event_name": "Stop", "background_tasks": [
        ...     {"id": "general-purpose-call_1", "status": "running",
        ...      "agent_type": "general-purpose", "description": "Fix app.py"}]})  # Qwen 0.24
        ['general-purpose']
        >>> running_subagents({"hook_event_name": "SubagentStop", "background_tasks": [
        ...     {"type": "subagent", "status": "running", "description": "Fix app.py"}]})
        []
    """
    tasks = raw.get("background_tasks")
    if raw.get("hook_event_name") != "Stop" or not isinstance(tasks, list):
        return []
    out = []
    for task in tasks:
        if isinstance(task, dict) and _subagent(task) and task.get("status") in _RUNNING:
            # Its type, not its description: the agent wrote that, and it goes to the user.
            kind = task.get("agent_type")
            out.append(
                kind if isinstance(kind, str) and _AGENT_TYPE.fullmatch(kind) else "subagent"
            )
    return out


def pending(names: list[str]) -> HookOutcome:
    """The allow of a stop that waits for background subagents: not a verdict."""
    listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return HookOutcome.allow(
        f"earnest: {PENDING}: not judged yet, {len(names)} background subagent(s) still "
        f"running ({listed}); the stop after they finish is judged",
        **{PENDING: len(names)},
    )


__all__ = ["PENDING", "pending", "running_subagents"]
