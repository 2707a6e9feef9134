"""earnest's own normalized trajectories: what ``earnest trajectory convert`` writes.

One :meth:`Trajectory.to_dict` record per line (``"schema": "earnest.trajectory/1"``);
reading it back gives equal trajectories.

Example:
    >>> import tempfile, pathlib, json
    >>> from earnest.trajectory.model import Trajectory
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "n.jsonl"
    >>> t = Trajectory(id="a", source="x", format="claude-code")
    >>> _ = p.write_text(json.dumps(t.to_dict()) + "\\n")
    >>> from earnest.trajectory.report import ReadReport
    >>> next(read(p, ReadReport())) == t
    True
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport

FORMAT = "earnest"


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """Every valid record of a normalized JSONL file; invalid ones are skipped and counted."""
    for number, record in iter_json_lines(path, report):
        try:
            yield Trajectory.from_dict(record)
        except (ValueError, TypeError) as exc:
            report.skip(str(path), number, f"invalid trajectory record: {exc}")


__all__ = ["FORMAT", "read"]
