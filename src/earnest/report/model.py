"""What a report shows: one data model for a suite check, a run, a comparison and a battery.

Builders (``report/from_*.py``) read the judgements that exist — ``earnest.pressure.verdict``
results, the live run summary, the comparison, the trajectory battery — into these frozen
records; renderers (``report/html.py``, ``--format json``) only read them. Nothing here
judges: a verdict, a pass rate or an interval is copied from where it was computed.

Sections are optional, so one report can hold any mix: a suite (lint and coverage), pressure
samples (recorded replies or a live run) with their cells and ablation deltas, a comparison
against a baseline, and a trajectory battery.

Example:
    >>> s = Sample("r1", "F-1", "8", "fixer", "gpt", "rule", 0, "pass", "chose B", "r.jsonl:1", "CHOICE: B")
    >>> s.to_json()["verdict"], Report(title="t").to_json()["sections"]
    ('pass', [])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from earnest.pressure.coverage import CoverageReport
from earnest.pressure.models import Diagnostic

if TYPE_CHECKING:
    # compare's own record: a drop is shown as compare decided it (and without importing
    # the live package for a report that holds no comparison)
    from earnest.live.compare import Drop

REPORT_FORMAT = 1
"""Version of the ``earnest.report`` JSON shape (``docs/formats.md``)."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """The prompt a sample answered: system and user text, and how sure we are of it."""

    system: str
    user: str
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"system": self.system, "user": self.user, "note": self.note}


@dataclass(frozen=True, slots=True)
class Sample:
    """One reply to one fixture: what it said, what it answered, and its judgement.

    ``verdict`` is ``None`` for a void sample (no reply through no fault of the agent);
    ``gating`` is False for the ablated arm, whose failures are the expected RED baseline.
    """

    key: str
    fixture_id: str
    rule: str
    agent: str
    profile: str
    arm: str
    epoch: int | None
    verdict: str | None
    reason: str
    source: str
    reply: str
    raw_reply: str | None = None
    envelope: str | None = None
    prompt: str | None = None
    matched: tuple[str, ...] = ()
    unmatched_failure: bool = False
    criteria: tuple[tuple[str, bool | None, str], ...] = ()
    gating: bool = True
    model: str = ""
    error: str | None = None
    action: Mapping[str, Any] | None = None
    """Said versus did for an acted-out sample (``ActionCheck.as_dict()``), else ``None``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "fixture_id": self.fixture_id,
            "rule": self.rule,
            "agent": self.agent,
            "profile": self.profile,
            "arm": self.arm,
            "epoch": self.epoch,
            "verdict": self.verdict,
            "reason": self.reason,
            "source": self.source,
            "reply": self.reply,
            "raw_reply": self.raw_reply,
            "envelope": self.envelope,
            "prompt": self.prompt,
            "matched": list(self.matched),
            "unmatched_failure": self.unmatched_failure,
            "criteria": [{"name": n, "passed": p, "detail": d} for n, p, d in self.criteria],
            "gating": self.gating,
            "model": self.model,
            "error": self.error,
            **({"action": dict(self.action)} if self.action is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class Cell:
    """One fixture × profile × arm: judged samples, passes, Wilson interval, verdict counts."""

    fixture_id: str
    rule: str
    profile: str
    arm: str
    n: int
    passes: int
    void: int
    counts: Mapping[str, int]
    rate: float | None
    interval: tuple[float, float]
    samples: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "fixture_id": self.fixture_id,
            "rule": self.rule,
            "profile": self.profile,
            "arm": self.arm,
            "n": self.n,
            "passes": self.passes,
            "void": self.void,
            "verdicts": dict(self.counts),
            "pass_rate": self.rate,
            "interval": list(self.interval),
            "samples": list(self.samples),
        }


@dataclass(frozen=True, slots=True)
class Rate:
    """A pass rate over a group of samples (a profile and arm), with its interval."""

    label: str
    profile: str
    arm: str
    n: int
    passes: int
    interval: tuple[float, float]

    @property
    def rate(self) -> float | None:
        return self.passes / self.n if self.n else None

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "profile": self.profile,
            "arm": self.arm,
            "n": self.n,
            "passes": self.passes,
            "pass_rate": self.rate,
            "interval": list(self.interval),
        }


@dataclass(frozen=True, slots=True)
class Ablation:
    """A rule's ablation delta for one profile: rule-arm minus ablated-arm pass rate."""

    rule: str
    title: str
    profile: str
    rule_n: int
    rule_passes: int
    ablated_n: int
    ablated_passes: int
    delta: float | None
    interval: tuple[float, float]
    flag: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "title": self.title,
            "profile": self.profile,
            "rule_arm": {"n": self.rule_n, "passes": self.rule_passes},
            "ablated_arm": {"n": self.ablated_n, "passes": self.ablated_passes},
            "delta": self.delta,
            "interval": list(self.interval),
            "flag": self.flag,
        }


