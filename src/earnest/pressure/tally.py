"""The verdict counts behind an ``earnest score`` summary, fed one reply at a time.

:class:`ScoreResult.summary() <earnest.pressure.score.ScoreResult.summary>` and
``earnest aggregate`` (per-reply jsonl records, e.g. of ``--shard`` runs) both build their
summary here, so the two agree exactly. Memory is counts, not replies.

Example:
    >>> tally = VerdictTally()
    >>> tally.add("pass", False)
    >>> tally.add("fail-choice", True)
    >>> s = tally.summary()
    >>> s["passed"], s["failed"], s["pass_rate"], s["unmatched_failures"]
    (1, 1, 0.5, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from earnest.pressure.models import VERDICTS
from earnest.stats import wilson_interval


@dataclass
class VerdictTally:
    """The count of each verdict (all five keys) and of failures no recorded excuse matched."""

    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(VERDICTS, 0))
    unmatched_failures: int = 0
    citation: str = "required"
    """The citation mode the replies were judged under (``required`` or ``optional``)."""

    def add(self, verdict: str, unmatched_failure: bool) -> None:
        self.counts[verdict] += 1
        self.unmatched_failures += unmatched_failure

    def add_record(self, record: Mapping[str, Any]) -> None:
        """Count a checked ``earnest score --format jsonl`` record."""
        self.add(record["verdict"], bool(record["unmatched_failure"]))
        self.citation = str(record.get("citation", self.citation))

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        return self.counts.get("pass", 0)

    @property
    def all_passed(self) -> bool:
        """True only when there was something to pass: zero replies is not a pass."""
        return self.total > 0 and self.passed == self.total

    def summary(self) -> dict[str, Any]:
        """The ``summary`` object of ``earnest score --format json`` (docs/formats.md)."""
        total, passed = self.total, self.passed
        low, high = wilson_interval(passed, total)
        return {
            "citation": self.citation,
            "total": total,
            "passed": passed,
            "failed": total - passed,
            "counts": dict(self.counts),
            "pass_rate": (passed / total) if total else None,
            "pass_rate_interval": [round(low, 4), round(high, 4)] if total else None,
            "unmatched_failures": self.unmatched_failures,
        }


__all__ = ["VerdictTally"]
