"""Suite commands: ``lint``, ``coverage``, ``list``, ``prompt``, ``init``, ``schema``.

Thin wrappers over :mod:`earnest.pressure`; heavy imports happen inside the commands.
Exit codes: 0 clean, 1 the check found failures, 2 bad usage or bad input.
"""

from __future__ import annotations

import json
from enum import Enum, StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from earnest.cli import app

if TYPE_CHECKING:
    from earnest.pressure.coverage import CoverageReport


class TableOrJson(StrEnum):
    table = "table"
    json = "json"


class TextOrJson(StrEnum):
    text = "text"
    json = "json"


class ArmChoice(StrEnum):
    rule = "rule"
    ablated = "ablated"


class SchemaName(StrEnum):
    fixture = "fixture"


SUITE_HELP = "The suite folder: it holds earnest.toml, or pyproject.toml with [tool.earnest]."


def _suite_option() -> Any:
    return typer.Option(Path("."), "--suite", "-s", help=SUITE_HELP, show_default=True)


def _format_option(default: Enum) -> Any:
    return typer.Option(default, "--format", "-f", help="Output format (JSON: docs/formats.md).")


def _emit_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


# --- lint ---------------------------------------------------------------------------------


@app.command("lint")
def lint_command(
    suite: Path = _suite_option(),
    format: TableOrJson = _format_option(TableOrJson.table),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 1) on warnings too."),
) -> None:
    """Validate every fixture, agent doc and the doctrine; report EVERY defect in one run.

    Each finding reads `file: field: message [code]`. Errors fail the run (exit 1); warnings
    (heuristics such as answer-position-bias or quiz-words) fail it only with --strict.
    """
    from earnest.pressure.lint import lint_json, lint_suite
    from earnest.pressure.suite import load_suite

    loaded = load_suite(suite)
    diags = lint_suite(loaded)
    errors = sum(1 for d in diags if d.severity == "error")
    warnings = len(diags) - errors
    failed = errors > 0 or (strict and warnings > 0)
    if format is TableOrJson.json:
        _emit_json(lint_json(loaded, diags, strict=strict))
    else:
        for d in diags:
            print(f"{d.severity + ':':<8} {d.render()}")
        files = len(loaded.fixture_files)
        what = f"{files} fixture file(s), {len(loaded.agents)} agent doc(s), {len(loaded.rules)} rule(s)"
        if diags:
            print(f"lint: {errors} error(s), {warnings} warning(s) in {what}")
        else:
            print(f"lint: clean ({what})")
    raise typer.Exit(1 if failed else 0)


# --- coverage -----------------------------------------------------------------------------


@app.command("coverage")
def coverage_command(
    suite: Path = _suite_option(),
    format: TableOrJson = _format_option(TableOrJson.table),
) -> None:
    """Show which claimed rules have fixtures; fail when the suite is not honest about it.

    Fails (exit 1), naming each cause, when fewer fixtures load than min_fixtures, a fixture's
    agent doc is missing, its rule is not in the doctrine or not claimed by its agent, or the
    claimed-but-uncovered rules differ from [suite.debt] in either direction.
    """
    from earnest.pressure.coverage import coverage_report
    from earnest.pressure.suite import load_suite

    loaded = load_suite(suite)
    report = coverage_report(loaded)
    if format is TableOrJson.json:
        _emit_json({"suite": str(loaded.config.root), **report.to_json()})
    else:
        _print_coverage(report)
    raise typer.Exit(0 if report.ok else 1)


def _print_coverage(report: CoverageReport) -> None:
    # Plain aligned columns, never wrapped or truncated: fixture ids must stay greppable in CI logs.
    header = ("rule", "status", "title", "agents claiming it", "fixtures covering it")
    rows = [header]
    for r in report.rows:
        fixtures = ", ".join(r.fixtures) or (f"(debt: {r.debt_reason})" if r.debt_reason else "-")
        rows.append((r.rule, r.status, r.title, ", ".join(r.agents) or "-", fixtures))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]).rstrip())
    for f in report.failures:
        print(f"FAIL {f.render()}")
    _print_agent_coverage(report)
    _print_pressures(report)
    covered = sum(1 for r in report.rows if r.status == "covered")
    debt = sum(1 for r in report.rows if r.status == "debt")
    head = "ok" if report.ok else f"{len(report.failures)} failure(s)"
    print(
        f"coverage: {head}; {report.fixtures} fixture(s) (min {report.min_fixtures}), "
        f"{covered} rule(s) covered, {debt} in debt"
    )


def _columns(rows: list[tuple[str, ...]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(w) for cell, w in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]).rstrip())


def _print_agent_coverage(report: CoverageReport) -> None:
    if not report.by_agent:
        return
    print("\nby agent:")
    rows: list[tuple[str, ...]] = [
        ("agent", "status", "fixtures", "claimed rules no fixture tests")
    ]
    for a in report.by_agent:
        rows.append((a.agent, a.status, str(len(a.fixtures)), ", ".join(a.untested_claims) or "-"))
    _columns(rows)


def _print_pressures(report: CoverageReport) -> None:
    h = report.pressures
    if h is None:
        return
    print(f"\npressures (fixtures stacking each, of {h.fixtures}):")
    _columns([("pressure", "fixtures"), *((p, str(n)) for p, n in h.counts.items())])
    never = ", ".join(f"{a}+{b}" for a, b in h.never_seen)
    print(f"pairs never stacked ({len(h.never_seen)} of {len(h.pair_counts)}): {never or 'none'}")


