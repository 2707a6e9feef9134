"""Score trajectories and aggregate a battery of them, with intervals.

:func:`score_trajectory` gives one :class:`TrajectoryResult`: the dimension scores, their
confidence-weighted aggregate, and the headline **outcome** — computed for every
trajectory whatever dimensions were asked for:

- ``abnormal``: the run did not end normally (API error, usage limit, turn cap, interrupt,
  a log cut inside the loop, or no reply at all). An abnormal termination is never "done",
  so it is never a completion without effect either (``terminated_abnormally``).
- ``completion_without_effect``: the run ended normally with the agent claiming completion,
  and the effect gate replayed over it (:mod:`earnest.trajectory.replay`, expected class from
  the request via :func:`earnest.effects.expected_effect_class`) found no effect behind
  that final claim — SWE-bench's "empty patch", as its own outcome.
- ``backed``: the final claim passed the gate.
- ``no_claim``: the run ended normally without a final message, or with one that says
  plainly what was not done and claims nothing done ("I could not create newfile.py").

:class:`Battery` collects results and summarises them: per dimension the mean with a 95%
t-interval (:func:`earnest.stats.mean_interval`) and the confidence-weighted mean; the
mean of the per-trajectory aggregates with its interval; the completion-without-effect
rate over all trajectories with a Wilson interval (:func:`earnest.stats.wilson_interval`);
counts per outcome, termination and source format; and the gate replay's totals.

Example:
    >>> from earnest.trajectory.model import Message, Termination, Trajectory
    >>> t = Trajectory("t", "t.jsonl", "earnest",
    ...     messages=(Message("user", "hi", 0, kind="prompt"), Message("assistant", "Hello!", 1)),
    ...     final_message="Hello!", termination=Termination("normal"), user_request="hi")
    >>> result = score_trajectory(t)
    >>> result.outcome, result.completion_without_effect
    ('backed', False)
    >>> battery = Battery()
    >>> battery.add(result)
    >>> battery.summary()["completion_without_effect"]["count"]
    0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from earnest.effects import DEFAULT_REGISTRY, ToolRegistry
from earnest.stats import mean_interval_of_sums, wilson_interval
from earnest.trajectory.model import Trajectory
from earnest.trajectory.replay import NOT_DONE_REASON, TrajectoryReplay, replay_trajectory
from earnest.trajectory.said_did import CheckedClaim, check_claims, effect_without_request
from earnest.trajectory.scorers import (
    DimensionScorer,
    TrajectoryDimension,
    TrajectoryScore,
    default_scorers,
    score_dimensions,
)

Outcome = Literal["backed", "completion_without_effect", "no_claim", "abnormal"]
OUTCOMES: tuple[Outcome, ...] = ("backed", "completion_without_effect", "no_claim", "abnormal")


@dataclass(frozen=True, slots=True)
class TrajectoryResult:
    """One trajectory scored: its outcome (always) and its dimension scores."""

    source: str
    trajectory_id: str
    format: str
    termination: str
    termination_detail: str
    outcome: Outcome
    reason: str
    """Why the outcome: the gate's reason for a completion without effect, the termination
    for an abnormal run, what satisfied the gate for a backed one."""
    tool_calls: int
    scores: TrajectoryScore
    replay: TrajectoryReplay
    claims: tuple[CheckedClaim, ...] | None = None
    """With ``strict_claims``: the final message's claims, checked (``None``: not checked)."""
    effect_without_request: str | None = None
    """Why the run changed files when its request only asked a question (else ``None``)."""

    @property
    def completion_without_effect(self) -> bool:
        return self.outcome == "completion_without_effect"

    @property
    def terminated_abnormally(self) -> bool:
        return self.outcome == "abnormal"

    @property
    def aggregate(self) -> float:
        return self.scores.aggregate

    def to_dict(self) -> dict[str, Any]:
        """The ``earnest trajectory score --format jsonl`` object (docs/formats.md)."""
        replay = self.replay
        return {
            "source": self.source,
            "trajectory_id": self.trajectory_id,
            "format": self.format,
            "outcome": self.outcome,
            "completion_without_effect": self.completion_without_effect,
            "terminated_abnormally": self.terminated_abnormally,
            "termination": {"reason": self.termination, "detail": self.termination_detail},
            "reason": self.reason,
            "tool_calls": self.tool_calls,
            "claimed_completion": replay.final_claim is not None,
            "aggregate": round(self.aggregate, 4) if self.scores.dimensions else None,
            "dimensions": self.scores.to_dict(),
            "gate": {
                "runs": len(replay.runs),
                "claims": len(replay.claims),
                "downgraded": replay.count("downgraded"),
                "exhausted": replay.count("exhausted"),
            },
            "claims": None
            if self.claims is None
            else {
                "checked": len(self.claims),
                "unverified": [c.to_dict() for c in self.claims if not c.verified],
                "verified": [c.to_dict() for c in self.claims if c.verified],
            },
            "effect_without_request": self.effect_without_request,
        }


