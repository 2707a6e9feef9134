"""Score recorded replies against a suite: read → unwrap → parse → judge, in input order.

``earnest score``, ``earnest check`` and the live runner share this; verdicts come from
:func:`earnest.pressure.verdict.judge` alone.

Example:
    >>> result = score_replies(load_suite("examples/suite"), ["examples/suite/recorded/replies.jsonl"])  # doctest: +SKIP
    >>> result.counts["pass"] + result.failed == result.total  # doctest: +SKIP
    True
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from earnest.pressure.models import VERDICTS, Fixture, Suite
from earnest.pressure.recorded import judge_record
from earnest.pressure.replies import ReplyRecord, read_replies
from earnest.pressure.tally import VerdictTally
from earnest.pressure.verdict import Judgement
from earnest.shards import Shard


@dataclass(frozen=True, slots=True)
class ScoredReply:
    """One recorded reply and its judgement."""

    record: ReplyRecord
    judgement: Judgement

    def as_dict(self) -> dict[str, Any]:
        """The ``score`` JSON shape of one reply (``docs/formats.md``)."""
        out = self.record.as_dict()
        out.update(self.judgement.as_dict())
        return out


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """Scored replies in input order, with the count of each verdict (all five keys present).

    A streamed score (:class:`ScoreTally`) keeps only some replies (the failures, for the
    table): ``counts`` always covers every reply judged, and ``unmatched`` is then the count of
    unmatched failures among them.
    """

    replies: tuple[ScoredReply, ...]
    counts: dict[str, int]
    unmatched: int | None = None
    citation: str = "required"

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        return self.counts.get("pass", 0)

    @property
    def failed(self) -> int:
        return self.total - self.passed

    @property
    def all_passed(self) -> bool:
        """True only when there was something to pass: zero replies is not a pass."""
        return self.total > 0 and self.failed == 0

    @property
    def unmatched_failures(self) -> int:
        if self.unmatched is not None:
            return self.unmatched
        return sum(1 for r in self.replies if r.judgement.unmatched_failure)

    def summary(self) -> dict[str, Any]:
        # One summary code for scoring at once and for `earnest aggregate` of shards.
        return VerdictTally(dict(self.counts), self.unmatched_failures, self.citation).summary()


def fixture_index(suite: Suite) -> tuple[dict[str, Fixture], dict[str, str]]:
    """(loaded fixtures by id, ids of fixture files that failed to load → their path)."""
    fixtures = {f.id: f for f in suite.fixtures}
    broken: dict[str, str] = {}
    for ff in suite.fixture_files:
        raw_id = ff.raw.get("id") if isinstance(ff.raw, dict) else None
        if ff.fixture is None and isinstance(raw_id, str) and raw_id not in fixtures:
            broken[raw_id] = suite.rel(ff.path)
    return fixtures, broken


def iter_scored(
    suite: Suite, paths: Iterable[str | Path], shard: Shard | None = None, jobs: int = 1
) -> Iterator[ScoredReply]:
    """Judge every reply in ``paths`` (only ``shard``'s share, by place in input order),
    streaming, in input order, in ``jobs`` processes (:mod:`earnest.pressure.parallel`).
    Every shard reads and checks all replies."""
    fixtures, broken = fixture_index(suite)
    records = (r for path in paths for r in read_replies(path, fixtures, broken=broken))
    if jobs > 1:
        from earnest.pressure.parallel import judge_records

        chosen = records if shard is None else shard.stream(records)
        for record, judgement in judge_records(suite, chosen, jobs):
            yield ScoredReply(record, judgement)
        return
    for record in records if shard is None else shard.stream(records):
        yield ScoredReply(record, judge_record(suite, fixtures[record.fixture_id], record))


class ScoreTally:
    """Counts of a streamed score: what ``earnest score`` keeps instead of every reply.

    Example:
        >>> t = ScoreTally()
        >>> t.result().total
        0
    """

    def __init__(self, citation: str = "required") -> None:
        self.counts = dict.fromkeys(VERDICTS, 0)
        self.unmatched = 0
        self.citation = citation

    def add(self, scored: ScoredReply) -> None:
        j = scored.judgement
        self.counts[j.verdict] += 1
        self.unmatched += j.unmatched_failure

    def result(self, kept: Iterable[ScoredReply] = ()) -> ScoreResult:
        """The counts as a :class:`ScoreResult` holding only the ``kept`` replies."""
        return ScoreResult(tuple(kept), dict(self.counts), self.unmatched, self.citation)


def count_verdicts(scored: Iterable[ScoredReply]) -> dict[str, int]:
    counts = dict.fromkeys(VERDICTS, 0)
    for s in scored:
        counts[s.judgement.verdict] += 1
    return counts


def score_replies(
    suite: Suite, paths: Iterable[str | Path], shard: Shard | None = None, jobs: int = 1
) -> ScoreResult:
    """Score every reply in ``paths`` (or ``shard``'s share, in ``jobs`` processes); raises
    :class:`~earnest.errors.InputError` on bad input."""
    scored = tuple(iter_scored(suite, paths, shard, jobs))
    return ScoreResult(scored, count_verdicts(scored), citation=suite.config.citation)


__all__ = [
    "ScoreResult",
    "ScoreTally",
    "ScoredReply",
    "count_verdicts",
    "fixture_index",
    "iter_scored",
    "score_replies",
]
