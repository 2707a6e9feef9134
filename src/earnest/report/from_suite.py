"""Build a report from a suite: lint, coverage, and its recorded replies (or given ones).

Verdicts come from ``earnest.pressure.score.score_replies`` (which calls the one verdict
function); what gates is ``earnest check``'s own decision (:class:`CheckResult`), so the report
shows exactly what CI decided. Cells, pass rates and ablation deltas come from
:mod:`earnest.report.aggregate`.

Example:
    >>> report = suite_report(load_suite("examples/suite"))  # doctest: +SKIP
    >>> report.pressure.total.n  # doctest: +SKIP
    27
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from earnest.pressure.check import CheckResult, run_check
from earnest.pressure.coverage import coverage_report
from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.lint import lint_suite
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.score import ScoredReply, score_replies
from earnest.report.aggregate import summarize_samples
from earnest.report.model import (
    Excuse,
    FixtureInfo,
    PressureSection,
    Report,
    Sample,
    SuiteSection,
)
from earnest.report.prompts import PromptBook

NO_MODEL = "(no model)"
"""The profile of a recorded reply that names no model."""


def suite_section(suite: Suite, result: CheckResult) -> SuiteSection:
    return SuiteSection(
        root=str(suite.config.root),
        diagnostics=result.diagnostics,
        coverage=result.coverage,
        rule_titles={r.id: r.title for r in suite.rules.values()},
    )


def lint_and_coverage(suite: Suite) -> SuiteSection:
    """The suite part alone: lint and coverage, no replies."""
    return SuiteSection(
        root=str(suite.config.root),
        diagnostics=tuple(lint_suite(suite)),
        coverage=coverage_report(suite),
        rule_titles={r.id: r.title for r in suite.rules.values()},
    )


def check_for(suite: Suite, replies: Sequence[str | Path] | None) -> CheckResult:
    """``earnest check``'s result for ``suite``, scoring ``replies`` instead of the suite's
    configured reply files when given."""
    if replies is None:
        return run_check(suite)
    files = tuple(Path(p) for p in replies)
    return CheckResult(
        diagnostics=tuple(lint_suite(suite)),
        coverage=coverage_report(suite),
        reply_files=files,
        score=score_replies(suite, files),
    )


def recorded_sample(key: str, scored: ScoredReply, fixture: Fixture, prompt: str | None) -> Sample:
    rec, j = scored.record, scored.judgement
    text = unwrap_envelope(rec.response).text
    arm = rec.arm or "rule"
    return Sample(
        key=key,
        fixture_id=rec.fixture_id,
        rule=fixture.rule,
        agent=fixture.agent,
        profile=rec.model or NO_MODEL,
        arm=arm,
        epoch=rec.epoch,
        verdict=j.verdict,
        reason=j.reason,
        source=f"{rec.file}:{rec.line}",
        reply=text,
        raw_reply=rec.response if j.envelope else None,
        envelope=j.envelope,
        prompt=prompt,
        matched=tuple(m.excuse for m in j.matched_rationalizations),
        unmatched_failure=j.unmatched_failure,
        criteria=tuple((c.name, c.passed, c.detail) for c in j.criteria),
        gating=arm != "ablated",
        model=rec.model or "",
        action=j.action.as_dict() if j.action is not None else None,
    )


def excuses_of(fixtures: Sequence[Fixture], samples: Sequence[Sample]) -> tuple[Excuse, ...]:
    """Every recorded excuse of the fixtures that have samples, with the samples that used it
    (matched by the verdict function; see ``Sample.matched``)."""
    by_fixture: dict[str, list[Sample]] = {}
    for s in samples:
        by_fixture.setdefault(s.fixture_id, []).append(s)
    out: list[Excuse] = []
    for fx in fixtures:
        if fx.id not in by_fixture:
            continue
        for i, r in enumerate(fx.rationalizations):
            users = tuple(s.key for s in by_fixture[fx.id] if r.excuse in s.matched)
            out.append(Excuse(fx.id, i + 1, r.excuse, r.counter, users))
    return tuple(out)


def fixture_infos(suite: Suite) -> tuple[FixtureInfo, ...]:
    return tuple(
        FixtureInfo(
            f.id, f.title, f.rule, f.agent, r.title if (r := suite.rules.get(f.rule)) else ""
        )
        for f in suite.fixtures
    )


def pressure_section(
    suite: Suite, result: CheckResult, prompts: PromptBook
) -> PressureSection | None:
    if result.score is None:
        return None
    fixtures = {f.id: f for f in suite.fixtures}
    samples = tuple(
        recorded_sample(
            f"r{i}",
            s,
            fixtures[s.record.fixture_id],
            prompts.key(fixtures[s.record.fixture_id], s.record.arm or "rule", s.record.order),
        )
        for i, s in enumerate(result.score.replies, start=1)
    )
    summary = summarize_samples(
        samples,
        {r.id: r.title for r in suite.rules.values()},
        {f.id: [r.excuse for r in f.rationalizations] for f in suite.fixtures},
    )
    gating = len(result.gating_failures)
    ablated = sum(1 for s in samples if not s.gating)
    reasons = (
        (f"{gating} recorded reply(ies) outside the ablated arm did not pass",) if gating else ()
    )
    notes = []
    if ablated:
        notes.append(
            f"{ablated} ablated-arm reply(ies) are the RED baseline (the rule removed): "
            "expected to fail, they never gate."
        )
    return PressureSection(
        source="recorded replies: " + ", ".join(suite.rel(p) for p in result.reply_files),
        samples=samples,
        cells=summary.cells,
        rates=summary.rates,
        ablations=summary.ablations,
        excuses=excuses_of(suite.fixtures, samples),
        fixtures=fixture_infos(suite),
        counts=dict(result.score.counts),
        total=summary.total,
        gate_ok=result.replies_ok and result.score.total > 0,
        gate_reasons=reasons if result.score.total else ("no replies to score",),
        notes=tuple(notes),
    )


def suite_report(
    suite: Suite,
    *,
    replies: Sequence[str | Path] | None = None,
    title: str | None = None,
    generated_at: str = "",
    version: str = "",
) -> Report:
    """The report of ``earnest check`` on ``suite`` (``replies`` instead of the configured ones)."""
    result = check_for(suite, replies)
    prompts = PromptBook(suite)
    pressure = pressure_section(suite, result, prompts)
    sources = [str(suite.config.root)]
    sources += [suite.rel(p) for p in result.reply_files]
    return Report(
        title=title or f"earnest: {suite.config.root.name or suite.config.root}",
        generated_at=generated_at,
        version=version,
        sources=tuple(sources),
        suite=suite_section(suite, result),
        pressure=pressure,
        prompts=dict(prompts.prompts),
    )


__all__ = [
    "NO_MODEL",
    "check_for",
    "excuses_of",
    "fixture_infos",
    "lint_and_coverage",
    "pressure_section",
    "recorded_sample",
    "suite_report",
    "suite_section",
]