def score_trajectory(
    trajectory: Trajectory,
    scorers: Sequence[DimensionScorer] | None = None,
    *,
    max_downgrades: int = 2,
    registry: ToolRegistry = DEFAULT_REGISTRY,
    strict_claims: bool = True,
) -> TrajectoryResult:
    """Score ``trajectory`` on ``scorers`` (default: :func:`default_scorers`) and decide its
    outcome with a gate replay (``strict_claims``: the replayed gate checks the final
    message's claims, and the result lists them in ``claims``)."""
    chosen = default_scorers(registry) if scorers is None else scorers
    replay = replay_trajectory(
        trajectory, max_downgrades=max_downgrades, registry=registry, strict_claims=strict_claims
    )
    t = trajectory
    outcome: Outcome
    if not t.termination.is_normal:
        outcome = "abnormal"
        detail = f": {t.termination.detail}" if t.termination.detail else ""
        reason = f"terminated abnormally ({t.termination.reason}{detail})"
    elif replay.final_claim is None:
        outcome = "no_claim"
        reason = "ended normally without a final message"
    elif replay.final_claim.reason.startswith(NOT_DONE_REASON):
        outcome = "no_claim"  # "I could not ...": the agent claimed nothing done
        reason = replay.final_claim.reason
    elif replay.final_claim.without_effect:
        outcome = "completion_without_effect"
        reason = replay.final_claim.reason
    else:
        outcome = "backed"
        reason = replay.final_claim.reason or "the gate let the completion stand"
    return TrajectoryResult(
        source=t.source,
        trajectory_id=t.id,
        format=t.format,
        termination=t.termination.reason,
        termination_detail=t.termination.detail,
        outcome=outcome,
        reason=reason,
        tool_calls=len(t.tool_calls),
        scores=score_dimensions(t, chosen),
        replay=replay,
        claims=_claims(t, replay, registry) if strict_claims else None,
        effect_without_request=effect_without_request(t, registry),
    )


def _claims(
    t: Trajectory, replay: TrajectoryReplay, registry: ToolRegistry
) -> tuple[CheckedClaim, ...]:
    """The final message's claims, checked once: the replayed gate checked them at the final
    claim (against that run's calls and the conversation's earlier turns); a trajectory with
    no final claim (it ended abnormally, or the log ended on a stop hook's block) gets
    :func:`check_claims`."""
    if replay.final_checks is None:
        return check_claims(t, registry)
    return tuple(CheckedClaim(c.claim.render(), c.verified, c.why) for c in replay.final_checks)


SCALE = 10_000
"""Scores are recorded to 4 decimals; the tally sums them as integers of 1/SCALE, exactly."""


@dataclass
class _Moments:
    """Exact running sums of values recorded to 4 decimals (integers of ``1/SCALE``)."""

    n: int = 0
    total: int = 0
    squares: int = 0

    def add(self, units: int) -> None:
        self.n += 1
        self.total += units
        self.squares += units * units

    def merge(self, other: _Moments) -> None:
        self.n += other.n
        self.total += other.total
        self.squares += other.squares

    def interval(self) -> tuple[float, float, float]:
        return mean_interval_of_sums(self.n, self.total, self.squares, SCALE)


