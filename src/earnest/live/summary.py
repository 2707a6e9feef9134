"""What a run reports: per cell (fixture × profile × arm) and per rule (the ablation delta).

- A cell's pass rate counts judged samples only (void samples are listed apart, never passes),
  with a Wilson 95% interval and pass^k for k = 1..n (all of k samples pass).
- A rule's ablation delta is its rule-arm pass rate minus its ablated-arm pass rate (over the
  rule's fixtures, per profile), with Newcombe's hybrid score interval. A rule whose ablated arm
  already picks the compliant option every time is flagged ``no-failure``: the RED baseline never
  failed, so the run does not show that the rule does anything. ``choice_delta`` is the same
  difference for picking the compliant option at all (pass or fail-citation), since the ablated
  agent cannot cite a rule it was never shown.
- Rationalizations (matched by the verdict function in failed replies): ``matched`` counts the
  fixture's recorded excuses that replies used; ``never_matched`` lists recorded excuses no reply
  used; ``unmatched_failures`` counts failed replies that used none of them — read those, they
  hold a new excuse to record with its counter.

Example:
    >>> cell_of([]).rate is None
    True
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from earnest.live.store import RunInfo, SampleRecord
from earnest.pressure.models import VERDICTS
from earnest.stats import newcombe_interval, pass_hat_k, wilson_interval

COMPLIANT_CHOICE = frozenset({"pass", "fail-citation"})
"""Verdicts whose reply picked the compliant option."""

NO_FAILURE = "no-failure"


@dataclass(frozen=True, slots=True)
class Cell:
    fixture_id: str
    rule_id: str
    profile: str
    arm: str
    n: int
    void: int
    passes: int
    compliant: int
    counts: Mapping[str, int]
    rate: float | None
    interval: tuple[float, float]
    pass_hat_k: Mapping[int, float]
    matched: Mapping[str, int]
    unmatched: tuple[str, ...]
    unmatched_failures: int
    errors: Mapping[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "fixture_id": self.fixture_id,
            "rule": self.rule_id,
            "profile": self.profile,
            "arm": self.arm,
            "n": self.n,
            "void": self.void,
            "passes": self.passes,
            "compliant_choice": self.compliant,
            "verdicts": dict(self.counts),
            "pass_rate": self.rate,
            "interval": list(self.interval),
            "pass_hat_k": {str(k): v for k, v in self.pass_hat_k.items()},
            "rationalizations": {
                "matched": dict(self.matched),
                "never_matched": list(self.unmatched),
                "unmatched_failures": self.unmatched_failures,
            },
            "void_errors": dict(self.errors),
        }


def cell_of(records: Sequence[SampleRecord], known_excuses: Sequence[str] = ()) -> Cell:
    judged = [r for r in records if not r.void and r.verdict is not None]
    counts = Counter(r.verdict for r in judged)
    n = len(judged)
    passes = counts.get("pass", 0)
    matched: Counter[str] = Counter()
    for r in judged:
        matched.update(set(r.rationalizations))
    first = records[0] if records else None
    return Cell(
        fixture_id=first.fixture_id if first else "",
        rule_id=first.rule_id if first else "",
        profile=first.profile if first else "",
        arm=first.arm if first else "",
        n=n,
        void=sum(1 for r in records if r.void),
        passes=passes,
        compliant=sum(counts.get(v, 0) for v in COMPLIANT_CHOICE),
        counts={v: counts.get(v, 0) for v in VERDICTS},
        rate=passes / n if n else None,
        interval=wilson_interval(passes, n),
        pass_hat_k={k: pass_hat_k(passes, n, k) for k in range(1, n + 1)},
        matched=dict(sorted(matched.items())),
        # "never matched" only means something where replies failed (passes are not matched)
        unmatched=tuple(e for e in known_excuses if e not in matched)
        if any(r.verdict != "pass" for r in judged)
        else (),
        unmatched_failures=sum(1 for r in judged if r.unmatched_failure),
        errors=dict(Counter(r.error_kind or "error" for r in records if r.void)),
    )


@dataclass(frozen=True, slots=True)
class RuleAblation:
    rule_id: str
    profile: str
    rule_n: int
    rule_passes: int
    ablated_n: int
    ablated_passes: int
    ablated_compliant: int
    rule_compliant: int
    delta: float | None
    interval: tuple[float, float]
    choice_delta: float | None
    choice_interval: tuple[float, float]
    flag: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule_id,
            "profile": self.profile,
            "rule_arm": {"n": self.rule_n, "passes": self.rule_passes},
            "ablated_arm": {
                "n": self.ablated_n,
                "passes": self.ablated_passes,
                "compliant_choice": self.ablated_compliant,
            },
            "delta": self.delta,
            "interval": list(self.interval),
            "choice_delta": self.choice_delta,
            "choice_interval": list(self.choice_interval),
            "flag": self.flag,
        }


def rule_ablations(cells: Iterable[Cell]) -> list[RuleAblation]:
    by: dict[tuple[str, str], dict[str, list[Cell]]] = defaultdict(lambda: defaultdict(list))
    for c in cells:
        by[(c.rule_id, c.profile)][c.arm].append(c)
    out: list[RuleAblation] = []
    for (rule_id, profile), arms in sorted(by.items(), key=lambda kv: _rule_sort(kv[0])):
        if "rule" not in arms or "ablated" not in arms:
            continue
        rn = sum(c.n for c in arms["rule"])
        rp = sum(c.passes for c in arms["rule"])
        rc = sum(c.compliant for c in arms["rule"])
        an = sum(c.n for c in arms["ablated"])
        ap = sum(c.passes for c in arms["ablated"])
        ac = sum(c.compliant for c in arms["ablated"])
        both = rn > 0 and an > 0
        out.append(
            RuleAblation(
                rule_id=rule_id,
                profile=profile,
                rule_n=rn,
                rule_passes=rp,
                ablated_n=an,
                ablated_passes=ap,
                ablated_compliant=ac,
                rule_compliant=rc,
                delta=(rp / rn - ap / an) if both else None,
                interval=newcombe_interval(rp, rn, ap, an),
                choice_delta=(rc / rn - ac / an) if both else None,
                choice_interval=newcombe_interval(rc, rn, ac, an),
                flag=NO_FAILURE if an > 0 and ac == an else None,
            )
        )
    return out


def _rule_sort(key: tuple[str, str]) -> tuple[int, str, str]:
    rule, profile = key
    return (int(rule) if rule.isdigit() else 1 << 30, rule, profile)


@dataclass(frozen=True, slots=True)
class RunSummary:
    run: RunInfo
    cells: tuple[Cell, ...]
    rules: tuple[RuleAblation, ...]
    counts: Mapping[str, int]
    judged: int
    void: int
    cost: float
    unpriced: int
    tokens_in: int
    tokens_out: int
    voids: tuple[SampleRecord, ...] = field(default=())

    @property
    def stored(self) -> int:
        return self.judged + self.void

    @property
    def rule_arm_failures(self) -> int:
        return sum(c.n - c.passes for c in self.cells if c.arm == "rule")

    def exit_code(self) -> int:
        """0: the run is complete and every rule-arm sample passed; 1 otherwise (a rule-arm
        failure, a void sample, or samples never taken)."""
        incomplete = self.stored < self.run.total
        return 1 if self.rule_arm_failures or self.void or incomplete else 0

    def to_json(self) -> dict[str, Any]:
        profiles = self.run.config.get("profiles", [])
        return {
            "run_id": self.run.run_id,
            "status": self.run.status,
            "created_at": self.run.created_at,
            "suite": self.run.suite_root,
            "profiles": [
                {"name": p["name"], "provider": _spec(p), "model": p["model"]} for p in profiles
            ],
            "samples": {
                "total": self.run.total,
                "stored": self.stored,
                "judged": self.judged,
                "void": self.void,
            },
            "verdicts": dict(self.counts),
            "cost_usd": self.cost,
            "unpriced_samples": self.unpriced,
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
            "cells": [c.to_json() for c in self.cells],
            "rules": [r.to_json() for r in self.rules],
            "voids": [
                {
                    "fixture_id": r.fixture_id,
                    "profile": r.profile,
                    "arm": r.arm,
                    "epoch": r.epoch,
                    "error_kind": r.error_kind,
                    "error": r.error,
                    "attempts": r.attempts,
                }
                for r in self.voids
            ],
            "exit_code": self.exit_code(),
        }


def _spec(p: Mapping[str, Any]) -> str:
    from earnest.live.profiles import Profile

    return Profile.from_dict(p).spec


def summarize(run: RunInfo, records: Sequence[SampleRecord]) -> RunSummary:
    fixtures_meta = run.checksums.get("fixtures", {})
    groups: dict[tuple[str, str, str], list[SampleRecord]] = defaultdict(list)
    for r in records:
        groups[(r.fixture_id, r.profile, r.arm)].append(r)
    arm_rank = {"rule": 0, "ablated": 1}
    cells = tuple(
        cell_of(
            sorted(rs, key=lambda r: r.epoch),
            fixtures_meta.get(k[0], {}).get("rationalizations", ()),
        )
        for k, rs in sorted(
            groups.items(), key=lambda kv: (kv[0][0], kv[0][1], arm_rank.get(kv[0][2], 9))
        )
    )
    judged = [r for r in records if not r.void and r.verdict is not None]
    counts = Counter(r.verdict for r in judged)
    return RunSummary(
        run=run,
        cells=cells,
        rules=tuple(rule_ablations(cells)),
        counts={v: counts.get(v, 0) for v in VERDICTS},
        judged=len(judged),
        void=sum(1 for r in records if r.void),
        cost=sum(r.cost or 0.0 for r in records),
        unpriced=sum(1 for r in judged if r.cost is None),
        tokens_in=sum(r.tokens_in or 0 for r in records),
        tokens_out=sum(r.tokens_out or 0 for r in records),
        voids=tuple(r for r in records if r.void),
    )


__all__ = [
    "COMPLIANT_CHOICE",
    "NO_FAILURE",
    "Cell",
    "RuleAblation",
    "RunSummary",
    "cell_of",
    "rule_ablations",
    "summarize",
]
