"""Compare a candidate run against a baseline (a run in the store, or a blessed baseline file).

Samples are paired by (fixture, profile, arm, epoch). A regression is any of:

- a **flip**: the baseline sample passed and its candidate pair has a failing verdict;
- a **drop**: a cell's (fixture × profile × arm) pass rate fell and Newcombe's 95% interval of
  the difference lies wholly below zero;
- a **new unparseable** reply: ``fail-unparseable`` where the baseline's pair was not.

Void samples pair with nothing (they are listed, never counted as flips). A baseline file is
what ``earnest baseline bless`` writes: meant to be committed, one verdict per sample key (with
its reason and choice) plus the model and agent-doc checksums it was measured with. Files
blessed before reasons were kept still load: their samples have an empty reason.

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
    """One sample on one side: its verdict (``None``: void) and what produced it.

    ``reason`` is the verdict's reason (for a void sample: the error that voided it);
    ``chosen`` the fixture's choice ids the reply named and ``displayed`` the letters it gave
    (they differ when the options were shuffled); ``reply`` the unwrapped reply, known only for
    a run in the store (a baseline file does not keep replies).
    """

    verdict: str | None
    model: str = ""
    agent_doc_sha256: str = ""
    fixture_sha256: str = ""
    reason: str = ""
    chosen: tuple[str, ...] = ()
    displayed: tuple[str, ...] = ()
    reply: str = ""

    @property
    def choice_text(self) -> str:
        """The letter the reply gave, with the fixture's choice id when the shuffle moved it:
        ``B (fixture choice C)``."""
        if not self.displayed and not self.chosen:
            return ""
        shown = ", ".join(self.displayed) or "?"
        ids = ", ".join(self.chosen)
        return shown if not ids or ids == shown else f"{shown} (fixture choice {ids})"


def _outcome_of(r: SampleRecord) -> Outcome:
    if r.void:
        return Outcome(
            None, r.model, r.agent_doc_sha256, r.fixture_sha256, reason=r.error or "void"
        )
    displayed = (r.judgement or {}).get("displayed_choices") or ()
    return Outcome(
        r.verdict,
        r.model,
        r.agent_doc_sha256,
        r.fixture_sha256,
        reason=r.reason or "",
        chosen=tuple(r.chosen),
        displayed=tuple(str(x) for x in displayed),
        reply=r.reply or "",
    )


@dataclass(frozen=True, slots=True)
class Side:
    label: str
    samples: Mapping[SampleId, Outcome]
    models: Mapping[str, str] = field(default_factory=dict)
    agent_docs: Mapping[str, str] = field(default_factory=dict)


def side_from_run(run: RunInfo, records: Sequence[SampleRecord]) -> Side:
    return Side(
        label=run.run_id,
        samples={r.key: _outcome_of(r) for r in records},
        models={p["name"]: p["model"] for p in run.config.get("profiles", [])},
        agent_docs=dict(run.checksums.get("agents", {})),
    )


def baseline_document(run: RunInfo, records: Sequence[SampleRecord]) -> dict[str, Any]:
    """The committed baseline: per sample key the verdict, its reason and choice, plus model
    and doc checksums (a void sample's reason is the error that voided it)."""
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
                "verdict": o.verdict,
                "reason": o.reason,
                "choice": list(o.chosen),
                "displayed_choice": list(o.displayed),
                "model": r.model,
                "agent_doc_sha256": r.agent_doc_sha256,
                "fixture_sha256": r.fixture_sha256,
            }
            for r, o in ((r, _outcome_of(r)) for r in sorted(records, key=lambda r: r.key))
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
        # reason and choices came later: a file blessed without them still loads
        reason = s.get("reason", "")
        if reason is not None and not isinstance(reason, str):
            raise InputError(path, f"{place}.reason", "must be a string")
        samples[key] = Outcome(
            verdict,
            str(s.get("model", "")),
            str(s.get("agent_doc_sha256", "")),
            str(s.get("fixture_sha256", "")),
            reason=reason or "",
            chosen=_strings(path, f"{place}.choice", s.get("choice")),
            displayed=_strings(path, f"{place}.displayed_choice", s.get("displayed_choice")),
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


def _strings(path: Path, place: str, value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(path, place, "must be a list of strings")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class Change:
    """A paired sample whose verdict changed; ``candidate_outcome`` holds the candidate's
    reason, choice and reply (``baseline_outcome`` is ``None`` when the baseline had no pair)."""

    key: SampleId
    before: str | None
    after: str | None
    baseline_outcome: Outcome | None = None
    candidate_outcome: Outcome | None = None

    def to_json(self) -> dict[str, Any]:
        f, p, a, e = self.key
        b, c = self.baseline_outcome, self.candidate_outcome
        return {
            "fixture_id": f,
            "profile": p,
            "arm": a,
            "epoch": e,
            "baseline": self.before,
            "candidate": self.after,
            "baseline_reason": b.reason if b is not None else None,
            "reason": c.reason if c is not None else None,
            "choice": c.choice_text if c is not None else None,
        }


@dataclass(frozen=True, slots=True)
class Pair:
    """One sample key and its outcome on each side (``None``: absent on that side), with what
    :func:`compare` decided about it: every sample of either side is one ``Pair``."""

    key: SampleId
    baseline: Outcome | None
    candidate: Outcome | None
    flip: bool = False
    fix: bool = False
    new_unparseable: bool = False

    @property
    def paired(self) -> bool:
        return self.baseline is not None and self.candidate is not None

    @property
    def void(self) -> bool:
        b, c = self.baseline, self.candidate
        return b is not None and c is not None and (b.verdict is None or c.verdict is None)

    @property
    def regression(self) -> bool:
        return self.flip or self.new_unparseable

    def change(self) -> Change:
        return Change(
            self.key,
            self.baseline.verdict if self.baseline is not None else None,
            self.candidate.verdict if self.candidate is not None else None,
            self.baseline,
            self.candidate,
        )


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
    samples: tuple[Pair, ...] = ()

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
    pairs = sorted(
        (_judge_pair(k, base.get(k), cand.get(k)) for k in set(base) | set(cand)),
        key=lambda x: x.key,
    )
    flips = [x.change() for x in pairs if x.flip]
    fixes = [x.change() for x in pairs if x.fix]
    void = [x.change() for x in pairs if x.void]
    # paired ones first, then those the baseline lacked (the order the report has always had)
    unparseable = [x.change() for x in pairs if x.new_unparseable and x.paired] + [
        x.change() for x in pairs if x.new_unparseable and not x.paired
    ]
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
        samples=tuple(pairs),
    )


def _judge_pair(key: SampleId, base: Outcome | None, cand: Outcome | None) -> Pair:
    if cand is None:
        return Pair(key, base, None)
    if base is None:
        return Pair(key, None, cand, new_unparseable=cand.verdict == "fail-unparseable")
    b, c = base.verdict, cand.verdict
    if b is None or c is None:
        return Pair(key, base, cand)
    return Pair(
        key,
        base,
        cand,
        flip=b == "pass" and _failing(c),
        fix=_failing(b) and c == "pass",
        new_unparseable=c == "fail-unparseable" and b != "fail-unparseable",
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
    "Pair",
    "Side",
    "baseline_document",
    "compare",
    "side_from_baseline_file",
    "side_from_run",
]
