"""Streaming JSONL iteration: one object per line, bad lines skipped and counted.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> _ = p.write_text('// note\\n{"a": 1}\\nnot json\\n')
    >>> from earnest.trajectory.report import ReadReport
    >>> r = ReadReport()
    >>> [obj for _, obj in iter_json_lines(p, r)], r.skipped_lines, r.comment_lines
    ([{'a': 1}], 1, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from earnest.safejson import loads as safe_loads
from earnest.trajectory.report import ReadReport

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any


def iter_json_lines(
    path: str | Path,
    report: ReadReport,
    *,
    skip: Callable[[bytes], bool] | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each JSON-object line of ``path``.

    Blank lines are ignored, ``//`` comment lines counted, and lines that are not JSON
    objects skipped with a warning. ``skip`` may reject a raw line before it is parsed
    (a cheap way to pass over records nobody needs).
    """
    name = str(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            obj = parse_line(raw, name, number, report, skip=skip)
            if obj is not None:
                yield number, obj


def parse_line(
    raw: bytes,
    name: str,
    number: int | None,
    report: ReadReport,
    *,
    skip: Callable[[bytes], bool] | None = None,
) -> dict[str, Any] | None:
    """Parse one raw line; ``None`` for blank, comment, skipped or malformed lines."""
    line = raw.strip()
    if not line:
        return None
    if line.startswith(b"//"):
        report.comment_lines += 1
        return None
    if skip is not None and skip(line):
        return None
    try:
        obj = safe_loads(line)
    except ValueError as exc:
        truncated = not raw.endswith(b"\n")
        what = "truncated last line" if truncated else "malformed JSON"
        report.skip(name, number, f"{what}: {_short(exc)}")
        return None
    if not isinstance(obj, dict):
        report.skip(name, number, f"expected a JSON object, got {type(obj).__name__}")
        return None
    return obj


def _short(exc: Exception) -> str:
    return str(exc).split("\n", 1)[0][:120]


__all__ = ["iter_json_lines", "parse_line"]
