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
    return coverage_section(suite) + lint_section(suite)


__all__ = ["coverage_section", "lint_section", "suite_sections", "suite_tiles", "tile"]
