"""``earnest score --jobs N``: judge recorded replies in worker processes, in input order.

The replies are read and checked here (so a bad line stops with its file and line exactly
as with one process); chunks of them go to the workers, each judging with
:func:`earnest.pressure.verdict.judge` alone, and the judgements come back in input order
through :func:`earnest.parallel.ordered_map`. ``jobs == 1`` runs the same chunks here: one
code path, so the output does not depend on ``N``.

Example:
    >>> list(judge_records(None, [], jobs=1))  # doctest: +SKIP
    []
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from itertools import islice

from earnest.parallel import ordered_map
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.recorded import judge_record
from earnest.pressure.replies import ReplyRecord
from earnest.pressure.verdict import Judgement

CHUNK = 64
"""Replies per task: enough to amortise the hand-over, few enough to keep order cheap."""

_suite: Suite | None = None
_fixtures: dict[str, Fixture] = {}


def _setup(suite: Suite) -> None:
    global _suite, _fixtures
    _suite = suite
    _fixtures = {f.id: f for f in suite.fixtures}


def _judge_chunk(records: list[ReplyRecord]) -> list[Judgement]:
    assert _suite is not None, "_judge_chunk runs after _setup"
    suite = _suite
    return [judge_record(suite, _fixtures[r.fixture_id], r) for r in records]


def judge_records(
    suite: Suite, records: Iterable[ReplyRecord], jobs: int
) -> Iterator[tuple[ReplyRecord, Judgement]]:
    """``(record, judgement)`` for every record, in input order, judged by ``jobs`` processes."""
    kept: deque[list[ReplyRecord]] = deque()

    def chunks() -> Iterator[list[ReplyRecord]]:
        it = iter(records)
        while chunk := list(islice(it, CHUNK)):
            kept.append(chunk)  # the records stay here; only judgements come back
            yield chunk

    for judgements in ordered_map(
        _judge_chunk, chunks(), jobs, initializer=_setup, initargs=(suite,)
    ):
        yield from zip(kept.popleft(), judgements, strict=True)


__all__ = ["CHUNK", "judge_records"]
