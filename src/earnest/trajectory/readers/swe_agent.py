"""SWE-agent ``.traj`` files.

Function-calling trajectories keep OpenAI-style ``history`` (tool messages answer a
``tool_call_ids`` *list*). Legacy trajectories have no tool calls in ``history`` — the
commands are in the assistant's text — so their calls come from ``trajectory[].action``
and ``observation``. ``edit`` commands carry no path: the edited file is the one the
observation reports as ``(Open file: ...)``. ``info.exit_status`` says how the run ended.

Example:
    >>> termination_for("submitted").reason, termination_for("exit_cost").reason
    ('normal', 'usage_limit')
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Termination, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.openai_chat import feed_messages
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_dict, as_list, as_str

FORMAT = "swe-agent"

_OPEN_FILE = re.compile(r"\(Open file: ([^)\n]+)\)")
_PATHLESS_EDITS = frozenset({"edit", "insert", "append"})
_COMMANDS = frozenset(
    {
        "open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert", "append",
        "search_dir", "search_file", "find_file", "submit", "filemap", "str_replace_editor",
    }
)  # fmt: skip


def termination_for(status: str) -> Termination:
    """Map ``info.exit_status`` (``submitted``, ``exit_cost``, ``exit_context``...)."""
    lowered = status.lower()
    if lowered.startswith("submitted"):
        return Termination("normal", status)
    if "cost" in lowered or "context" in lowered:
        return Termination("usage_limit", status)
    if "step" in lowered or "max" in lowered:
        return Termination("max_turns", status)
    if "forfeit" in lowered or "early" in lowered or "interrupt" in lowered:
        return Termination("interrupted", status)
    if "error" in lowered or "format" in lowered:
        return Termination("api_error", status)
    return Termination("unknown", status)


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per ``.traj`` file."""
    data = load_document(path, report)
    if not isinstance(data, dict):
        if data is not None:
            report.warn(str(path), None, "not a SWE-agent trajectory object")
        return
    history = as_list(data.get("history"))
    steps = as_list(data.get("trajectory"))
    builder = TrajectoryBuilder(
        id=path.stem, source=str(path), format=FORMAT, request_policy="first", **options
    )
    name = str(path)
    history = [m for m in history if not (isinstance(m, dict) and m.get("is_demo"))]
    function_calling = any(isinstance(m, dict) and m.get("tool_calls") for m in history)
    if function_calling:

        def on_result(call_id: str, text: str) -> None:
            _pathless_edit(builder, call_id, text)

        feed_messages(
            builder, history, report, name=name, later_users_are_feedback=True,
            on_result=on_result,
        )  # fmt: skip
    else:
        _legacy(builder, history, steps, report, name)
    info = as_dict(data.get("info"))
    status = info.get("exit_status")
    if isinstance(status, str) and status:
        term = termination_for(status)
        builder.terminate(term.reason, term.detail)
        builder.metadata["exit_status"] = status
    if isinstance(info.get("submission"), str):
        builder.metadata["has_submission"] = bool(info["submission"].strip())
    yield builder.build()


def _pathless_edit(builder: TrajectoryBuilder, call_id: str, observation: str) -> None:
    if builder.call_name(call_id) not in _PATHLESS_EDITS or builder.call_edits(call_id):
        return
    match = _OPEN_FILE.search(observation)
    if match and match.group(1).strip() != "n/a":
        builder.set_edits(call_id, [(match.group(1).strip(), "modify")])


def _legacy(
    builder: TrajectoryBuilder,
    history: list[Any],
    steps: list[Any],
    report: ReadReport,
    name: str,
) -> None:
    """History gives the conversation; ``trajectory`` steps give the commands run."""
    seen_user = False
    for message in history:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        text = as_str(message.get("content")) or ""
        if role == "system":
            builder.message("system", text, kind="system")
        elif role == "user":
            builder.message("user", text, kind="feedback" if seen_user else "prompt")
            seen_user = True
        elif role == "assistant":
            builder.message("assistant", text)
    for number, step in enumerate(steps, 1):
        if not isinstance(step, dict) or not isinstance(step.get("action"), str):
            report.skip(name, None, f"trajectory step {number} has no action")
            continue
        action = step["action"].strip()
        if not action:
            continue
        builder.new_turn()
        word = action.split(None, 1)[0]
        tool = word if word in _COMMANDS else "bash"
        args: dict[str, Any] = {"command": action}
        edits: list[tuple[str, Any]] = []
        if tool == "create" and len(action.split()) > 1:
            edits = [(action.split()[1], "create")]
        call_id = builder.tool_call(f"step-{number}", tool, args, edits=edits)
        observation = step.get("observation")
        text = observation if isinstance(observation, str) else ""
        recorded = observation is not None
        builder.tool_result(call_id, is_error=False if recorded else None, output=text)
        _pathless_edit(builder, call_id, text)


__all__ = ["FORMAT", "read", "termination_for"]
