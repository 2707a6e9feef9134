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
    from typing import Any, BinaryIO

BLOCK = 256 * 1024
"""Bytes read per step of a backward scan (:func:`lines_backward`)."""


def iter_json_lines(
    path: str | Path,
    report: ReadReport,
    *,
    skip: Callable[[bytes], bool] | None = None,
    start: int = 0,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each JSON-object line of ``path``.

    Blank lines are ignored, ``//`` comment lines counted, and lines that are not JSON
    objects skipped with a warning. ``skip`` may reject a raw line before it is parsed
    (a cheap way to pass over records nobody needs). ``start``: the byte offset of the
    first line to read (a stop hook reads the current run only); line numbers then count
    from there.
    """
    name = str(path)
    with open(path, "rb") as handle:
        if start:
            handle.seek(start)
        for number, raw in enumerate(handle, 1):
            obj = parse_line(raw, name, number, report, skip=skip)
            if obj is not None:
                yield number, obj


def lines_backward(handle: BinaryIO, end: int, block: int = BLOCK) -> Iterator[tuple[int, bytes]]:
    """``(offset, raw line)`` from the end of the file to its start; the last may lack a newline.

    Linear in the file's size however long its lines are: each block is searched once, and a
    line longer than a block is kept as its pieces and joined once, when its start is found
    (rebuilding one buffer per block made a 100 MB line cost seconds).
    """
    pos = end
    carry: list[bytes] = []  # the end of a line whose start is not read yet, last piece first
    while pos > 0:
        take = min(block, pos)
        pos -= take
        handle.seek(pos)
        chunk = handle.read(take)
        if len(chunk) != take:
            raise OSError("the transcript changed while it was read")
        hi = len(chunk)  # chunk[:hi] is not yet yielded
        while True:
            # The line's own newline (its last byte) is not where it starts.
            limit = hi if carry else hi - 1
            cut = chunk.rfind(b"\n", 0, limit) if limit > 0 else -1
            if cut < 0:
                break
            piece = chunk[cut + 1 : hi]
            line = piece + b"".join(reversed(carry)) if carry else piece
            carry = []
            yield pos + cut + 1, line
            hi = cut + 1
        if hi > 0:
            carry.append(chunk[:hi])
    if carry:
        yield 0, b"".join(reversed(carry))


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


__all__ = ["BLOCK", "iter_json_lines", "lines_backward", "parse_line"]