@dataclass(frozen=True, slots=True)
class Excuse:
    """A fixture's recorded rationalization and the samples that used it."""

    fixture_id: str
    index: int
    excuse: str
    counter: str
    samples: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "fixture_id": self.fixture_id,
            "index": self.index,
            "excuse": self.excuse,
            "counter": self.counter,
            "samples": list(self.samples),
        }


@dataclass(frozen=True, slots=True)
class FixtureInfo:
    id: str
    title: str
    rule: str
    agent: str
    rule_title: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "rule": self.rule,
            "rule_title": self.rule_title,
            "agent": self.agent,
        }


@dataclass(frozen=True, slots=True)
class SuiteSection:
    """Lint and coverage of a suite."""

    root: str
    diagnostics: tuple[Diagnostic, ...]
    coverage: CoverageReport
    rule_titles: Mapping[str, str] = field(default_factory=dict)

    @property
    def lint_errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "lint": {
                "errors": self.lint_errors,
                "warnings": len(self.diagnostics) - self.lint_errors,
                "diagnostics": [d.to_json() for d in self.diagnostics],
            },
            "coverage": self.coverage.to_json(),
        }


@dataclass(frozen=True, slots=True)
class PressureSection:
    """Judged samples (recorded replies or a live run) and what they add up to.

    ``gate`` is what the source's own gate decided (``earnest check`` for recorded replies,
    the run's exit code for a run), with its reasons; the report only displays it.
    """

    source: str
    samples: tuple[Sample, ...]
    cells: tuple[Cell, ...]
    rates: tuple[Rate, ...]
    ablations: tuple[Ablation, ...]
    excuses: tuple[Excuse, ...]
    fixtures: tuple[FixtureInfo, ...]
    counts: Mapping[str, int]
    total: Rate
    gate_ok: bool
    gate_reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    facts: tuple[tuple[str, str], ...] = ()

    @property
    def profiles(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.profile for c in self.cells))

    @property
    def arms(self) -> tuple[str, ...]:
        seen = {c.arm for c in self.cells}
        return tuple(a for a in ("rule", "ablated") if a in seen) + tuple(
            sorted(seen - {"rule", "ablated"})
        )

    @property
    def unmatched_failures(self) -> tuple[Sample, ...]:
        return tuple(s for s in self.samples if s.unmatched_failure)

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "gate": {"ok": self.gate_ok, "reasons": list(self.gate_reasons)},
            "verdicts": dict(self.counts),
            "total": self.total.to_json(),
            "facts": {k: v for k, v in self.facts},
            "notes": list(self.notes),
            "fixtures": [f.to_json() for f in self.fixtures],
            "cells": [c.to_json() for c in self.cells],
            "rates": [r.to_json() for r in self.rates],
            "ablations": [a.to_json() for a in self.ablations],
            "rationalizations": [e.to_json() for e in self.excuses],
            "unmatched_failures": [s.key for s in self.unmatched_failures],
            "samples": [s.to_json() for s in self.samples],
        }


@dataclass(frozen=True, slots=True)
class Change:
    """One paired sample whose verdict changed (or that is new, or void on a side)."""

    kind: str
    fixture_id: str
    profile: str
    arm: str
    epoch: int
    baseline: str | None
    candidate: str | None
    baseline_key: str | None = None
    candidate_key: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "fixture_id": self.fixture_id,
            "profile": self.profile,
            "arm": self.arm,
            "epoch": self.epoch,
            "baseline": self.baseline,
            "candidate": self.candidate,
            "baseline_sample": self.baseline_key,
            "candidate_sample": self.candidate_key,
        }


@dataclass(frozen=True, slots=True)
class ComparisonSection:
    """A run compared with its baseline (``earnest compare``'s result, as decided there;
    ``drops`` are its :class:`earnest.live.compare.Drop` records)."""

    baseline: str
    candidate: str
    paired: int
    regressions: int
    changes: tuple[Change, ...]
    drops: tuple[Drop, ...]
    only_baseline: int
    only_candidate: int
    notes: tuple[str, ...] = ()
    baseline_samples: tuple[Sample, ...] = ()

    def of(self, kind: str) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.kind == kind)

    def to_json(self) -> dict[str, Any]:
        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "paired": self.paired,
            "regressions": self.regressions,
            "changes": [c.to_json() for c in self.changes],
            "drops": [d.to_json() for d in self.drops],
            "only_baseline": self.only_baseline,
            "only_candidate": self.only_candidate,
            "notes": list(self.notes),
            "baseline_samples": [s.to_json() for s in self.baseline_samples],
        }


@dataclass(frozen=True, slots=True)
class ToolCallView:
    """One tool call of a trajectory as the viewer shows it (bounded text)."""

    name: str
    outcome: str
    target: str
    input: str
    output: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "outcome": self.outcome,
            "target": self.target,
            "input": self.input,
            "output": self.output,
        }


