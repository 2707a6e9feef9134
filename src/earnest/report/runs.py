"""Render run summaries and comparisons: ``table`` (terminal), ``json``, ``junit`` (XML).

JSON shapes are ``RunSummary.to_json()`` and ``Comparison.to_json()`` (documented in
``docs/live-runs.md``). JUnit: one test case per fixture × profile × arm; a rule-arm case fails
when any of its samples failed, an ablated-arm case never fails (it is the RED baseline), a
case with only void samples is skipped. A comparison has one case per sample (a regression
fails carrying the candidate's reason, choice and reply; a sample on one side only, or void, is
skipped) plus one failing case per pass-rate drop.

Example:
    >>> fmt_rate(3, 4)
    '3/4 75%'
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from earnest.live.compare import Comparison, Drop, Pair
from earnest.live.cost import format_usd
from earnest.live.store import RunInfo, SampleId
from earnest.live.summary import RunSummary
from earnest.report.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit

FORMATS = ("table", "json", "junit")


def fmt_rate(passes: int, n: int) -> str:
    return f"{passes}/{n} {100 * passes / n:.0f}%" if n else "-"


def fmt_interval(lo: float, hi: float, signed: bool = False) -> str:
    if signed:
        return f"[{lo:+.2f}, {hi:+.2f}]"
    return f"[{lo:.2f}, {hi:.2f}]"


def _console() -> tuple[Any, io.StringIO]:
    from rich.console import Console

    from earnest.report.console import stdout_width

    buf = io.StringIO()
    return Console(file=buf, width=stdout_width(), force_terminal=False, no_color=True), buf


def summary_table(s: RunSummary) -> str:
    from rich.table import Table

    console, buf = _console()
    run = s.run
    console.print(
        f"run {run.run_id} ({run.status}): {s.stored}/{run.total} samples, "
        f"{s.judged} judged, {s.void} void, cost {format_usd(s.cost)}"
        + (f" (+{s.unpriced} unpriced)" if s.unpriced else ""),
        markup=False,
        highlight=False,
    )
    cells = Table(title="fixture × profile × arm", title_justify="left")
    for col in (
        "fixture",
        "rule",
        "profile",
        "arm",
        "pass",
        "95% CI",
        "pass^k",
        "verdicts",
        "void",
    ):
        cells.add_column(col, overflow="fold")
    for c in s.cells:
        k = min(3, c.n)
        phk = f"{c.pass_hat_k[k]:.2f} (k={k})" if k else "-"
        verdicts = ", ".join(f"{v} {n}" for v, n in c.counts.items() if n)
        cells.add_row(
            c.fixture_id,
            c.rule_id,
            c.profile,
            c.arm,
            fmt_rate(c.passes, c.n),
            fmt_interval(*c.interval) if c.n else "-",
            phk,
            verdicts or "-",
            str(c.void) if c.void else "",
        )
    console.print(cells)
    failing = [c for c in s.cells if c.n > c.passes]
    if failing:
        rt = Table(title="rationalizations in failed replies", title_justify="left")
        for col in ("fixture", "profile", "arm", "matched", "unmatched failures", "never matched"):
            rt.add_column(col, overflow="fold")
        for c in failing:
            rt.add_row(
                c.fixture_id,
                c.profile,
                c.arm,
                # One excuse a line: joined on one line they made the table 200+ wide.
                "\n".join(f"{n}× {e}" for e, n in c.matched.items()) or "-",
                str(c.unmatched_failures),
                "\n".join(c.unmatched) or "-",
            )
        console.print(rt)
    if s.rules:
        rules = Table(
            title="per rule: ablation delta (rule arm − ablated arm)", title_justify="left"
        )
        for col in ("rule", "profile", "rule arm", "ablated arm", "delta", "95% CI", "flag"):
            rules.add_column(col)
        for r in s.rules:
            rules.add_row(
                r.rule_id,
                r.profile,
                fmt_rate(r.rule_passes, r.rule_n),
                fmt_rate(r.ablated_passes, r.ablated_n),
                f"{r.delta:+.2f}" if r.delta is not None else "-",
                fmt_interval(*r.interval, signed=True) if r.delta is not None else "-",
                r.flag or "",
            )
        console.print(rules)
    if s.voids:
        console.print(f"void samples ({len(s.voids)}):", markup=False)
        for v in s.voids[:20]:
            console.print(
                f"  {v.fixture_id} [{v.profile}/{v.arm}/epoch {v.epoch}] "
                f"after {v.attempts} attempt(s): {v.error}",
                markup=False,
                highlight=False,
            )
        if len(s.voids) > 20:
            console.print(f"  ... and {len(s.voids) - 20} more (see --format json)")
    return buf.getvalue()


def summary_junit(s: RunSummary) -> str:
    """One test suite per profile: a case per cell (a rule-arm cell with a failing sample
    fails; a cell with no judged sample is skipped) and one per rule's ablation delta."""
    by_profile: dict[str, list[JUnitCase]] = {}
    for c in s.cells:
        detail = ", ".join(f"{v} {n}" for v, n in c.counts.items() if n)
        failed = c.n > 0 and c.arm == "rule" and c.passes < c.n
        by_profile.setdefault(c.profile, []).append(
            JUnitCase(
                name=f"{c.fixture_id} [{c.arm}]",
                classname=f"earnest.live.{c.profile}",
                skipped=f"all {c.void} samples void" if c.n == 0 else None,
                failure=(
                    JUnitFailure(
                        "failed-samples",
                        f"{c.n - c.passes} of {c.n} samples failed: {detail}",
                        detail,
                    )
                    if failed
                    else None
                ),
                system_out=f"pass {fmt_rate(c.passes, c.n)}; {detail}; void {c.void}",
            )
        )
    for r in s.rules:
        by_profile.setdefault(r.profile, []).append(
            JUnitCase(
                name=f"rule {r.rule_id} ablation",
                classname=f"earnest.live.{r.profile}",
                skipped=f"{r.flag}: the ablated arm already complies" if r.flag else None,
            )
        )
    suites = [JUnitSuite(f"earnest.live.{p}", tuple(cases)) for p, cases in by_profile.items()]
    return render_junit(suites, name=f"earnest run {s.run.run_id}")


