"""HTML for a run compared with its baseline: regressions first, each change openable.

Example:
    >>> compare_tiles(None)
    []
"""

from __future__ import annotations

from earnest.report.html_pressure import pct
from earnest.report.html_suite import tile
from earnest.report.htmlsafe import esc
from earnest.report.model import Change, ComparisonSection
from earnest.report.svg import VERDICT_COLORS, Row, forest

KIND_TEXT = {
    "flip": "flip: passed in the baseline, fails now",
    "new-unparseable": "new unparseable reply",
    "fix": "fix: failed in the baseline, passes now",
    "void": "void on one side (not compared)",
}
REGRESSIONS = ("flip", "new-unparseable")


def compare_tiles(c: ComparisonSection | None) -> list[str]:
    if c is None:
        return []
    return [
        tile(
            "regressions",
            str(c.regressions),
            f"against {c.baseline}" if c.regressions else "none: the run holds its baseline",
            "bad" if c.regressions else "ok",
        ),
        tile("paired samples", str(c.paired), "by fixture, profile, arm and epoch"),
        tile("fixes", str(len(c.of("fix"))), "failed in the baseline, pass now"),
    ]


def _badge(verdict: str | None) -> str:
    v = verdict or "void"
    return f'<span class="badge {esc(v)}">{esc(v)}</span>'


def _open(key: str | None, label: str) -> str:
    if key is None:
        return ""
    return f'<button type="button" class="open" data-open="{esc(key)}">{esc(label)}</button>'


def _row(ch: Change) -> str:
    return (
        f'<tr data-fixture="{esc(ch.fixture_id)}" data-profile="{esc(ch.profile)}" '
        f'data-arm="{esc(ch.arm)}"><td><span class="badge '
        f'{"bad" if ch.kind in REGRESSIONS else "soft"}">{esc(ch.kind)}</span></td>'
        f"<td>{esc(ch.fixture_id)}</td><td>{esc(ch.profile)}</td><td>{esc(ch.arm)}</td>"
        f"<td>{ch.epoch}</td><td>{_badge(ch.baseline)} → {_badge(ch.candidate)}</td>"
        f"<td>{_open(ch.baseline_key, 'baseline')} {_open(ch.candidate_key, 'candidate')}</td>"
        "</tr>"
    )


def comparison_section(c: ComparisonSection) -> str:
    verdict = (
        f'<div class="badbox"><strong>{c.regressions} regression(s)</strong> against '
        f"<code>{esc(c.baseline)}</code>: {len(c.of('flip'))} flip(s), {len(c.drops)} "
        f"drop(s), {len(c.of('new-unparseable'))} new unparseable reply(ies).</div>"
        if c.regressions
        else f'<div class="okbox">No regression against <code>{esc(c.baseline)}</code> '
        f"({c.paired} paired samples).</div>"
    )
    notes = "".join(f'<div class="warnbox">{esc(n)}</div>' for n in c.notes)
    unpaired = ""
    if c.only_baseline or c.only_candidate:
        unpaired = (
            f'<p class="note">Not paired: {c.only_baseline} sample(s) only in the baseline, '
            f"{c.only_candidate} only in this run.</p>"
        )
    order = {k: i for i, k in enumerate(("flip", "new-unparseable", "fix", "void"))}
    changes = sorted(c.changes, key=lambda ch: order.get(ch.kind, 9))
    table = (
        '<div data-filter-scope="1"><table class="grid" id="changes-table"><thead><tr>'
        "<th>change</th><th>fixture</th><th>profile</th><th>arm</th><th>epoch</th>"
        "<th>baseline → this run</th><th>replies</th></tr></thead><tbody>"
        + "".join(_row(ch) for ch in changes)
        + "</tbody></table></div>"
        if changes
        else '<p class="empty-state">No paired sample changed its verdict.</p>'
    )
    drops = ""
    if c.drops:
        rows = [
            Row(
                f"{d.fixture_id} · {d.profile} · {d.arm}",
                d.delta,
                d.interval,
                note=f"{d.baseline[0]}/{d.baseline[1]} → {d.candidate[0]}/{d.candidate[1]}",
                color=VERDICT_COLORS["fail-choice"],
                title=f"pass rate {pct(d.baseline[0] / d.baseline[1])} → "
                f"{pct(d.candidate[0] / d.candidate[1])}",
            )
            for d in c.drops
        ]
        drops = (
            '<h3 style="font-size:14px">Pass-rate drops</h3><p class="help">Cells whose pass '
            "rate fell with the whole 95% interval of the difference below zero.</p>"
            + forest(
                rows,
                domain=(-1.0, 1.0),
                ticks=(-1, -0.5, 0, 0.5, 1),
                zero=0.0,
                label="pass-rate drops",
            )
        )
    return (
        '<section id="comparison"><h2>Compared with the baseline</h2>'
        f'<p class="help">This run (<code>{esc(c.candidate)}</code>) against '
        f"<code>{esc(c.baseline)}</code>, paired by fixture, profile, arm and epoch. A regression "
        "is a flip (pass → fail), a pass-rate drop beyond its interval, or a new unparseable "
        "reply; exactly what <code>earnest compare</code> gates on.</p>"
        f"{verdict}{notes}{unpaired}{table}{drops}</section>"
    )


__all__ = ["KIND_TEXT", "compare_tiles", "comparison_section"]
