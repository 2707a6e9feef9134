"""Build a report from a live run in the run store, optionally compared with a baseline.

Everything judged comes from where it was decided: each sample's verdict, reason, criteria and
excuses from the store (written by the runner through the one verdict function), cells and
ablation deltas from :func:`earnest.live.summary.summarize`, the gate from
:meth:`~earnest.live.summary.RunSummary.exit_code`, regressions from
:func:`earnest.live.compare.compare`. The suite (the one the run measured, or ``--suite``) is
read only to show each sample's prompt and the fixtures' titles and counters.

Example:
    >>> report = run_report(Path(".earnest/runs.db"), "20260101-abcd")  # doctest: +SKIP
    >>> report.pressure.gate_ok  # doctest: +SKIP
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from earnest.errors import InputError
from earnest.live.compare import (
    Comparison,
    Side,
    compare,
    side_from_baseline_file,
    side_from_run,
)
from earnest.live.store import RunInfo, RunStore, SampleId, SampleRecord
from earnest.live.summary import RunSummary, summarize
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.suite import load_suite
from earnest.report.aggregate import ablation_view, cell_view, rates_of, total_rate
from earnest.report.from_suite import excuses_of, fixture_infos, lint_and_coverage
from earnest.report.model import (
    Change,
    ComparisonSection,
    Excuse,
    FixtureInfo,
    PressureSection,
    Report,
    Sample,
)
from earnest.report.prompts import PromptBook


def load_run(store: Path, run_id: str) -> tuple[RunInfo, list[SampleRecord]]:
    with RunStore(store, create=False) as st:
        return st.get_run(run_id), st.samples(run_id)


def suite_of_run(run: RunInfo, suite_dir: Path | None) -> tuple[Suite | None, str]:
    """The suite to show prompts from: ``suite_dir``, else the one the run measured; a note
    when there is none."""
    where = suite_dir or Path(run.suite_root)
    try:
        return load_suite(where), ""
    except InputError as exc:
        if suite_dir is not None:
            raise
        return None, f"The run's suite ({exc.render()}) cannot be read: prompts are not shown."


def run_sample(
    key: str, r: SampleRecord, fixtures: Mapping[str, Fixture], prompts: PromptBook | None
) -> Sample:
    j = r.judgement or {}
    fixture = fixtures.get(r.fixture_id)
    prompt = (
        prompts.key(fixture, r.arm, r.displayed_order, r.prompt_hash)
        if prompts is not None and fixture is not None
        else None
    )
    criteria = tuple(
        (str(c.get("name", "")), c.get("passed"), str(c.get("detail", "")))
        for c in j.get("criteria", ())
        if isinstance(c, dict)
    )
    error = None
    if r.void:
        error = f"void ({r.error_kind or 'error'}): {r.error or 'no reply'}"
    return Sample(
        key=key,
        fixture_id=r.fixture_id,
        rule=r.rule_id,
        agent=r.agent,
        profile=r.profile,
        arm=r.arm,
        epoch=r.epoch,
        verdict=None if r.void else r.verdict,
        reason=r.reason or "",
        source=f"run {r.run_id} · {r.provider} · {r.attempts} attempt(s)"
        + (f" · {r.latency:.1f}s" if r.latency is not None else ""),
        reply=r.reply or "",
        raw_reply=r.raw_reply if r.raw_reply and r.raw_reply != r.reply else None,
        envelope=j.get("envelope"),
        prompt=prompt,
        matched=r.rationalizations,
        unmatched_failure=r.unmatched_failure,
        criteria=criteria,
        gating=r.arm != "ablated",
        model=r.reply_model or r.model,
        error=error,
        action=j["action"] if isinstance(j.get("action"), dict) else None,
    )


def _gate_reasons(s: RunSummary) -> tuple[str, ...]:
    out = []
    if s.rule_arm_failures:
        out.append(f"{s.rule_arm_failures} rule-arm sample(s) did not pass")
    if s.void:
        out.append(f"{s.void} void sample(s)")
    if s.stored < s.run.total:
        out.append(f"{s.run.total - s.stored} sample(s) never taken")
    return tuple(out)


def _facts(s: RunSummary) -> tuple[tuple[str, str], ...]:
    profiles = s.run.config.get("profiles", [])
    cost = f"${s.cost:.4f}" + (f" ({s.unpriced} unpriced)" if s.unpriced else "")
    return (
        ("run", f"{s.run.run_id} ({s.run.status})"),
        ("samples", f"{s.stored} of {s.run.total} stored, {s.void} void"),
        ("cost", cost),
        ("profiles", ", ".join(f"{p.get('name')}: {p.get('model')}" for p in profiles) or "–"),
    )


def run_pressure_section(
    summary: RunSummary,
    records: Sequence[SampleRecord],
    suite: Suite | None,
    prompts: PromptBook | None,
    notes: Sequence[str] = (),
) -> tuple[PressureSection, dict[SampleId, str]]:
    """The run as a pressure section, and each sample's key by its (fixture, profile, arm,
    epoch)."""
    fixtures = {f.id: f for f in suite.fixtures} if suite is not None else {}
    order = sorted(records, key=lambda r: (r.fixture_id, r.profile, r.arm != "rule", r.epoch))
    samples = tuple(run_sample(f"s{i}", r, fixtures, prompts) for i, r in enumerate(order, 1))
    keys = {r.key: s.key for r, s in zip(order, samples, strict=True)}
    members: dict[tuple[str, str, str], list[str]] = {}
    for r, s in zip(order, samples, strict=True):
        members.setdefault((r.fixture_id, r.profile, r.arm), []).append(s.key)
    titles = {rid: rule.title for rid, rule in suite.rules.items()} if suite is not None else {}
    if suite is not None:
        infos = fixture_infos(suite)
        excuses = excuses_of(suite.fixtures, samples)
    else:
        infos, excuses = _from_checksums(summary.run, samples)
    known = {f.id for f in infos}
    infos += tuple(
        FixtureInfo(c.fixture_id, "", c.rule_id, "")
        for c in summary.cells
        if c.fixture_id not in known
    )
    passes = summary.counts.get("pass", 0)
    section = PressureSection(
        source=f"live run {summary.run.run_id} (suite {summary.run.suite_root})",
        samples=samples,
        cells=tuple(
            cell_view(c, members.get((c.fixture_id, c.profile, c.arm), ())) for c in summary.cells
        ),
        rates=rates_of(summary.cells),
        ablations=tuple(ablation_view(a, titles) for a in summary.rules),
        excuses=excuses,
        fixtures=tuple(dict((f.id, f) for f in infos).values()),
        counts=dict(summary.counts),
        total=total_rate(passes, summary.judged),
        gate_ok=summary.exit_code() == 0,
        gate_reasons=_gate_reasons(summary),
        notes=tuple(notes),
        facts=_facts(summary),
    )
    return section, keys


def _from_checksums(
    run: RunInfo, samples: Sequence[Sample]
) -> tuple[tuple[FixtureInfo, ...], tuple[Excuse, ...]]:
    """Without the suite: fixtures and their excuses (no counters) as the run recorded them."""
    meta = run.checksums.get("fixtures", {})
    infos = tuple(
        FixtureInfo(fid, "", str(m.get("rule", "")), str(m.get("agent", "")))
        for fid, m in meta.items()
    )
    excuses = []
    for fid, m in meta.items():
        users = [s for s in samples if s.fixture_id == fid]
        if not users:
            continue
        for i, excuse in enumerate(m.get("rationalizations", ()), start=1):
            hit = tuple(s.key for s in users if excuse in s.matched)
            excuses.append(Excuse(fid, i, excuse, "", hit))
    return infos, tuple(excuses)


def baseline_side(
    ref: str, store: Path, suite: Suite | None, prompts: PromptBook | None
) -> tuple[Side, tuple[Sample, ...], dict[SampleId, str]]:
    """A baseline file, or a run id in ``store`` (whose samples the report can then show)."""
    path = Path(ref)
    if path.is_file():
        return side_from_baseline_file(path), (), {}
    try:
        run, records = load_run(store, ref)
    except InputError as exc:
        raise InputError(
            ref, "--compare", f"neither a baseline file nor a run in {store} ({exc.message})"
        ) from None
    fixtures = {f.id: f for f in suite.fixtures} if suite is not None else {}
    samples = tuple(
        run_sample(f"b{i}", r, fixtures, prompts) for i, r in enumerate(records, start=1)
    )
    keys = {r.key: s.key for r, s in zip(records, samples, strict=True)}
    return side_from_run(run, records), samples, keys


def comparison_section(
    result: Comparison,
    baseline_samples: tuple[Sample, ...],
    baseline_keys: Mapping[SampleId, str],
    candidate_keys: Mapping[SampleId, str],
) -> ComparisonSection:
    def change(kind: str, key: SampleId, before: str | None, after: str | None) -> Change:
        f, p, a, e = key
        return Change(
            kind, f, p, a, e, before, after, baseline_keys.get(key), candidate_keys.get(key)
        )

    changes = (
        [change("flip", c.key, c.before, c.after) for c in result.flips]
        + [change("new-unparseable", c.key, c.before, c.after) for c in result.new_unparseable]
        + [change("fix", c.key, c.before, c.after) for c in result.fixes]
        + [change("void", c.key, c.before, c.after) for c in result.void]
    )
    return ComparisonSection(
        baseline=result.baseline,
        candidate=result.candidate,
        paired=result.paired,
        regressions=result.regressions,
        changes=tuple(changes),
        drops=result.drops,
        only_baseline=len(result.only_baseline),
        only_candidate=len(result.only_candidate),
        notes=result.notes,
        baseline_samples=baseline_samples,
    )


def run_report(
    store: Path,
    run_id: str,
    *,
    suite_dir: Path | None = None,
    baseline: str | None = None,
    title: str | None = None,
    generated_at: str = "",
    version: str = "",
) -> Report:
    """The report of run ``run_id`` in ``store``, compared with ``baseline`` when given."""
    run, records = load_run(store, run_id)
    suite, note = suite_of_run(run, suite_dir)
    prompts = PromptBook(suite) if suite is not None else None
    summary = summarize(run, records)
    pressure, keys = run_pressure_section(
        summary, records, suite, prompts, notes=(note,) if note else ()
    )
    comparison = None
    sources = [f"{store} · run {run_id}"]
    if baseline is not None:
        side, base_samples, base_keys = baseline_side(baseline, store, suite, prompts)
        result = compare(side, side_from_run(run, records))
        comparison = comparison_section(result, base_samples, base_keys, keys)
        sources.append(f"baseline {baseline}")
    suite_part = None
    if suite is not None and suite_dir is not None:
        suite_part = lint_and_coverage(suite)
    return Report(
        title=title or f"earnest run {run_id}",
        generated_at=generated_at,
        version=version,
        sources=tuple(sources),
        suite=suite_part,
        pressure=pressure,
        comparison=comparison,
        prompts=dict(prompts.prompts) if prompts is not None else {},
    )


__all__ = [
    "baseline_side",
    "comparison_section",
    "load_run",
    "run_pressure_section",
    "run_report",
    "run_sample",
    "suite_of_run",
]