def render_summary(s: RunSummary, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(s.to_json(), indent=2) + "\n"
    if fmt == "junit":
        return summary_junit(s)
    return summary_table(s)


def comparison_table(c: Comparison) -> str:
    console, buf = _console()
    p = console.print
    p(f"baseline {c.baseline} → candidate {c.candidate}: {c.paired} paired samples", markup=False)
    for note in c.notes:
        p(f"note: {note}", markup=False, highlight=False)

    def key(k: tuple[str, str, str, int]) -> str:
        return f"{k[0]} [{k[1]}/{k[2]}/epoch {k[3]}]"

    sections: list[tuple[str, Sequence[Any]]] = [
        ("pass → fail flips", c.flips),
        ("new unparseable replies", c.new_unparseable),
    ]
    for title, items in sections:
        if items:
            p(f"{title} ({len(items)}):", markup=False)
            for ch in items:
                o = ch.candidate_outcome
                why = f" — {o.reason}" if o is not None and o.reason else ""
                p(
                    f"  {key(ch.key)}: {ch.before or 'absent'} → {ch.after}{why}",
                    markup=False,
                    highlight=False,
                )
    if c.drops:
        p(f"pass-rate drops beyond the 95% interval ({len(c.drops)}):", markup=False)
        for d in c.drops:
            p(
                f"  {d.fixture_id} [{d.profile}/{d.arm}]: {fmt_rate(*d.baseline)} → "
                f"{fmt_rate(*d.candidate)} (delta {d.delta:+.2f}, CI {fmt_interval(*d.interval, signed=True)})",
                markup=False,
                highlight=False,
            )
    if c.fixes:
        p(f"fail → pass ({len(c.fixes)}):", markup=False)
        for ch in c.fixes:
            p(f"  {key(ch.key)}: {ch.before} → {ch.after}", markup=False, highlight=False)
    if c.void:
        p(f"void on one side, not compared ({len(c.void)})", markup=False)
    if c.only_baseline or c.only_candidate:
        p(
            f"unpaired: {len(c.only_baseline)} only in the baseline, "
            f"{len(c.only_candidate)} only in the candidate",
            markup=False,
        )
    p(
        f"{c.regressions} regression(s)" if c.regressions else "no regressions",
        markup=False,
    )
    return buf.getvalue()


_REPLY_EXCERPT = 2000


def _sample_name(k: SampleId) -> str:
    return f"{k[0]} [{k[1]}/{k[2]}/epoch {k[3]}]"


def _regression(x: Pair) -> JUnitFailure:
    b, c = x.baseline, x.candidate
    assert c is not None and c.verdict is not None
    before = "absent" if b is None else (b.verdict or "void")
    what = "pass → fail flip" if x.flip else "new unparseable reply"
    message = f"{before} → {c.verdict}: {c.reason}" if c.reason else f"{before} → {c.verdict}"
    body = [f"{what}: baseline {before} → candidate {c.verdict}"]
    if b is not None and b.reason:
        body.append(f"baseline reason: {b.reason}")
    body.append(f"reason: {c.reason or '(not recorded)'}")
    body.append(f"choice: {c.choice_text or 'none'}")
    if c.reply:
        excerpt = c.reply
        if len(excerpt) > _REPLY_EXCERPT:
            excerpt = excerpt[:_REPLY_EXCERPT] + "\n[… truncated]"
        body.append("reply:\n" + excerpt)
    return JUnitFailure(c.verdict, message, "\n".join(body))


def _skip_reason(x: Pair) -> str | None:
    b, c = x.baseline, x.candidate
    if c is None:
        return "only in the baseline: the candidate has no sample with this key"
    if b is None:
        return "only in the candidate: the baseline has no sample with this key"
    if c.verdict is None:
        return f"void in the candidate, not compared: {c.reason or 'no reply'}"
    if b.verdict is None:
        return f"void in the baseline, not compared: {b.reason or 'no reply'}"
    return None


def _sample_case(x: Pair) -> JUnitCase:
    b, c = x.baseline, x.candidate
    props = [
        ("baseline_verdict", "absent" if b is None else (b.verdict or "void")),
        ("candidate_verdict", "absent" if c is None else (c.verdict or "void")),
    ]
    if c is not None:
        props += [("reason", c.reason), ("choice", c.choice_text)]
    failure = _regression(x) if x.regression else None
    skipped = None if failure is not None else _skip_reason(x)
    out = ""
    if failure is None and skipped is None and b is not None and c is not None:
        out = f"{'fix: ' if x.fix else ''}{b.verdict} → {c.verdict}" + (
            f"; reason: {c.reason}" if c.reason else ""
        )
    return JUnitCase(
        name=_sample_name(x.key),
        classname=f"earnest.compare.{x.key[1]}",
        failure=failure,
        skipped=skipped,
        properties=tuple(props),
        system_out=out,
    )


def _drop_case(d: Drop) -> JUnitCase:
    what = (
        f"pass rate {fmt_rate(*d.baseline)} → {fmt_rate(*d.candidate)} "
        f"(delta {d.delta:+.2f}, 95% CI {fmt_interval(*d.interval, signed=True)})"
    )
    return JUnitCase(
        name=f"{d.fixture_id} [{d.profile}/{d.arm}] pass rate",
        classname=f"earnest.compare.{d.profile}",
        failure=JUnitFailure(
            "pass-rate-drop",
            what,
            f"{what}: the Newcombe 95% interval of the difference lies wholly below zero",
        ),
    )


def comparison_junit(c: Comparison) -> str:
    """One test case per sample of either side (a regression fails, a sample on one side only
    or void on either is skipped), plus one failing case per pass-rate drop."""
    cases = [_sample_case(x) for x in c.samples] + [_drop_case(d) for d in c.drops]
    props = [
        ("baseline", c.baseline),
        ("candidate", c.candidate),
        ("paired", str(c.paired)),
        ("regressions", str(c.regressions)),
    ] + [("note", n) for n in c.notes]
    return render_junit([JUnitSuite("earnest compare", tuple(cases), properties=tuple(props))])


def render_comparison(c: Comparison, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(c.to_json(), indent=2) + "\n"
    if fmt == "junit":
        return comparison_junit(c)
    return comparison_table(c)


def runs_table(runs: Sequence[RunInfo], counts: Sequence[int], fmt: str) -> str:
    if fmt == "json":
        return (
            json.dumps(
                [
                    {
                        "run_id": r.run_id,
                        "status": r.status,
                        "created_at": r.created_at,
                        "total": r.total,
                        "stored": n,
                        "profiles": [p["name"] for p in r.config.get("profiles", [])],
                    }
                    for r, n in zip(runs, counts, strict=True)
                ],
                indent=2,
            )
            + "\n"
        )
    lines = [
        f"{r.run_id}  {r.status:<11} {n}/{r.total}  {r.created_at}  "
        + ",".join(p["name"] for p in r.config.get("profiles", []))
        for r, n in zip(runs, counts, strict=True)
    ]
    return "\n".join(lines) + ("\n" if lines else "no runs\n")


__all__ = [
    "FORMATS",
    "comparison_junit",
    "comparison_table",
    "fmt_interval",
    "fmt_rate",
    "render_comparison",
    "render_summary",
    "runs_table",
    "summary_junit",
    "summary_table",
]
