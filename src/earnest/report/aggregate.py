"""Cells, pass rates and ablation deltas of judged samples (interim: replaced by the live
run summary's functions when they land on main)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from earnest.pressure.models import VERDICTS
from earnest.report.model import Ablation, Cell, Rate, Sample
from earnest.stats import wilson_interval


@dataclass(frozen=True, slots=True)
class Summary:
    cells: tuple[Cell, ...]
    rates: tuple[Rate, ...]
    ablations: tuple[Ablation, ...]
    total: Rate


def _rate(label: str, profile: str, arm: str, samples: Sequence[Sample]) -> Rate:
    judged = [s for s in samples if s.verdict is not None]
    passes = sum(1 for s in judged if s.verdict == "pass")
    return Rate(label, profile, arm, len(judged), passes, wilson_interval(passes, len(judged)))


def summarize_samples(samples: Sequence[Sample], titles: Mapping[str, str]) -> Summary:
    groups: dict[tuple[str, str, str], list[Sample]] = {}
    for s in samples:
        groups.setdefault((s.fixture_id, s.profile, s.arm), []).append(s)
    cells = []
    for (f, p, a), ss in groups.items():
        r = _rate("", p, a, ss)
        counts = Counter(s.verdict for s in ss if s.verdict is not None)
        cells.append(
            Cell(
                f,
                ss[0].rule,
                p,
                a,
                r.n,
                r.passes,
                len(ss) - r.n,
                {v: counts.get(v, 0) for v in VERDICTS},
                r.rate,
                r.interval,
                tuple(s.key for s in ss),
            )
        )
    pa: dict[tuple[str, str], list[Sample]] = {}
    for s in samples:
        pa.setdefault((s.profile, s.arm), []).append(s)
    rates = tuple(_rate(f"{p} / {a}", p, a, ss) for (p, a), ss in pa.items())
    ab = []
    by_rule: dict[tuple[str, str], dict[str, list[Sample]]] = {}
    for s in samples:
        by_rule.setdefault((s.rule, s.profile), {}).setdefault(s.arm, []).append(s)
    for (rule, prof), arms in by_rule.items():
        if "rule" in arms and "ablated" in arms:
            r, b = (
                _rate("", prof, "rule", arms["rule"]),
                _rate("", prof, "ablated", arms["ablated"]),
            )
            d = (r.passes / r.n - b.passes / b.n) if r.n and b.n else None
            ab.append(
                Ablation(
                    rule,
                    titles.get(rule, ""),
                    prof,
                    r.n,
                    r.passes,
                    b.n,
                    b.passes,
                    d,
                    (math.nan, math.nan),
                )
            )
    return Summary(tuple(cells), rates, tuple(ab), _rate("all", "", "", samples))
