"""Claude Code headless ``-p --output-format json`` results.

A single ``{"type": "result", ...}`` object (current), ``{"role": "system", "cost_usd",
"result", ...}`` (May 2025), or with ``--verbose`` a JSON array of stream events. The
result's ``is_error`` wins over its ``subtype``: ``subtype: "success"`` with
``is_error: true`` and ``result: "Credit balance is too low"`` is a usage limit, and its
text is not a final message.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out.json"
    >>> _ = p.write_text(json.dumps({"type": "result", "subtype": "success",
    ...     "is_error": False, "result": "Added the test.", "session_id": "s"}))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.final_message, t.termination.reason
    ('Added the test.', 'normal')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.claude_code import ClaudeCodeSession
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.report import ReadReport

FORMAT = "claude-json"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per result document."""
    data = load_document(path, report)
    if data is None:
        return
    events = data if isinstance(data, list) else [data]
    session = ClaudeCodeSession(path, report=report, stream=True, format=FORMAT, **options)
    for number, event in enumerate(events, 1):
        if isinstance(event, dict):
            session.feed_object(event, number)
        else:
            report.skip(str(path), None, f"entry {number} is not an object")
    if "session_id" in session.builder.metadata:
        session.builder.id = str(session.builder.metadata["session_id"])
    yield session.trajectory()


__all__ = ["FORMAT", "read"]
