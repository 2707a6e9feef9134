"""Whole-document JSON formats: load one JSON value, salvaging a truncated array.

JSON documents (tau-bench results, OpenHands event arrays, SWE-agent ``.traj``) are read
whole. A JSON array cut short — tau-bench's historical files were shared truncated —
yields every entry that parses completely, with one warning for the cut.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.json"
    >>> _ = p.write_text('[{"a": 1}, {"b": 2}, {"c": ')
    >>> from earnest.trajectory.report import ReadReport
    >>> r = ReadReport()
    >>> load_document(p, r), r.skipped_lines
    ([{'a': 1}, {'b': 2}], 1)
"""

from __future__ import annotations

import json
from pathlib import Path

from earnest.safejson import loads as safe_loads
from earnest.trajectory.report import ReadReport

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

MAX_DOCUMENT_BYTES = 512 * 1024 * 1024


def load_document(path: Path, report: ReadReport) -> Any:
    """The JSON value in ``path``, the complete entries of a cut array, or ``None``."""
    name = str(path)
    size = path.stat().st_size
    if size > MAX_DOCUMENT_BYTES:
        report.warn(name, None, f"JSON document too large to read ({size} bytes); skipped")
        return None
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        report.warn(name, None, f"not UTF-8 text ({exc.reason} at byte {exc.start}); skipped")
        return None
    try:
        return safe_loads(text)
    except ValueError as exc:
        stripped = text.lstrip()
        if stripped.startswith("["):
            return _salvage_array(text, name, report)
        line = getattr(exc, "lineno", None)
        report.skip(name, line, f"malformed JSON document: {str(exc).splitlines()[0][:120]}")
        return None


def _salvage_array(text: str, name: str, report: ReadReport) -> list[Any]:
    decoder = json.JSONDecoder()
    items: list[Any] = []
    at = text.index("[") + 1
    length = len(text)
    while True:
        while at < length and text[at] in " \t\r\n,":
            at += 1
        if at >= length or text[at] == "]":
            break
        try:
            value, at = decoder.raw_decode(text, at)
        except (ValueError, RecursionError) as exc:
            line = text.count("\n", 0, at) + 1
            report.skip(
                name,
                line,
                f"JSON array cut short after {len(items)} complete entries "
                f"({str(exc).splitlines()[0][:80]}); the rest was not read",
            )
            break
        items.append(value)
    return items


__all__ = ["MAX_DOCUMENT_BYTES", "load_document"]
