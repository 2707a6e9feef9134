"""Compare a candidate run against a baseline (a run in the store, or a blessed baseline file).

Samples are paired by (fixture, profile, arm, epoch). A regression is any of:

- a **flip**: the baseline sample passed and its candidate pair has a failing verdict;
- a **drop**: a cell's (fixture × profile × arm) pass rate fell and Newcombe's 95% interval of
  the difference lies wholly below zero;
- a **new unparseable** reply: ``fail-unparseable`` where the baseline's pair was not.

Void samples pair with nothing (they are listed, never counted as flips). A baseline file is
what ``earnest baseline bless`` writes: meant to be committed, one verdict per sample key plus
the model and agent-doc checksums it was measured with.

Example:
    >>> base = Side("b", {("F", "p", "rule", 0): Outcome("pass")})
    >>> cand = Side("c", {("F", "p", "rule", 0): Outcome("fail-choice")})
    >>> compare(base, cand).exit_code()
    1
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.live.store import RunInfo, SampleId, SampleRecord, now_iso
from earnest.pressure.models import VERDICTS
from earnest.stats import newcombe_interval

BASELINE_FORMAT = 1


@dataclass(frozen=True, slots=True)
class Outcome:
    """One sample on one side: its verdict (``None``: void) and what produced it."""

    verdict: str | None
    model: str = ""
    agent_doc_sha256: str = ""
    fixture_sha256: str = ""


@dataclass(frozen=True, slots=True)
class Side:
    label: str
    samples: Mapping[SampleId, Outcome]
    models: Mapping[str, str] = field(default_factory=dict)
    agent_docs: Mapping[str, str] = field(default_factory=dict)


def side_from_run(run: RunInfo, records: Sequence[SampleRecord]) -> Side:
    return Side(
        label=run.run_id,
        samples={
            r.key: Outcome(
                None if r.void else r.verdict, r.model, r.agent_doc_sha256, r.fixture_sha256
            )
            for r in records
        },
        models={p["name"]: p["model"] for p in run.config.get("profiles", [])},
        agent_docs=dict(run.checksums.get("agents", {})),
    )


def baseline_document(run: RunInfo, records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The committed baseline: per sample key the verdict, plus model and doc checksums."""
    from earnest.live.profiles import Profile

    return {
        "earnest_baseline": BASELINE_FORMAT,
        "run_id": run.run_id,
        "blessed_at": now_iso(),
        "profiles": {
            p["name"]: {
                "provider": Profile.from_dict(p).spec,
                "model": p["model"],
                "params": p.get("params", {}),
            }
            for p in run.config.get("profiles", [])
        },
        "agent_docs": dict(sorted(run.checksums.get("agents", {}).items())),
        "fixtures": {k: v["sha256"] for k, v in sorted(run.checksums.get("fixtures", {}).items())},
        "samples": [
            {
                "fixture_id": r.fixture_id,
                "profile": r.profile,
                "arm": r.arm,
                "epoch": r.epoch,
                "verdict": None if r.void else r.verdict,
                "model": r.model,
                "agent_doc_sha256": r.agent_doc_sha256,
                "fixture_sha256": r.fixture_sha256,
            }
            for r in sorted(records, key=lambda r: r.key)
        ],
    }


