"""HTML for a suite's lint and coverage: tiles, coverage by rule (chart and table), findings.

Example:
    >>> suite_tiles(None)
    []
"""

from __future__ import annotations

from earnest.report.htmlsafe import esc
from earnest.report.model import SuiteSection
from earnest.report.svg import VERDICT_COLORS, Row, bars

STATUS_COLORS = {
    "covered": VERDICT_COLORS["pass"],
    "debt": VERDICT_COLORS["fail-citation"],
    "uncovered": VERDICT_COLORS["fail-choice"],
    "unclaimed": VERDICT_COLORS["void"],
}
STATUS_TEXT = {
    "covered": "covered",
    "debt": "debt (declared, with a reason)",
    "uncovered": "uncovered: claimed, no fixture, not in the debt",
    "unclaimed": "no agent claims it",
}


def tile(key: str, value: str, sub: str = "", state: str = "") -> str:
    return (
        f'<div class="tile {esc(state)}"><div class="k">{esc(key)}</div>'
        f'<div class="v">{esc(value)}</div><div class="s">{esc(sub)}</div></div>'
    )


def suite_tiles(suite: SuiteSection | None) -> list[str]:
    if suite is None:
        return []
    errors = suite.lint_errors
    warnings = len(suite.diagnostics) - errors
    c = suite.coverage
    claimed = [r for r in c.rows if r.status != "unclaimed"]
    covered = sum(1 for r in claimed if r.status == "covered")
    debt = sum(1 for r in claimed if r.status == "debt")
    return [
        tile(
            "lint",
            "clean" if not suite.diagnostics else f"{errors} error(s)",
            f"{warnings} warning(s)" if suite.diagnostics else "no findings",
            "bad" if errors else ("warn" if warnings else "ok"),
        ),
        tile(
            "coverage",
            "ok" if c.ok else f"{len(c.failures)} failure(s)",
            f"{covered} of {len(claimed)} claimed rules covered"
            + (f", {debt} in debt" if debt else "")
            + f"; {c.fixtures} fixtures",
            "ok" if c.ok else "bad",
        ),
    ]


def coverage_section(suite: SuiteSection) -> str:
    c = suite.coverage
    rows = [
        Row(
            f"Rule {r.rule}: {r.title}",
            float(len(r.fixtures)),
            note=(
                f"{len(r.fixtures)} fixture(s)"
                if r.status == "covered"
                else STATUS_TEXT.get(r.status, r.status)
            ),
            color=STATUS_COLORS.get(r.status, VERDICT_COLORS["void"]),
            title=f"Rule {r.rule}: {r.title} — {r.status}"
            + (f" — {', '.join(r.fixtures)}" if r.fixtures else "")
            + (f" — debt: {r.debt_reason}" if r.debt_reason else ""),
        )
        for r in c.rows
    ]
    chart = bars(rows, label="fixtures per doctrine rule") if rows else ""
    table = [
        '<table class="grid"><thead><tr><th>rule</th><th>status</th><th>title</th>'
        "<th>claimed by</th><th>fixtures</th></tr></thead><tbody>"
    ]
    for r in c.rows:
        fixtures = ", ".join(r.fixtures) or (f"debt: {r.debt_reason}" if r.debt_reason else "–")
        table.append(
            f'<tr><td>{esc(r.rule)}</td><td><span class="badge {esc(r.status)}">'
            f"{esc(r.status)}</span></td><td>{esc(r.title)}</td>"
            f"<td>{esc(', '.join(r.agents) or '–')}</td><td>{esc(fixtures)}</td></tr>"
        )
    table.append("</tbody></table>")
    failures = "".join(
        f'<div class="badbox"><strong>{esc(f.code)}</strong> {esc(f.render())}</div>'
        for f in c.failures
    )
    verdict = (
        f'<div class="okbox">coverage ok: {c.fixtures} fixture(s) load (minimum {c.min_fixtures}); '
        "every claimed rule is covered or in the declared debt.</div>"
        if c.ok
        else failures
    )
    return (
        '<section id="coverage"><h2>Coverage by rule</h2>'
        '<p class="help">Every doctrine rule: the fixtures that cover it (a fixture covers its rule '
        "only when it loads and its agent claims the rule), the declared debt, and what is "
        "missing.</p>"
        f'{verdict}<div class="chart">{chart}</div>{"".join(table)}</section>'
    )