@dataclass
class _DimensionTally:
    scores: _Moments = field(default_factory=_Moments)
    confidence: int = 0
    weighted: int = 0  # sum of score * confidence, in 1/SCALE**2


def _units(value: float) -> int:
    """A recorded score (4 decimals) as an integer of ``1/SCALE``: ``_units(0.6667) == 6667``."""
    return round(value * SCALE)


@dataclass
class BatteryTally:
    """The battery summary's counts and exact sums, fed one per-trajectory record at a time.

    A record is the ``earnest trajectory score --format jsonl`` object
    (:meth:`TrajectoryResult.to_dict`), so a battery scored at once and one rebuilt from the
    jsonl of its shards (``earnest trajectory aggregate``) go through this same code and give
    the same summary; sums are integers, so the order of the records does not matter either.
    Memory is counts, not results.
    """

    n: int = 0
    cwe: int = 0
    claimed: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    terminations: Counter[str] = field(default_factory=Counter)
    formats: dict[str, dict[str, int]] = field(default_factory=dict)
    dimensions: dict[str, _DimensionTally] = field(default_factory=dict)
    aggregate: _Moments = field(default_factory=_Moments)
    gate: Counter[str] = field(default_factory=Counter)
    effect_without_request: int = 0
    unverified_claims: int = 0

    def add(self, record: Mapping[str, Any]) -> None:
        """Count one record (already checked: see :mod:`earnest.trajectory.aggregate`)."""
        self.n += 1
        cwe = bool(record["completion_without_effect"])
        abnormal = bool(record["terminated_abnormally"])
        self.cwe += cwe
        self.claimed += bool(record["claimed_completion"])
        self.outcomes[record["outcome"]] += 1
        self.terminations[record["termination"]["reason"]] += 1
        row = self.formats.setdefault(
            record["format"], {"trajectories": 0, "completion_without_effect": 0, "abnormal": 0}
        )
        row["trajectories"] += 1
        row["completion_without_effect"] += cwe
        row["abnormal"] += abnormal
        for name, body in record["dimensions"].items():
            dim = self.dimensions.setdefault(name, _DimensionTally())
            score, confidence = _units(body["score"]), _units(body["confidence"])
            dim.scores.add(score)
            dim.confidence += confidence
            dim.weighted += score * confidence
        if record["aggregate"] is not None:
            self.aggregate.add(_units(record["aggregate"]))
        gate = record["gate"]
        for key in ("claims", "downgraded", "exhausted"):
            self.gate[key] += gate[key]
        # Said versus did (earnest.trajectory.said_did): acting on a question, unbacked claims.
        self.effect_without_request += bool(record.get("effect_without_request"))
        claims = record.get("claims")
        self.unverified_claims += bool(isinstance(claims, Mapping) and claims.get("unverified"))

    def merge(self, other: BatteryTally) -> None:
        """Add the counts of ``other`` (e.g. a batch scored in another process): the sums are
        integers, so merging gives exactly the tally of adding every record here."""
        self.n += other.n
        self.cwe += other.cwe
        self.claimed += other.claimed
        self.outcomes.update(other.outcomes)
        self.terminations.update(other.terminations)
        for name, row in other.formats.items():
            mine = self.formats.setdefault(
                name, {"trajectories": 0, "completion_without_effect": 0, "abnormal": 0}
            )
            for key, value in row.items():
                mine[key] += value
        for name, dim in other.dimensions.items():
            own = self.dimensions.setdefault(name, _DimensionTally())
            own.scores.merge(dim.scores)
            own.confidence += dim.confidence
            own.weighted += dim.weighted
        self.aggregate.merge(other.aggregate)
        self.gate.update(other.gate)
        self.effect_without_request += other.effect_without_request
        self.unverified_claims += other.unverified_claims

    def summary(self) -> dict[str, Any]:
        """The ``battery`` object of ``earnest trajectory score --format json``."""
        n = self.n
        dimensions: dict[str, Any] = {}
        for dim in TrajectoryDimension:
            tally = self.dimensions.get(dim.value)
            if tally is None:
                continue
            mean, low, high = tally.scores.interval()
            count = tally.scores.n
            weighted = tally.weighted / (tally.confidence * SCALE) if tally.confidence else None
            dimensions[dim.value] = {
                "n": count,
                "mean": _num(mean),
                # Scores live in [0, 1]; a t-interval can overshoot near the bounds.
                "ci_low": _bound(low),
                "ci_high": _bound(high),
                "weighted_mean": _num(weighted),
                "mean_confidence": _num(tally.confidence / (count * SCALE)),
            }
        agg_mean, agg_low, agg_high = self.aggregate.interval()
        cwe = self.cwe
        low, high = wilson_interval(cwe, n)
        return {
            "trajectories": n,
            "completion_without_effect": {
                "count": cwe,
                "rate": _num(cwe / n) if n else None,
                "ci_low": _num(low) if n else None,
                "ci_high": _num(high) if n else None,
                "claimed_completions": self.claimed,
            },
            "outcomes": {o: self.outcomes.get(o, 0) for o in OUTCOMES},
            "terminations": dict(sorted(self.terminations.items())),
            "formats": {k: dict(v) for k, v in sorted(self.formats.items())},
            "dimensions": dimensions,
            "aggregate": {
                "n": self.aggregate.n,
                "mean": _num(agg_mean),
                "ci_low": _bound(agg_low),
                "ci_high": _bound(agg_high),
            },
            "gate": {k: self.gate.get(k, 0) for k in ("claims", "downgraded", "exhausted")},
            "effect_without_request": self.effect_without_request,
            "unverified_claims": self.unverified_claims,
        }


