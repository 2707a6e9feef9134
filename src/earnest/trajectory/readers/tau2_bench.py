"""tau2-bench results: ``Results`` (``{timestamp, info, tasks, simulations}``) or one ``SimulationRun``.

tau2-bench (sierra-research/tau2-bench, ``tau2.data_model.simulation``) saves a run as one JSON
``Results`` document, or as a folder (``results.json`` without the simulations, and one
``simulations/<id>.json`` per ``SimulationRun``); both are read. Each simulation is one
trajectory: its ``messages`` (``tau2.data_model.message``: ``assistant`` messages with
``tool_calls`` of ``{id, name, arguments}``, ``tool`` messages answering them by ``id`` with
``error: true`` on failure, ``user`` messages of the simulated customer) go through the chat
reader (:func:`~earnest.trajectory.readers.openai_chat.feed_messages`). Calls the simulated
user makes on its own device (``requestor: "user"``, the telecom domain) are not the agent's
and are left out.

How it ended comes from ``termination_reason``: ``user_stop`` and ``agent_stop`` are normal
ends, and so is every end marker the simulated user closes with — ``###STOP###`` (done),
``###TRANSFER###`` (asked for a human) and ``###OUT-OF-SCOPE###`` (the request is outside the
domain); the closing message is not a new request (``closing_user_message``, ``end_marker``).
``max_steps`` is the turn cap, ``context_window_exceeded`` a usage limit, ``timeout`` an
interruption, and the error reasons (``too_many_errors``, ``agent_error``, ``user_error``,
``infrastructure_error``, ``unexpected_error``) an API error: none of them is a "done". A
voice (full-duplex) simulation that kept only ``ticks`` has no messages and is skipped with
a warning naming it.

Example:
    >>> end_marker("Thanks, that's all. ###TRANSFER###")
    '###TRANSFER###'
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.openai_chat import feed_messages
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import content_text

FORMAT = "tau2-bench"
STOP, TRANSFER, OUT_OF_SCOPE = "###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"
MARKERS = (STOP, TRANSFER, OUT_OF_SCOPE)
_ENDS: dict[str, tuple[str, str]] = {
    "user_stop": ("normal", "the simulated user ended the conversation"),
    "agent_stop": ("normal", "the agent ended the conversation"),
    "max_steps": ("max_turns", "tau2-bench's step limit (max_steps)"),
    "context_window_exceeded": ("usage_limit", "the context window was exceeded"),
    "timeout": ("interrupted", "the simulation timed out"),
    "too_many_errors": ("api_error", "too many errors"),
    "agent_error": ("api_error", "the agent failed"),
    "user_error": ("api_error", "the user simulator failed"),
    "infrastructure_error": ("api_error", "an infrastructure error"),
    "unexpected_error": ("api_error", "an unexpected error"),
}
_MARKER_DETAIL = {
    STOP: "the simulated user ended the conversation (###STOP###)",
    TRANSFER: "the simulated user asked for a human agent (###TRANSFER###)",
    OUT_OF_SCOPE: "the simulated user's request is out of scope (###OUT-OF-SCOPE###)",
}


def end_marker(text: str) -> str | None:
    """The end marker ``text`` holds, if any."""
    return next((m for m in MARKERS if m in text), None)


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per simulation, in the file's order."""
    name = str(path)
    data = load_document(path, report)
    if data is None:
        return
    if isinstance(data, dict) and isinstance(data.get("simulations"), list):
        simulations, prefix = data["simulations"], "simulations"
    elif isinstance(data, dict) and "termination_reason" in data:
        simulations, prefix = [data], ""
    elif isinstance(data, dict) and isinstance(data.get("simulation_index"), list):
        report.warn(name, None, "a tau2-bench results.json of the folder format: the "
                    "simulations are in simulations/*.json beside it (read that folder)")  # fmt: skip
        return
    else:
        report.warn(name, None, "not a tau2-bench results file: no simulations list")
        return
    for number, simulation in enumerate(simulations):
        place = f"{prefix}[{number}]" if prefix else "the simulation"
        if not isinstance(simulation, dict):
            report.skip(name, None, f"{place} is not an object")
            continue
        messages = simulation.get("messages")
        if not isinstance(messages, list):
            what = "a voice run with only ticks" if "ticks" in simulation else "no messages list"
            report.skip(name, None, f"{place}: {what}; not read")
            continue
        yield _one(path, simulation, messages, report, place, options)


def _one(
    path: Path,
    simulation: dict[str, Any],
    messages: list[Any],
    report: ReadReport,
    place: str,
    options: dict[str, Any],
) -> Trajectory:
    task, trial = simulation.get("task_id"), simulation.get("trial")
    ident = simulation.get("id")
    builder = TrajectoryBuilder(
        id=f"{path.stem}#{ident}" if isinstance(ident, str) and ident else
        f"{path.stem}#task-{task}-trial-{trial}",
        source=str(path),
        format=FORMAT,
        **options,
    )  # fmt: skip
    closing: tuple[str, str] | None = None
    chat: list[Any] = []
    for message in messages:
        if not isinstance(message, dict):
            chat.append(message)  # feed_messages reports it
            continue
        role = message.get("role")
        text = content_text(message.get("content"))
        marker = end_marker(text)
        if role == "user" and marker is not None:
            closing = (marker, _without_markers(text))
            continue
        if role == "tool":
            chat.extend(_tool_messages(message))
        elif role == "user" and not text.strip():
            continue  # the simulated user only used its own device's tools
        elif role == "assistant" and marker is not None:
            chat.append({**message, "content": _without_markers(text)})
        else:
            chat.append(message)
    feed_messages(builder, chat, report, name=f"{path}: {place}")
    reason = simulation.get("termination_reason")
    if isinstance(reason, str) and reason in _ENDS:
        kind, detail = _ENDS[reason]
        if closing is not None and kind == "normal":
            detail = _MARKER_DETAIL[closing[0]]
        builder.terminate(kind, detail)  # type: ignore[arg-type]
    elif closing is not None:
        builder.terminate("normal", _MARKER_DETAIL[closing[0]])
    elif reason is not None:
        report.warn(str(path), None, f"{place}.termination_reason: unknown value {reason!r}")
    if closing is not None:
        builder.metadata["end_marker"] = closing[0]
        builder.metadata["closing_user_message"] = closing[1]
    reward = simulation.get("reward_info")
    builder.metadata.update(
        {
            "task_id": task,
            "trial": trial,
            "termination_reason": reason,
            "reward": reward.get("reward") if isinstance(reward, dict) else None,
        }
    )
    return builder.build()


def _tool_messages(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The agent's tool results in one ``tool`` message (a ``MultiToolMessage`` holds several),
    keyed as the chat reader expects (``tool_call_id``)."""
    parts = message.get("tool_messages")
    items = parts if isinstance(parts, list) else [message]
    out: list[dict[str, Any]] = []
    for item in items:
        if not isinstance(item, dict) or item.get("requestor") == "user":
            continue
        call_id = item.get("id")
        out.append({**item, "role": "tool", "tool_call_id": call_id} if call_id else item)
    return out


def _without_markers(text: str) -> str:
    for marker in MARKERS:
        text = text.replace(marker, "")
    return text.strip()


__all__ = ["FORMAT", "MARKERS", "OUT_OF_SCOPE", "STOP", "TRANSFER", "end_marker", "read"]