AGENT_TEXT = {
    "tested": "tested",
    "no-fixtures": "no fixture: never measured",
    "no-claims": "claims no rule",
}


def agent_section(suite: SuiteSection) -> str:
    """Coverage by agent: an agent with no fixture is never measured, whatever it claims."""
    agents = suite.coverage.by_agent
    if not agents:
        return ""
    rows = "".join(
        f'<tr><td>{esc(a.agent)}</td><td><span class="badge '
        f'{"covered" if a.status == "tested" else "uncovered"}">{esc(AGENT_TEXT[a.status])}'
        f"</span></td><td>{esc(', '.join(a.claimed) or '–')}</td>"
        f"<td>{esc(', '.join(a.fixtures) or '–')}</td>"
        f"<td>{esc(', '.join(a.untested_claims) or '–')}</td></tr>"
        for a in agents
    )
    return (
        '<section id="coverage-agents"><h2>Coverage by agent</h2>'
        '<p class="help">Every agent doc: the rules it claims, the fixtures that test it, and '
        "its claimed rules no fixture of it targets.</p>"
        '<table class="grid"><thead><tr><th>agent</th><th>status</th><th>claims</th>'
        f"<th>fixtures</th><th>claimed, untested</th></tr></thead><tbody>{rows}</tbody></table>"
        "</section>"
    )


def pressure_section(suite: SuiteSection) -> str:
    """How often each pressure is stacked, and the pairs of pressures that never are."""
    h = suite.coverage.pressures
    if h is None:
        return ""
    rows = [
        Row(
            p,
            float(n),
            note=f"{n} of {h.fixtures} fixture(s)",
            color=VERDICT_COLORS["pass"] if n else VERDICT_COLORS["void"],
        )
        for p, n in h.counts.items()
    ]
    chart = bars(rows, maximum=float(max(1, h.fixtures)), label="fixtures per pressure")
    never = "".join(f"<li>{esc(a)} + {esc(b)}</li>" for a, b in h.never_seen)
    pairs = (
        f"<p>{len(h.never_seen)} of {len(h.pair_counts)} pairs of pressures never appear "
        f'together:</p><ul class="never-seen">{never}</ul>'
        if h.never_seen
        else "<p>Every pair of pressures appears together in some fixture.</p>"
    )
    return (
        '<section id="pressures"><h2>Pressure histogram</h2>'
        '<p class="help">Fixtures that stack each pressure (fixtures that load).</p>'
        f'<div class="chart">{chart}</div>{pairs}</section>'
    )


def lint_section(suite: SuiteSection) -> str:
    if not suite.diagnostics:
        return (
            '<section id="lint"><h2>Lint</h2><div class="okbox">lint: clean — no findings in '
            "the doctrine, the agent docs or the fixtures.</div></section>"
        )
    rows = "".join(
        f'<tr><td><span class="badge {esc(d.severity)}">{esc(d.severity)}</span></td>'
        f"<td>{esc(d.file)}</td><td>{esc(d.field)}</td><td>{esc(d.message)}</td>"
        f"<td><code>{esc(d.code)}</code></td></tr>"
        for d in suite.diagnostics
    )
    return (
        '<section id="lint"><h2>Lint</h2>'
        '<p class="help">Errors fail <code>earnest check</code>; warnings are shown and do not.</p>'
        '<table class="grid"><thead><tr><th>severity</th><th>file</th><th>field</th>'
        f"<th>finding</th><th>code</th></tr></thead><tbody>{rows}</tbody></table></section>"
    )


def suite_sections(suite: SuiteSection) -> str:
    return (
        coverage_section(suite)
        + agent_section(suite)
        + pressure_section(suite)
        + lint_section(suite)
    )


__all__ = [
    "agent_section",
    "coverage_section",
    "lint_section",
    "pressure_section",
    "suite_sections",
    "suite_tiles",
    "tile",
]