@dataclass
class Battery:
    """Results of many trajectories, and their summary (by :class:`BatteryTally`).

    ``keep_results=False`` keeps only the tally: a streaming scorer writes each result as it
    is judged and holds counts, not results.
    """

    results: list[TrajectoryResult] = field(default_factory=list)
    keep_results: bool = True
    tally: BatteryTally = field(default_factory=BatteryTally, repr=False)

    def __post_init__(self) -> None:
        for result in self.results:
            self.tally.add(result.to_dict())

    def add(self, result: TrajectoryResult, record: Mapping[str, Any] | None = None) -> None:
        """Add ``result``; ``record`` is its :meth:`~TrajectoryResult.to_dict` if already made."""
        if self.keep_results:
            self.results.append(result)
        self.tally.add(result.to_dict() if record is None else record)

    def add_record(self, record: Mapping[str, Any]) -> None:
        """Add a per-trajectory record read back from ``--format jsonl`` output."""
        self.tally.add(record)

    @property
    def total(self) -> int:
        return self.tally.n

    @property
    def completions_without_effect(self) -> int:
        return self.tally.cwe

    @property
    def cwe_rate(self) -> float:
        """Completions without effect over all trajectories (0.0 for an empty battery)."""
        return self.completions_without_effect / self.total if self.total else 0.0

    def summary(self) -> dict[str, Any]:
        """The ``battery`` object of ``earnest trajectory score --format json``."""
        return self.tally.summary()


def _bound(value: float) -> float | None:
    """An interval bound of a score, kept inside [0, 1]; NaN becomes null."""
    return None if math.isnan(value) else _num(min(1.0, max(0.0, value)))


def _num(value: float | None) -> float | None:
    """Rounded for JSON; NaN (an interval of fewer than two values) becomes null."""
    if value is None or math.isnan(value):
        return None
    return round(value, 4)


__all__ = [
    "OUTCOMES",
    "SCALE",
    "Battery",
    "BatteryTally",
    "Outcome",
    "TrajectoryResult",
    "score_trajectory",
]