def side_from_baseline_file(path: Path) -> Side:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise InputError(path, None, f"not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("earnest_baseline") != BASELINE_FORMAT:
        raise InputError(
            path, "earnest_baseline", f"not an earnest baseline file (format {BASELINE_FORMAT})"
        )
    raw = data.get("samples")
    if not isinstance(raw, list):
        raise InputError(path, "samples", "must be a list")
    samples: dict[SampleId, Outcome] = {}
    for i, s in enumerate(raw):
        place = f"samples[{i}]"
        if not isinstance(s, dict):
            raise InputError(path, place, "must be an object")
        for k in ("fixture_id", "profile", "arm"):
            if not isinstance(s.get(k), str):
                raise InputError(path, f"{place}.{k}", "must be a string")
        epoch = s.get("epoch")
        if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 0:
            raise InputError(path, f"{place}.epoch", "must be a whole number >= 0")
        verdict = s.get("verdict")
        if verdict is not None and verdict not in VERDICTS:
            raise InputError(path, f"{place}.verdict", f"unknown verdict {verdict!r}")
        key = (s["fixture_id"], s["profile"], s["arm"], epoch)
        if key in samples:
            raise InputError(path, place, "duplicate sample key")
        samples[key] = Outcome(
            verdict,
            str(s.get("model", "")),
            str(s.get("agent_doc_sha256", "")),
            str(s.get("fixture_sha256", "")),
        )
    profiles = data.get("profiles", {})
    models = (
        {k: str(v.get("model", "")) for k, v in profiles.items() if isinstance(v, dict)}
        if isinstance(profiles, dict)
        else {}
    )
    docs = data.get("agent_docs", {})
    return Side(
        label=str(path),
        samples=samples,
        models=models,
        agent_docs=docs if isinstance(docs, dict) else {},
    )


@dataclass(frozen=True, slots=True)
class Change:
    key: SampleId
    before: str | None
    after: str | None

    def to_json(self) -> dict[str, Any]:
        f, p, a, e = self.key
        return {
            "fixture_id": f,
            "profile": p,
            "arm": a,
            "epoch": e,
            "baseline": self.before,
            "candidate": self.after,
        }


@dataclass(frozen=True, slots=True)
class Drop:
    fixture_id: str
    profile: str
    arm: str
    baseline: tuple[int, int]
    candidate: tuple[int, int]
    interval: tuple[float, float]

    @property
    def delta(self) -> float:
        return self.candidate[0] / self.candidate[1] - self.baseline[0] / self.baseline[1]

    def to_json(self) -> dict[str, Any]:
        return {
            "fixture_id": self.fixture_id,
            "profile": self.profile,
            "arm": self.arm,
            "baseline": {"passes": self.baseline[0], "n": self.baseline[1]},
            "candidate": {"passes": self.candidate[0], "n": self.candidate[1]},
            "delta": self.delta,
            "interval": list(self.interval),
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    baseline: str
    candidate: str
    paired: int
    flips: tuple[Change, ...]
    fixes: tuple[Change, ...]
    new_unparseable: tuple[Change, ...]
    drops: tuple[Drop, ...]
    void: tuple[Change, ...]
    only_baseline: tuple[SampleId, ...]
    only_candidate: tuple[SampleId, ...]
    notes: tuple[str, ...]

    @property
    def regressions(self) -> int:
        return len(self.flips) + len(self.drops) + len(self.new_unparseable)

    def exit_code(self) -> int:
        return 1 if self.regressions else 0

    def to_json(self) -> dict[str, Any]:
        def keys(ks: Sequence[SampleId]) -> list[dict[str, Any]]:
            return [{"fixture_id": f, "profile": p, "arm": a, "epoch": e} for f, p, a, e in ks]

        return {
            "baseline": self.baseline,
            "candidate": self.candidate,
            "paired": self.paired,
            "regressions": self.regressions,
            "flips": [c.to_json() for c in self.flips],
            "drops": [d.to_json() for d in self.drops],
            "new_unparseable": [c.to_json() for c in self.new_unparseable],
            "fixes": [c.to_json() for c in self.fixes],
            "void": [c.to_json() for c in self.void],
            "only_baseline": keys(self.only_baseline),
            "only_candidate": keys(self.only_candidate),
            "notes": list(self.notes),
            "exit_code": self.exit_code(),
        }


def _failing(verdict: str | None) -> bool:
    return verdict is not None and verdict != "pass"


def compare(
    baseline: Side, candidate: Side, *, pair_profiles: Mapping[str, str] | None = None
) -> Comparison:
    """Pair ``candidate`` with ``baseline``; ``pair_profiles`` maps a candidate profile name to
    the baseline profile it stands in for (a model swap under a new profile name)."""
    rename = dict(pair_profiles or {})
    cand = {(f, rename.get(p, p), a, e): o for (f, p, a, e), o in candidate.samples.items()}
    base = baseline.samples
    both = sorted(set(base) & set(cand))
    flips, fixes, unparseable, void = [], [], [], []
    for k in both:
        b, c = base[k].verdict, cand[k].verdict
        if b is None or c is None:
            void.append(Change(k, b, c))
            continue
        if b == "pass" and _failing(c):
            flips.append(Change(k, b, c))
        elif _failing(b) and c == "pass":
            fixes.append(Change(k, b, c))
        if c == "fail-unparseable" and b != "fail-unparseable":
            unparseable.append(Change(k, b, c))
    for k in sorted(set(cand) - set(base)):
        if cand[k].verdict == "fail-unparseable":
            unparseable.append(Change(k, None, "fail-unparseable"))
    drops = _drops(base, cand)
    notes = _notes(baseline, candidate, rename)
    if not both:
        notes.append(
            "no samples paired: the two sides share no (fixture, profile, arm, epoch) key"
            + (
                " (profiles differ: pass --pair-profiles BASE=CAND)"
                if _profiles(base) != _profiles(cand)
                else ""
            )
        )
    return Comparison(
        baseline=baseline.label,
        candidate=candidate.label,
        paired=len(both),
        flips=tuple(flips),
        fixes=tuple(fixes),
        new_unparseable=tuple(unparseable),
        drops=tuple(drops),
        void=tuple(void),
        only_baseline=tuple(sorted(set(base) - set(cand))),
        only_candidate=tuple(sorted(set(cand) - set(base))),
        notes=tuple(notes),
    )


def _profiles(samples: Mapping[SampleId, Outcome]) -> set[str]:
    return {k[1] for k in samples}


def _drops(base: Mapping[SampleId, Outcome], cand: Mapping[SampleId, Outcome]) -> list[Drop]:
    def cells(side: Mapping[SampleId, Outcome]) -> dict[tuple[str, str, str], list[int]]:
        out: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
        for (f, p, a, _), o in side.items():
            if o.verdict is None:
                continue
            out[(f, p, a)][1] += 1
            out[(f, p, a)][0] += o.verdict == "pass"
        return out

    bc, cc = cells(base), cells(cand)
    drops = []
    for cell in sorted(set(bc) & set(cc)):
        (bp, bn), (cp, cn) = bc[cell], cc[cell]
        if not bn or not cn or cp / cn >= bp / bn:
            continue
        lo, hi = newcombe_interval(cp, cn, bp, bn)
        if hi < 0:
            drops.append(Drop(*cell, (bp, bn), (cp, cn), (lo, hi)))
    return drops


def _notes(baseline: Side, candidate: Side, rename: Mapping[str, str]) -> list[str]:
    notes = []
    for cprof, cmodel in sorted(candidate.models.items()):
        bprof = rename.get(cprof, cprof)
        bmodel = baseline.models.get(bprof)
        if bmodel is not None and bmodel != cmodel:
            notes.append(f"profile {bprof}: model {bmodel} → {cmodel}")
    for name, sha in sorted(candidate.agent_docs.items()):
        before = baseline.agent_docs.get(name)
        if before is not None and before != sha:
            notes.append(f"agent doc {name} changed ({before[:12]} → {sha[:12]})")
    return notes


__all__ = [
    "BASELINE_FORMAT",
    "Change",
    "Comparison",
    "Drop",
    "Outcome",
    "Side",
    "baseline_document",
    "compare",
    "side_from_baseline_file",
    "side_from_run",
]
