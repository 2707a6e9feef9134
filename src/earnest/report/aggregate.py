"""Cells, pass rates and ablation deltas for the report, from the live run summary's functions.

A recorded reply is a sample like a live one: :func:`as_sample_record` gives it the shape of a
stored sample, so recorded replies and live runs are aggregated by the same code
(:func:`earnest.live.summary.cell_of` and :func:`~earnest.live.summary.rule_ablations`: Wilson
intervals per cell, Newcombe intervals per ablation delta, void samples apart). This module only
turns their results into the report's records and adds the per profile × arm pass rate.

Example:
    >>> summarize_samples([], {}).total.n
    0
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from earnest.live.store import SampleRecord
from earnest.live.summary import Cell as LiveCell
from earnest.live.summary import RuleAblation, cell_of, rule_ablations
from earnest.report.model import Ablation, Cell, Rate, Sample
from earnest.stats import wilson_interval

RECORDED = "recorded"


@dataclass(frozen=True, slots=True)
class Summary:
    cells: tuple[Cell, ...]
    rates: tuple[Rate, ...]
    ablations: tuple[Ablation, ...]
    total: Rate


def as_sample_record(s: Sample) -> SampleRecord:
    """A recorded reply in the run store's sample shape (what the run summary reads)."""
    return SampleRecord(
        run_id=RECORDED,
        fixture_id=s.fixture_id,
        profile=s.profile,
        arm=s.arm,
        epoch=s.epoch or 0,
        rule_id=s.rule,
        agent=s.agent,
        provider=RECORDED,
        model=s.model,
        params={},
        prompt_hash="",
        agent_doc_sha256="",
        fixture_sha256="",
        displayed_order=(),
        verdict=s.verdict,
        reason=s.reason,
        rationalizations=s.matched,
        unmatched_failure=s.unmatched_failure,
        void=s.verdict is None,
        error=s.error,
    )


def cell_view(c: LiveCell, samples: Sequence[str]) -> Cell:
    return Cell(
        fixture_id=c.fixture_id,
        rule=c.rule_id,
        profile=c.profile,
        arm=c.arm,
        n=c.n,
        passes=c.passes,
        void=c.void,
        counts=dict(c.counts),
        rate=c.rate,
        interval=c.interval,
        samples=tuple(samples),
    )


def ablation_view(a: RuleAblation, titles: Mapping[str, str]) -> Ablation:
    return Ablation(
        rule=a.rule_id,
        title=titles.get(a.rule_id, ""),
        profile=a.profile,
        rule_n=a.rule_n,
        rule_passes=a.rule_passes,
        ablated_n=a.ablated_n,
        ablated_passes=a.ablated_passes,
        delta=a.delta,
        interval=a.interval,
        flag=a.flag,
    )


def rates_of(cells: Iterable[LiveCell]) -> tuple[Rate, ...]:
    """Pass rate per profile and arm (judged samples of its cells), with a Wilson interval."""
    sums: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for c in cells:
        sums[(c.profile, c.arm)][0] += c.passes
        sums[(c.profile, c.arm)][1] += c.n
    return tuple(
        Rate(f"{p} / {a}", p, a, n, passes, wilson_interval(passes, n))
        for (p, a), (passes, n) in sums.items()
    )


def total_rate(passes: int, n: int) -> Rate:
    return Rate("all", "", "", n, passes, wilson_interval(passes, n))


def summarize_samples(
    samples: Sequence[Sample],
    titles: Mapping[str, str],
    excuses: Mapping[str, Sequence[str]] | None = None,
) -> Summary:
    """Cells (fixture × profile × arm, in first-seen order), rates and ablation deltas of
    ``samples``; ``excuses`` (fixture id → its recorded excuses) lets a cell list the excuses
    no reply used."""
    groups: dict[tuple[str, str, str], list[Sample]] = {}
    for s in samples:
        groups.setdefault((s.fixture_id, s.profile, s.arm), []).append(s)
    live: list[LiveCell] = []
    cells: list[Cell] = []
    for (fixture_id, _, _), members in groups.items():
        ordered = sorted(members, key=lambda s: s.epoch or 0)
        c = cell_of([as_sample_record(s) for s in ordered], (excuses or {}).get(fixture_id, ()))
        live.append(c)
        cells.append(cell_view(c, [s.key for s in ordered]))
    passes = sum(c.passes for c in live)
    judged = sum(c.n for c in live)
    return Summary(
        cells=tuple(cells),
        rates=rates_of(live),
        ablations=tuple(ablation_view(a, titles) for a in rule_ablations(live)),
        total=total_rate(passes, judged),
    )


__all__ = [
    "Summary",
    "ablation_view",
    "as_sample_record",
    "cell_view",
    "rates_of",
    "summarize_samples",
    "total_rate",
]
