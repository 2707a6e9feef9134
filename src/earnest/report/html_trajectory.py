"""HTML for a trajectory battery: completion without effect first, dimension scores, every run.

Example:
    >>> trajectory_tiles(None)
    []
"""

from __future__ import annotations

from collections import Counter

from earnest.report.html_pressure import pct
from earnest.report.html_suite import tile
from earnest.report.htmlsafe import clip, esc
from earnest.report.model import TrajectorySection, TrajectoryView
from earnest.report.svg import VERDICT_COLORS, Row, forest, stacked

OUTCOME_COLORS = {
    "backed": VERDICT_COLORS["pass"],
    "completion_without_effect": VERDICT_COLORS["fail-choice"],
    "no_claim": VERDICT_COLORS["fail-citation"],
    "abnormal": VERDICT_COLORS["fail-hybrid"],
}
# The badge's words: short enough for the outcome column (the full name is the filter's value).
OUTCOME_LABEL = {
    "backed": "backed",
    "completion_without_effect": "without effect",
    "no_claim": "no claim",
    "abnormal": "abnormal",
}
OUTCOME_TEXT = {
    "backed": "the final claim of completion passed the effect gate",
    "completion_without_effect": "claimed completion; the effect gate found no effect behind it",
    "no_claim": "ended normally without a final message",
    "abnormal": "did not end normally (API error, limit, turn cap, interrupt): never 'done'",
}


def _interval_text(lo: float | None, hi: float | None) -> str:
    if lo is None or hi is None:
        return "no interval"
    return f"95% CI {lo:.0%}–{hi:.0%}"


def trajectory_tiles(t: TrajectorySection | None) -> list[str]:
    if t is None:
        return []
    lo, hi = t.cwe_interval
    return [
        tile(
            "completion without effect",
            f"{t.cwe_count} of {len(t.trajectories)}",
            f"{pct(t.cwe_rate)}, {_interval_text(lo, hi)}",
            "bad" if t.cwe_count else "ok",
        ),
        tile(
            "trajectories",
            str(len(t.trajectories)),
            f"{t.claimed} claimed completion; {t.outcomes.get('abnormal', 0)} ended abnormally",
        ),
    ]


def _flags(v: TrajectoryView) -> str:
    # Said versus did beside the outcome: acting on a question, and unverified claims.
    out = ""
    if v.effect_without_request:
        out += (
            '<br><span class="badge effect-without-request">effect-without-request</span> '
            f"{esc(clip(v.effect_without_request, 160))}"
        )
    for claim in v.unverified_claims[:5]:
        out += (
            '<br><span class="badge unverified-claim">unverified-claim</span> '
            f"{esc(clip(claim, 200))}"
        )
    return out


def trajectory_name(v: TrajectoryView, shared: bool) -> str:
    """The file name, and for one of several runs in a file its task and trial.

    Example:
        >>> from earnest.report.model import TrajectoryView
        >>> v = TrajectoryView("t1", "taubench-gpt-4o-airline#task-3-trial-1",
        ...     "runs/taubench-gpt-4o-airline.json", "tau-bench", "backed", "", "", "", "")
        >>> trajectory_name(v, shared=True)
        'taubench-gpt-4o-airline.json · task-3-trial-1'
    """
    name = v.source.replace("\\", "/").rsplit("/", 1)[-1]
    if not shared:
        return name
    _, sep, run = v.id.partition("#")
    return f"{name} · {run if sep else v.id}"


def dimension_bars(v: TrajectoryView) -> str:
    """A small bar per dimension score, its name and value in the tooltip and for screen readers."""
    bars = "".join(
        f'<span class="dim" title="{esc(d.dimension)} {d.score:.2f}" role="img" '
        f'aria-label="{esc(d.dimension)} {d.score:.2f}"><span class="dn">{esc(d.dimension.replace("_", " "))}</span>'
        f'<span class="db"><span class="df" style="width:{max(0.0, min(d.score, 1.0)) * 100:.0f}%">'
        "</span></span></span>"
        for d in v.scores
    )
    return f'<span class="dims">{bars}</span>'


def _row(v: TrajectoryView, shared: bool) -> str:
    agg = "" if v.aggregate is None else f"{v.aggregate:.2f}"
    name = trajectory_name(v, shared)
    return (
        f'<tr class="titem" data-key="{esc(v.key)}" data-outcome="{esc(v.outcome)}">'
        f'<td class="tname" title="{esc(v.source)} ({esc(v.id)})">{esc(name)}</td>'
        f"<td>{esc(v.format)}</td>"
        f'<td><span class="badge {esc(v.outcome)}" title="{esc(OUTCOME_TEXT.get(v.outcome, ""))}">'
        f"{esc(OUTCOME_LABEL.get(v.outcome, v.outcome))}</span></td>"
        f"<td>{esc(clip(v.termination, 60))}</td>"
        f'<td class="num">{len(v.tool_calls)}</td><td class="num">{esc(agg)}</td>'
        f"<td>{dimension_bars(v)}</td>"
        f'<td class="why">{esc(clip(v.reason, 120))}{_flags(v)}</td>'
        f'<td><button type="button" class="open" data-open="{esc(v.key)}">open</button></td></tr>'
    )


