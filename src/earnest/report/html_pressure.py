"""HTML for judged samples: verdict matrix, pass rates, ablation deltas, rationalizations, replies.

Every sample appears as a coloured square (matrix) and a row (replies list) that open it in the
viewer; rows and cells carry ``data-verdict``/``data-fixture``/``data-profile``/``data-arm`` for
the filter bar.

Example:
    >>> pressure_tiles(None)
    []
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from earnest.report.html_action import said_did_section
from earnest.report.html_suite import tile
from earnest.report.htmlsafe import clip, esc
from earnest.report.model import Cell, PressureSection, Sample, SuiteSection
from earnest.report.svg import VERDICT_COLORS, Row, forest, stacked

_SQUARES_MAX = 24


def pct(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.0%}"


def interval_text(interval: tuple[float, float]) -> str:
    lo, hi = interval
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "no interval"
    return f"95% CI {lo:.0%}–{hi:.0%}"


def verdict_of(s: Sample) -> str:
    return s.verdict or "void"


def square(s: Sample) -> str:
    v = verdict_of(s)
    tip = f"{s.fixture_id} · {s.profile} · {s.arm}" + (
        f" · epoch {s.epoch}" if s.epoch is not None else ""
    )
    tip += f" — {v}: {s.reason or s.error or ''}"
    return (
        f'<button type="button" class="sq {esc(v)}" data-open="{esc(s.key)}" '
        f'data-verdict="{esc(v)}" title="{esc(clip(tip, 300))}" '
        f'aria-label="{esc(v)}"></button>'
    )


def legend() -> str:
    return (
        '<div class="legend">'
        + "".join(
            f'<span><span class="sq {esc(v)}"></span> {esc(v)}</span>' for v in VERDICT_COLORS
        )
        + "</div>"
    )


def pressure_tiles(p: PressureSection | None) -> list[str]:
    if p is None:
        return []
    t = p.total
    unmatched = len(p.unmatched_failures)
    out = [
        tile("replies", str(len(p.samples)), f"{t.passes} passed of {t.n} judged"),
        tile("pass rate", pct(t.rate), interval_text(t.interval)),
        tile(
            "gate",
            "ok" if p.gate_ok else "FAILED",
            "; ".join(p.gate_reasons) or "every gating reply passed",
            "ok" if p.gate_ok else "bad",
        ),
        tile(
            "new excuses?",
            str(unmatched),
            "failures that matched no recorded rationalization",
            "warn" if unmatched else "ok",
        ),
    ]
    for k, v in p.facts:
        out.append(tile(k, v, state="fact"))
    return out


def _cell_bg(c: Cell) -> str:
    if c.rate is None:
        return "#f6f8fa"
    if c.rate >= 1:
        return "#dafbe1"
    if c.rate <= 0:
        return "#ffebe9"
    return "#fff8c5"


def _mini_bar(c: Cell) -> str:
    total = sum(c.counts.values()) + c.void
    parts = [(v, n) for v, n in c.counts.items() if n] + ([("void", c.void)] if c.void else [])
    inner = "".join(
        f'<span class="sq {esc(v)}" data-verdict="{esc(v)}" style="width:{100 * n / total:.1f}%;'
        f'margin:0;border-radius:0" title="{esc(f"{v}: {n}")}"></span>'
        for v, n in parts
    )
    return f'<span style="display:flex;width:100%">{inner}</span>'


def matrix_section(p: PressureSection) -> str:
    by_key = {s.key: s for s in p.samples}
    cells = {(c.fixture_id, c.profile, c.arm): c for c in p.cells}
    cols = [
        (prof, arm)
        for prof in p.profiles
        for arm in p.arms
        if any((f, prof, arm) in cells for f, _, _ in cells)
    ]
    known = [f for f in p.fixtures if any((f.id, pr, a) in cells for pr, a in cols)]
    extra = [
        fid
        for fid in dict.fromkeys(c.fixture_id for c in p.cells)
        if fid not in {f.id for f in known}
    ]
    head = "".join(
        f'<th data-profile="{esc(prof)}" data-arm="{esc(arm)}">{esc(prof)}<br>'
        f'<span class="note">{esc(arm)}{" (RED baseline)" if arm == "ablated" else ""}</span></th>'
        for prof, arm in cols
    )
    rows = []
    entries = [(f.id, f.title, f.rule) for f in known] + [
        (fid, "", next(c.rule for c in p.cells if c.fixture_id == fid)) for fid in extra
    ]
    for fid, title, rule in entries:
        tds = []
        for prof, arm in cols:
            c = cells.get((fid, prof, arm))
            if c is None:
                tds.append(
                    f'<td class="cell empty" data-profile="{esc(prof)}" data-arm="{esc(arm)}">–</td>'
                )
                continue
            members = [by_key[k] for k in c.samples if k in by_key]
            inside = (
                "".join(square(s) for s in members)
                if len(members) <= _SQUARES_MAX
                else _mini_bar(c)
            )
            tip = (
                f"{fid} · {prof} · {arm}: {c.passes}/{c.n} passed ({pct(c.rate)}, "
                f"{interval_text(c.interval)})" + (f"; {c.void} void" if c.void else "")
            )
            n_text = f"{c.passes}/{c.n}" + (f" +{c.void} void" if c.void else "")
            tds.append(
                f'<td class="cell" data-cell="1" data-cell-fixture="{esc(fid)}" '
                f'data-profile="{esc(prof)}" data-arm="{esc(arm)}" '
                f'style="background:{_cell_bg(c)}" title="{esc(tip)}">{inside}'
                f'<span class="n">{esc(n_text)}</span></td>'
            )
        rows.append(
            f'<tr data-fixture="{esc(fid)}"><th class="fx" scope="row">{esc(fid)}'
            f'<span class="t">{esc(clip(title, 60))}</span></th><td>{esc(rule)}</td>'
            + "".join(tds)
            + "</tr>"
        )
    return (
        '<section id="matrix"><h2>Verdict matrix</h2>'
        '<p class="help">One row per fixture, one column per profile and arm. Each square is one '
        "reply: click it to read the reply and the prompt it answered; click a cell to list its "
        "replies. The ablated arm is the RED baseline (the rule removed): its failures are "
        "expected.</p>"
        + legend()
        + '<div style="overflow-x:auto" data-filter-scope="1"><table class="matrix" id="verdict-matrix">'
        f"<thead><tr><th>fixture</th><th>rule</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def rates_section(p: PressureSection) -> str:
    rows = [
        Row(
            f"{r.profile} · {r.arm}",
            r.rate,
            r.interval,
            note=f"{r.passes}/{r.n} ({pct(r.rate)})",
            color=VERDICT_COLORS["pass"]
            if r.arm != "ablated"
            else VERDICT_COLORS["fail-unparseable"],
            title=f"{r.profile} · {r.arm}: {r.passes}/{r.n} passed, {interval_text(r.interval)}",
        )
        for r in p.rates
    ]
    t = p.total
    rows.append(
        Row(
            "all replies",
            t.rate,
            t.interval,
            note=f"{t.passes}/{t.n} ({pct(t.rate)})",
            color=VERDICT_COLORS["fail-hybrid"],
            title=f"all: {t.passes}/{t.n} passed, {interval_text(t.interval)}",
        )
    )
    mix = stacked(
        [(v, n, VERDICT_COLORS[v]) for v, n in p.counts.items()]
        + (
            [("void", sum(c.void for c in p.cells), VERDICT_COLORS["void"])]
            if any(c.void for c in p.cells)
            else []
        ),
        label="verdict mix",
    )
    return (
        '<section id="rates"><h2>Pass rates</h2>'
        '<p class="help">Pass rate per profile and arm with its Wilson 95% interval (the line): '
        "few samples give wide intervals. Void samples (no reply through no fault of the "
        "agent) are never counted as passes or failures.</p>"
        f'<div class="chart">{forest(rows, label="pass rates with 95% intervals")}</div>'
        f'<h3 style="font-size:14px">Verdict mix</h3><div class="chart">{mix}</div></section>'
    )


def ablation_section(p: PressureSection) -> str:
    if not p.ablations:
        return (
            '<section id="ablation"><h2>Ablation delta per rule</h2>'
            '<p class="help">No rule has replies in both arms. Record or run the ablated arm '
            "(the agent doc without its rules) to show that a rule changes behaviour.</p></section>"
        )
    rows = [
        Row(
            f"Rule {a.rule} · {a.profile}",
            a.delta,
            a.interval,
            note=f"{a.rule_passes}/{a.rule_n} vs {a.ablated_passes}/{a.ablated_n}"
            + (" ⚠" if a.flag else ""),
            color=VERDICT_COLORS["fail-citation"] if a.flag else VERDICT_COLORS["pass"],
            title=f"Rule {a.rule} ({a.title}) · {a.profile}: rule arm {a.rule_passes}/{a.rule_n}, "
            f"ablated arm {a.ablated_passes}/{a.ablated_n}, delta {pct(a.delta)}, "
            f"{interval_text(a.interval)}" + (f" — {a.flag}" if a.flag else ""),
        )
        for a in p.ablations
    ]
    flagged = [a for a in p.ablations if a.flag]
    warn = "".join(
        f'<div class="warnbox">Rule {esc(a.rule)} · {esc(a.profile)}: {esc(a.flag or "")} — the '
        "ablated arm already chose the compliant option every time, so this run does not show "
        "that the rule does anything.</div>"
        for a in flagged
    )
    return (
        '<section id="ablation"><h2>Ablation delta per rule</h2>'
        '<p class="help">Rule-arm pass rate minus ablated-arm pass rate, per rule and profile, '
        "with its 95% interval. Right of zero: the written rule made the agent comply more often "
        "than the same agent without it.</p>"
        f"{warn}"
        f'<div class="chart">{forest(rows, domain=(-1.0, 1.0), ticks=(-1, -0.5, 0, 0.5, 1), zero=0.0, label="ablation delta per rule")}</div>'
        "</section>"
    )


def rationalizations_section(p: PressureSection) -> str:
    by_key = {s.key: s for s in p.samples}
    failing = {s.fixture_id for s in p.samples if s.verdict not in (None, "pass")}
    rows = []
    for e in p.excuses:
        users = [by_key[k] for k in e.samples if k in by_key]
        if users:
            used = f"<strong>{len(users)}</strong> " + "".join(
                square(s) for s in users[:_SQUARES_MAX]
            )
        elif e.fixture_id in failing:
            used = '<span class="note">never used</span>'
        else:
            # "never used" means something only where replies failed: passes are not matched
            used = '<span class="note">no failed reply</span>'
        rows.append(
            f'<tr data-fixture="{esc(e.fixture_id)}"><td>{esc(e.fixture_id)}</td>'
            f"<td>#{e.index}</td>"
            f'<td class="excuse">{esc(e.excuse)}<div class="counter">counter: '
            f"{esc(e.counter)}</div></td><td>{used}</td></tr>"
        )
    unmatched = p.unmatched_failures
    new = (
        '<div class="warnbox"><strong>'
        f"{len(unmatched)} failed reply(ies) matched none of the recorded excuses.</strong> "
        "Read them: each may hold a new excuse to record with its counter. "
        + "".join(square(s) for s in unmatched)
        + "<ul>"
        + "".join(
            f'<li><button type="button" class="link" data-open="{esc(s.key)}">'
            f"{esc(s.fixture_id)} · {esc(s.profile)} · {esc(s.arm)}</button> "
            f'<span class="note">{esc(verdict_of(s))}: {esc(clip(s.reason, 100))}</span></li>'
            for s in unmatched
        )
        + "</ul></div>"
        if unmatched
        else '<div class="okbox">Every failed reply used a recorded excuse (or had nothing to read).</div>'
    )
    table = (
        '<div data-filter-scope="1"><table class="grid"><thead><tr><th>fixture</th><th>#</th>'
        "<th>recorded excuse</th><th>used by failed replies</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
        if rows
        else ""
    )
    return (
        '<section id="rationalizations"><h2>Rationalizations observed</h2>'
        '<p class="help">The excuses each fixture records, and the failed replies that used them '
        "(matched by the scorer). Known excuses nobody used are marked; failures that used none "
        "are listed first: that is where new excuses are found.</p>"
        f"{new}{table}</section>"
    )


def replies_section(samples: Sequence[Sample]) -> str:
    rows = []
    for s in samples:
        v = verdict_of(s)
        rows.append(
            f'<tr class="item" data-key="{esc(s.key)}" data-verdict="{esc(v)}" '
            f'data-fixture="{esc(s.fixture_id)}" data-profile="{esc(s.profile)}" '
            f'data-arm="{esc(s.arm)}"><td>{esc(s.fixture_id)}</td><td>{esc(s.profile)}</td>'
            f"<td>{esc(s.arm)}</td><td>{'' if s.epoch is None else s.epoch}</td>"
            f'<td><span class="badge {esc(v)}">{esc(v)}</span></td>'
            f"<td>{esc(clip(s.reason or s.error or '', 140))}</td>"
            f'<td class="note">{esc(s.source)}</td>'
            f'<td><button type="button" class="open" data-open="{esc(s.key)}">open</button></td></tr>'
        )
    return (
        '<section id="replies"><h2>Replies</h2>'
        '<p class="help">Every reply, filtered by the bar at the top. Open one to read it with '
        "the prompt it answered, the criteria it was judged on and the excuses it used.</p>"
        '<table class="grid" id="replies-table"><thead><tr><th>fixture</th><th>profile</th>'
        "<th>arm</th><th>epoch</th><th>verdict</th><th>reason</th><th>source</th><th></th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def pressure_sections(p: PressureSection, suite: SuiteSection | None = None) -> str:
    head = f'<p class="note">{esc(p.source)}</p>' + "".join(
        f'<div class="warnbox">{esc(n)}</div>' for n in p.notes
    )
    if not p.samples:
        return head + '<p class="empty-state">No replies.</p>'
    return (
        head
        + matrix_section(p)
        + rates_section(p)
        + ablation_section(p)
        + rationalizations_section(p)
        + said_did_section(p.samples)
        + replies_section(p.samples)
    )


__all__ = [
    "ablation_section",
    "matrix_section",
    "pressure_sections",
    "pressure_tiles",
    "rates_section",
    "rationalizations_section",
    "replies_section",
]