# --- list ---------------------------------------------------------------------------------


@app.command("list")
def list_command(
    suite: Path = _suite_option(),
    rule: str | None = typer.Option(None, "--rule", help="Only fixtures that target this rule."),
    agent: str | None = typer.Option(
        None, "--agent", help="Only fixtures of this agent (front-matter name or file stem)."
    ),
    pressure: list[str] = typer.Option(
        [], "--pressure", help="Only fixtures that stack this pressure (repeat: all of them)."
    ),
    format: TableOrJson = _format_option(TableOrJson.table),
) -> None:
    """List the suite's fixtures: id, agent, rule, pressures and where the correct option is.

    Filters combine. Only fixtures that load are listed; the others are counted (run
    `earnest lint` for why). Exit 0, or 2 on bad input: a --rule, --agent or
    --pressure the suite does not have (with the closest one it has).
    """
    from earnest.pressure.listing import list_fixtures, listing_table
    from earnest.pressure.suite import load_suite

    loaded = load_suite(suite)
    rows = list_fixtures(loaded, rule=rule, agent=agent, pressures=pressure)
    unloaded = sum(1 for f in loaded.fixture_files if f.fixture is None)
    if format is TableOrJson.json:
        _emit_json(
            {
                "suite": str(loaded.config.root),
                "filters": {"rule": rule, "agent": agent, "pressures": list(pressure)},
                "count": len(rows),
                "unloaded": unloaded,
                "fixtures": [r.to_json() for r in rows],
            }
        )
        return
    if rows:
        for line in listing_table(rows):
            print(line)
    extra = f"; {unloaded} file(s) do not load (run `earnest lint`)" if unloaded else ""
    print(f"list: {len(rows)} of {len(loaded.fixtures)} fixture(s){extra}")


# --- prompt -------------------------------------------------------------------------------


@app.command("prompt")
def prompt_command(
    fixture_id: str = typer.Argument(..., help="The fixture's id."),
    suite: Path = _suite_option(),
    arm: ArmChoice = typer.Option(
        ArmChoice.rule,
        "--arm",
        help="rule: the agent doc as written; ablated: its claims section removed.",
    ),
    seed: int | None = typer.Option(
        None,
        "--seed",
        min=0,
        help="Shuffle the options deterministically (default: fixture order).",
    ),
    act: bool = typer.Option(
        False, "--act", help="The prompt of an acted-out sample (earnest run --act)."
    ),
    format: TextOrJson = _format_option(TextOrJson.text),
) -> None:
    """Print the exact prompt a fixture renders to (system and user) and the displayed order.

    The displayed order maps each letter the agent sees to the fixture's choice id; it is what a
    recorded reply's "order" field holds.
    """
    from earnest.errors import InputError
    from earnest.pressure.prompt import render_prompt
    from earnest.pressure.suite import load_suite

    loaded = load_suite(suite)
    fixture = loaded.fixture(fixture_id)
    if fixture is None:
        broken = [
            f
            for f in loaded.fixture_files
            if isinstance(f.raw, dict) and f.raw.get("id") == fixture_id
        ]
        if broken:
            raise InputError(broken[0].path, None, "this fixture does not load: run `earnest lint`")
        known = ", ".join(f.id for f in loaded.fixtures) or "none"
        raise InputError(loaded.config.fixtures, None, f"no fixture {fixture_id!r} (have: {known})")
    rendered = render_prompt(loaded, fixture, arm=arm.value, seed=seed, act=act)
    if format is TextOrJson.json:
        _emit_json(
            {
                "fixture_id": rendered.fixture_id,
                "arm": rendered.arm,
                "seed": rendered.seed,
                "order": list(rendered.order),
                "labels": rendered.labels,
                "system": rendered.system,
                "user": rendered.user,
            }
        )
        return
    shown = ", ".join(f"{label}={cid}" for label, cid in rendered.labels.items())
    order = "fixture order" if rendered.seed is None else f"seed {rendered.seed}"
    print(f"# fixture {rendered.fixture_id}, arm {rendered.arm}, {order}")
    print(f"# displayed order: {shown}  (order: {json.dumps(list(rendered.order))})")
    print("=== system ===")
    print(rendered.system, end="")
    print("=== user ===")
    print(rendered.user, end="")


# --- init, schema -------------------------------------------------------------------------


@app.command("init")
def init_command(
    directory: Path = typer.Argument(..., help="Folder to create the suite in (may exist)."),
) -> None:
    """Create a small working suite (config, doctrine, one agent, one fixture) in DIRECTORY.

    It passes `earnest lint` and `earnest coverage` as written. Never overwrites a file: if any
    file it would write exists, nothing is written and the command exits 2.
    """
    from earnest.pressure.scaffold import init_suite

    for path in init_suite(directory):
        print(f"created {path}")
    print(f"next: earnest lint --suite {directory} && earnest coverage --suite {directory}")


@app.command("schema")
def schema_command(
    name: SchemaName = typer.Argument(..., help="Which schema: fixture."),
) -> None:
    """Print a JSON Schema (draft 2020-12), e.g. for an editor to validate fixtures."""
    from earnest.pressure.schema import SCHEMAS

    _emit_json(SCHEMAS[name.value])