@dataclass(frozen=True, slots=True)
class DimensionView:
    """One dimension score of one trajectory."""

    dimension: str
    score: float
    confidence: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "score": self.score,
            "confidence": self.confidence,
            "detail": self.reason,
        }


@dataclass(frozen=True, slots=True)
class TrajectoryView:
    """One scored trajectory: its outcome, scores and what it did, for the viewer."""

    key: str
    id: str
    source: str
    format: str
    outcome: str
    reason: str
    termination: str
    request: str
    final_message: str
    tool_calls: tuple[ToolCallView, ...] = ()
    messages: tuple[tuple[str, str], ...] = ()
    scores: tuple[DimensionView, ...] = ()
    aggregate: float | None = None
    effect_without_request: str | None = None
    """Why the run changed files when its request only asked a question."""
    unverified_claims: tuple[str, ...] = ()
    """With --strict-claims: each unverified claim of the final message, with why."""

    @property
    def completion_without_effect(self) -> bool:
        return self.outcome == "completion_without_effect"

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "id": self.id,
            "source": self.source,
            "format": self.format,
            "outcome": self.outcome,
            "completion_without_effect": self.completion_without_effect,
            "reason": self.reason,
            "termination": self.termination,
            "request": self.request,
            "final_message": self.final_message,
            "tool_calls": [c.to_json() for c in self.tool_calls],
            "messages": [{"role": r, "text": t} for r, t in self.messages],
            "scores": [d.to_json() for d in self.scores],
            "aggregate": self.aggregate,
            "effect_without_request": self.effect_without_request,
            "unverified_claims": list(self.unverified_claims),
        }


@dataclass(frozen=True, slots=True)
class DimensionStat:
    """A dimension over the battery: mean with its 95% t-interval (bounds may be unknown)."""

    dimension: str
    n: int
    mean: float | None
    interval: tuple[float | None, float | None]
    weighted_mean: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "n": self.n,
            "mean": self.mean,
            "interval": list(self.interval),
            "weighted_mean": self.weighted_mean,
        }


@dataclass(frozen=True, slots=True)
class TrajectorySection:
    """A trajectory battery (``earnest trajectory score``'s summary, as it computed it)."""

    trajectories: tuple[TrajectoryView, ...]
    dimensions: tuple[DimensionStat, ...]
    cwe_count: int
    cwe_rate: float | None
    cwe_interval: tuple[float | None, float | None]
    claimed: int
    outcomes: Mapping[str, int]
    formats: Mapping[str, Mapping[str, int]]
    aggregate: DimensionStat | None = None
    notes: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "sources": list(self.sources),
            "trajectories": len(self.trajectories),
            "completion_without_effect": {
                "count": self.cwe_count,
                "rate": self.cwe_rate,
                "interval": list(self.cwe_interval),
                "claimed_completions": self.claimed,
            },
            "outcomes": dict(self.outcomes),
            "formats": {k: dict(v) for k, v in self.formats.items()},
            "dimensions": [d.to_json() for d in self.dimensions],
            "aggregate": self.aggregate.to_json() if self.aggregate is not None else None,
            "notes": list(self.notes),
            "items": [t.to_json() for t in self.trajectories],
        }


@dataclass(frozen=True, slots=True)
class Report:
    """Everything one report file shows. ``prompts`` maps a prompt key to its text, shared by
    every sample that answered it."""

    title: str
    generated_at: str = ""
    version: str = ""
    sources: tuple[str, ...] = ()
    suite: SuiteSection | None = None
    pressure: PressureSection | None = None
    comparison: ComparisonSection | None = None
    trajectories: TrajectorySection | None = None
    prompts: Mapping[str, Prompt] = field(default_factory=dict)

    @property
    def kinds(self) -> tuple[str, ...]:
        out = []
        if self.suite is not None:
            out.append("suite")
        if self.pressure is not None:
            out.append("pressure")
        if self.comparison is not None:
            out.append("comparison")
        if self.trajectories is not None:
            out.append("trajectories")
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "earnest_report": REPORT_FORMAT,
            "title": self.title,
            "generated_at": self.generated_at,
            "earnest_version": self.version,
            "sources": list(self.sources),
            "sections": list(self.kinds),
        }
        if self.suite is not None:
            doc["suite"] = self.suite.to_json()
        if self.pressure is not None:
            doc["pressure"] = self.pressure.to_json()
        if self.comparison is not None:
            doc["comparison"] = self.comparison.to_json()
        if self.trajectories is not None:
            doc["trajectories"] = self.trajectories.to_json()
        doc["prompts"] = {k: p.to_json() for k, p in self.prompts.items()}
        return doc


__all__ = [
    "REPORT_FORMAT",
    "Ablation",
    "Cell",
    "Change",
    "ComparisonSection",
    "DimensionStat",
    "DimensionView",
    "Excuse",
    "FixtureInfo",
    "PressureSection",
    "Prompt",
    "Rate",
    "Report",
    "Sample",
    "SuiteSection",
    "ToolCallView",
    "TrajectorySection",
    "TrajectoryView",
]
