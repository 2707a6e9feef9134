"""OpenHands event-stream trajectories: a JSON array of actions and observations.

An action (``action: message|run|edit|read|browse|finish|...``) is answered by an
observation whose ``cause`` is the action's ``id`` (ids are not contiguous). The LLM's
own tool call sits in ``tool_call_metadata`` (function name and JSON arguments), which
names the tool better than the action kind. ``run`` observations carry
``extras.metadata.exit_code`` (``-1``: no exit code, the command was still running);
``error`` observations are failures; ``finish`` ends the run normally; an
``agent_state_changed`` to ``error`` ends it abnormally.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "oh.json"
    >>> _ = p.write_text(json.dumps([
    ...     {"id": 0, "source": "user", "action": "message", "args": {"content": "mv a b"}},
    ...     {"id": 3, "source": "agent", "action": "run", "args": {"command": "mv a b"}},
    ...     {"id": 4, "source": "agent", "observation": "run", "cause": 3, "content": "",
    ...      "extras": {"metadata": {"exit_code": 0}}},
    ...     {"id": 5, "source": "agent", "action": "finish",
    ...      "args": {"final_thought": "Renamed."}}]))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.tool_calls[0].exit_code, t.final_message, t.termination.reason
    (0, 'Renamed.', 'normal')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import EditKind, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import (
    as_dict,
    as_str,
    content_text,
    limit_reason,
    parse_arguments,
    user_text_kind,
)

FORMAT = "openhands"

_QUIET_ACTIONS = frozenset({"change_agent_state", "system", "recall", "null", "think"})
_NO_RESULT_OBSERVATIONS = frozenset({"agent_state_changed", "null", "recall"})


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per event array."""
    data = load_document(path, report)
    events = data.get("events") if isinstance(data, dict) else data
    if not isinstance(events, list):
        if data is not None:
            report.warn(str(path), None, "not an OpenHands event array")
        return
    builder = TrajectoryBuilder(id=path.stem, source=str(path), format=FORMAT, **options)
    name = str(path)
    for number, event in enumerate(events, 1):
        if not isinstance(event, dict):
            report.skip(name, None, f"event {number} is not an object")
            continue
        if "action" in event:
            _action(builder, event, report, name)
        elif "observation" in event:
            _observation(builder, event)
        else:
            report.skip(name, None, f"event {number} is neither an action nor an observation")
    yield builder.build()


def _action(
    builder: TrajectoryBuilder, event: dict[str, Any], report: ReadReport, name: str
) -> None:
    action = event.get("action")
    if not isinstance(action, str):
        report.skip(name, None, f"an action that is not a string ({type(action).__name__})")
        return
    args = as_dict(event.get("args"))
    source = event.get("source")
    stamp = as_str(event.get("timestamp"))
    if action == "message":
        text = content_text(args.get("content")) or content_text(event.get("message"))
        if source == "user":
            builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)
        else:
            builder.new_turn()
            builder.message("assistant", text, timestamp=stamp)
        return
    if action == "finish":
        builder.new_turn()
        outputs = as_dict(args.get("outputs"))
        text = (
            content_text(args.get("final_thought"))
            or content_text(outputs.get("content"))
            or content_text(args.get("thought"))
            or content_text(event.get("message"))
        )
        if text.strip():
            builder.message("assistant", text, timestamp=stamp)
        builder.terminate("normal", "finish action")
        return
    if action in _QUIET_ACTIONS:
        return
    builder.new_turn()
    thought = content_text(args.get("thought"))
    if thought.strip():
        builder.message("assistant", thought, timestamp=stamp)
    tool, call_args = _llm_call(event)
    tool = tool or str(action)
    if not call_args:
        call_args = {k: v for k, v in args.items() if k != "thought"}
    edits: list[tuple[str, EditKind]] = structured_edits(tool, call_args)
    if not edits and action == "edit" and isinstance(args.get("path"), str):
        edits = [(args["path"], "modify")]
    builder.tool_call(str(event.get("id")), tool, call_args, edits=edits)


def _llm_call(event: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    meta = event.get("tool_call_metadata")
    if not isinstance(meta, dict):
        return None, {}
    name = meta.get("function_name")
    call_id = meta.get("tool_call_id")
    response = meta.get("model_response")
    choices = response.get("choices") if isinstance(response, dict) else None
    for choice in choices or []:
        message = choice.get("message") if isinstance(choice, dict) else None
        for call in (message or {}).get("tool_calls") or []:
            if isinstance(call, dict) and call.get("id") == call_id:
                function = call.get("function") or {}
                return str(function.get("name") or name), parse_arguments(function.get("arguments"))
    return (str(name) if name else None), {}


def _observation(builder: TrajectoryBuilder, event: dict[str, Any]) -> None:
    kind = event.get("observation")
    extras = as_dict(event.get("extras"))
    if kind == "agent_state_changed":
        state = extras.get("agent_state")
        if state == "error":
            reason = extras.get("reason") or event.get("message") or "agent error"
            builder.signal(limit_reason(str(reason)), str(reason))
        elif state == "stopped":
            builder.signal("interrupted", "agent stopped")
        return
    cause = event.get("cause")
    if cause is None or not isinstance(kind, str) or kind in _NO_RESULT_OBSERVATIONS:
        return
    call_id = str(cause)
    if not builder.has_call(call_id):
        return
    text = content_text(event.get("content"))
    meta = as_dict(extras.get("metadata"))
    code = meta.get("exit_code")
    if kind == "error":
        if "maximum iteration" in text.lower() or "max_iterations" in text.lower():
            builder.signal("max_turns", text[:300])
        builder.tool_result(call_id, is_error=True, output=text, error=text[:300])
    elif isinstance(code, int) and code != -1:
        builder.tool_result(call_id, is_error=code != 0, output=text, exit_code=code)
    elif isinstance(code, int):
        builder.tool_result(call_id, is_error=None, output=text, exit_code=code)
    else:
        builder.tool_result(call_id, is_error=event.get("success") is False, output=text)


__all__ = ["FORMAT", "read"]
