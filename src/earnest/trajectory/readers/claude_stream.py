"""Claude Code headless ``--output-format stream-json`` logs.

Same messages as a session transcript, in a different envelope: a ``system/init`` event,
``assistant``/``user`` events (subagent traffic interleaved, marked by a non-null
``parent_tool_use_id``; structured results under ``tool_use_result``) and a final
``result`` event that says how the run ended. A log without a ``result`` event was cut
off: it is ``truncated`` even if the last event is text.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> events = [{"type": "system", "subtype": "init", "session_id": "x"},
    ...           {"type": "result", "subtype": "error_max_turns", "is_error": False,
    ...            "num_turns": 3, "session_id": "x"}]
    >>> _ = p.write_text("".join(json.dumps(e) + "\\n" for e in events))
    >>> from earnest.trajectory.report import ReadReport
    >>> next(read(p, ReadReport())).termination.reason
    'max_turns'
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.claude_code import ClaudeCodeSession
from earnest.trajectory.report import ReadReport

FORMAT = "claude-stream-json"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per stream log."""
    session = ClaudeCodeSession(path, report=report, stream=True, format=FORMAT, **options)
    with open(path, "rb") as handle:
        for raw in handle:
            session.feed(raw)
    if "result_subtype" not in session.builder.metadata:
        inferred = session.builder.build().termination
        if inferred.reason in ("normal", "truncated", "unknown"):
            session.builder.terminate("truncated", "the stream ended without a result event")
    yield session.trajectory()


__all__ = ["FORMAT", "read"]