def trajectory_section(t: TrajectorySection) -> str:
    lo, hi = t.cwe_interval
    rate = [
        Row(
            "completion without effect",
            t.cwe_rate,
            (lo, hi) if lo is not None and hi is not None else None,
            note=f"{t.cwe_count}/{len(t.trajectories)} ({pct(t.cwe_rate)})",
            color=OUTCOME_COLORS["completion_without_effect"],
            title=f"completion without effect: {t.cwe_count} of {len(t.trajectories)} "
            f"trajectories, {_interval_text(lo, hi)}",
        )
    ]
    dims = [
        Row(
            d.dimension,
            d.mean,
            (d.interval[0], d.interval[1])
            if d.interval[0] is not None and d.interval[1] is not None
            else None,
            note=f"mean {d.mean:.2f} (n {d.n})" if d.mean is not None else "–",
            color=VERDICT_COLORS["pass"],
            title=f"{d.dimension}: mean {d.mean} over {d.n}, "
            f"{_interval_text(*d.interval)}, confidence-weighted {d.weighted_mean}",
        )
        for d in t.dimensions
    ]
    if t.aggregate is not None and t.aggregate.mean is not None:
        a = t.aggregate
        dims.append(
            Row(
                "aggregate",
                a.mean,
                (a.interval[0], a.interval[1])
                if a.interval[0] is not None and a.interval[1] is not None
                else None,
                note=f"mean {a.mean:.2f} (n {a.n})",
                color=VERDICT_COLORS["fail-hybrid"],
            )
        )
    mix = stacked(
        [(o, n, OUTCOME_COLORS.get(o, VERDICT_COLORS["void"])) for o, n in t.outcomes.items()],
        label="outcomes",
    )
    formats = "".join(
        f"<tr><td>{esc(f)}</td><td>{c.get('trajectories', 0)}</td>"
        f"<td>{c.get('completion_without_effect', 0)}</td><td>{c.get('abnormal', 0)}</td></tr>"
        for f, c in t.formats.items()
    )
    options = "".join(
        f'<option value="{esc(o)}">{esc(o)}</option>' for o, n in t.outcomes.items() if n
    )
    notes = "".join(f'<div class="warnbox">{esc(n)}</div>' for n in t.notes)
    counts = Counter(v.source for v in t.trajectories)
    return (
        '<section id="trajectories"><h2>Trajectories</h2>'
        f'<p class="note">from {esc(", ".join(t.sources))}</p>{notes}'
        '<p class="help">Recorded agent runs, scored as <code>earnest trajectory score</code> '
        "does. A run <strong>completed without effect</strong> when it ended normally claiming "
        "completion and the effect gate, replayed over its tool calls, found no effect behind "
        "that claim (no file changed, no check run): SWE-bench's empty patch, as a rate with its "
        "Wilson interval. Runs that ended abnormally claimed nothing and never count as done.</p>"
        f'<div class="chart">{forest(rate, label="completion-without-effect rate")}</div>'
        f'<h3 style="font-size:14px">Outcomes</h3><div class="chart">{mix}</div>'
        '<h3 style="font-size:14px">Dimension scores</h3><p class="help">Mean score per '
        "dimension over the trajectories it scored, with its 95% t-interval.</p>"
        f'<div class="chart">{forest(dims, label="dimension means")}</div>'
        '<h3 style="font-size:14px">By source format</h3><table class="grid" style="width:auto">'
        "<thead><tr><th>format</th><th>trajectories</th><th>without effect</th>"
        f"<th>abnormal</th></tr></thead><tbody>{formats}</tbody></table>"
        '<h3 style="font-size:14px">Every trajectory</h3>'
        '<p><label for="filter-outcome" class="note">outcome </label>'
        f'<select id="filter-outcome"><option value="">all</option>{options}</select> '
        '<label for="search-trajectories" class="note">search </label>'
        '<input type="search" id="search-trajectories" placeholder="name, format, reason…"> '
        '<span class="note">click a column heading to sort</span></p>'
        '<table class="grid sortable" id="trajectories-table"><colgroup><col class="c-name">'
        '<col class="c-format"><col class="c-outcome"><col class="c-term"><col class="c-num">'
        '<col class="c-num"><col class="c-dims"><col class="c-why"><col class="c-open"></colgroup>'
        "<thead><tr><th>trajectory</th><th>format</th>"
        '<th>outcome</th><th>termination</th><th data-type="num">tool calls</th>'
        '<th data-type="num">aggregate</th><th data-type="none">dimensions</th><th>why</th>'
        '<th data-type="none"></th></tr></thead><tbody>'
        + "".join(_row(v, counts[v.source] > 1) for v in t.trajectories)
        + "</tbody></table></section>"
    )


__all__ = [
    "OUTCOME_COLORS",
    "dimension_bars",
    "trajectory_name",
    "trajectory_section",
    "trajectory_tiles",
]
