"""tau-bench result files: a JSON array of ``{task_id, reward, info, traj, trial}``.

Each entry's ``traj`` is OpenAI-style chat with tool calls; a tool result that starts
with ``Error`` is a failed call (tau-bench tools report failures that way). The simulated
user ends a conversation with ``###STOP###``. A file cut short mid-array yields every
complete entry and one warning.

Example:
    >>> from earnest.trajectory.readers.tau_bench import tool_judge
    >>> tool_judge({}, "Error: reservation not found")
    (True, None)
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

FORMAT = "tau-bench"
STOP = "###STOP###"


def tool_judge(message: dict[str, Any], text: str) -> tuple[bool | None, int | None]:
    """tau-bench tools return ``Error: ...`` strings on failure."""
    return text.lstrip().startswith("Error"), None


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per entry (task and trial)."""
    data = load_document(path, report)
    if data is None:
        return
    entries = data if isinstance(data, list) else [data]
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("traj"), list):
            report.skip(str(path), None, f"entry {number} has no 'traj' list")
            continue
        task, trial = entry.get("task_id"), entry.get("trial")
        builder = TrajectoryBuilder(
            id=f"{path.stem}#task-{task}-trial-{trial}",
            source=str(path),
            format=FORMAT,
            **options,
        )
        traj = entry["traj"]
        stops = [m for m in traj if _is_stop(m)]
        messages = [m for m in traj if not _is_stop(m)]
        feed_messages(builder, messages, report, name=str(path), judge=tool_judge)
        if stops:
            closing = content_text(stops[-1].get("content")).replace(STOP, "").strip()
            builder.metadata["closing_user_message"] = closing
            builder.terminate("normal", "the simulated user ended the conversation")
        elif _last_call(messages) == "transfer_to_human_agents":
            builder.terminate("normal", "transferred to a human agent")
        builder.metadata.update({"task_id": task, "trial": trial, "reward": entry.get("reward")})
        yield builder.build()


def _is_stop(message: Any) -> bool:
    """The simulated user's closing turn (its text ends with the stop marker)."""
    return (
        isinstance(message, dict)
        and message.get("role") == "user"
        and STOP in content_text(message.get("content"))
    )


def _last_call(messages: list[Any]) -> str | None:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            calls = message.get("tool_calls")
            if isinstance(calls, list) and calls and isinstance(calls[-1], dict):
                function = calls[-1].get("function")
                if isinstance(function, dict):
                    return str(function.get("name"))
            return None
    return None


__all__ = ["FORMAT", "STOP", "read", "tool_judge"]
