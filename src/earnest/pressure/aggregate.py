"""Rebuild an ``earnest score`` summary from per-reply results (``earnest aggregate``).

``earnest score --format jsonl`` writes one record per reply; scored in shards
(``--shard i/N``) the records combine here into the summary of scoring every reply at once,
through the same :class:`~earnest.pressure.tally.VerdictTally` the scorer uses. A record
that is not a scored reply, or a reply counted twice, stops with the file and line.

Example:
    >>> aggregate_replies([]).summary()["total"]
    0
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.pressure.models import VERDICTS
from earnest.pressure.tally import VerdictTally
from earnest.results import read_checked_jsonl


def check_reply_record(record: object) -> str | None:
    """What is wrong with ``record`` as an ``earnest score`` jsonl object, or ``None``."""
    if not isinstance(record, dict):
        return "expected a JSON object (one scored reply per line)"
    for key in ("file", "fixture_id"):
        if not isinstance(record.get(key), str):
            return f"{key!r} must be a string"
    line = record.get("line")
    if not isinstance(line, int) or isinstance(line, bool):
        return "'line' must be a whole number"
    if record.get("verdict") not in VERDICTS:
        return f"'verdict' must be one of {', '.join(VERDICTS)}"
    if not isinstance(record.get("unmatched_failure"), bool):
        return "'unmatched_failure' must be true or false"
    return None


def read_reply_results(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for every checked record of ``path``; blank lines skipped."""
    return read_checked_jsonl(path, check_reply_record)


def aggregate_replies(paths: Iterable[Path]) -> VerdictTally:
    """The verdict tally of every record in ``paths``."""
    tally = VerdictTally()
    seen: set[tuple[str, int]] = set()
    for path in paths:
        for number, record in read_reply_results(path):
            key = (record["file"], record["line"])
            if key in seen:
                raise InputError(
                    path,
                    f"line {number}",
                    f"the reply of {record['file']}:{record['line']} is already counted: "
                    "a file given twice, or overlapping shards",
                )
            seen.add(key)
            tally.add_record(record)
    return tally


__all__ = ["aggregate_replies", "check_reply_record", "read_reply_results"]
