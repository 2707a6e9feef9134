"""``earnest report``: one self-contained HTML file (or its JSON data) for people to look at."""

from __future__ import annotations

import enum
from pathlib import Path

import typer

from earnest.cli import app
from earnest.cli.output import NoRedactOpt, redaction
from earnest.errors import InputError


class ReportFormat(enum.StrEnum):
    html = "html"
    json = "json"


@app.command("report")
def report_command(
    output: Path = typer.Option(
        ...,
        "--output",
        "-o",
        help="Write the report to FILE (e.g. report.html). Written whole or not at all.",
        show_default=False,
    ),
    suite: Path | None = typer.Option(
        None,
        "--suite",
        "-s",
        help="A suite folder (with earnest.toml): lint, coverage, and its recorded replies.",
        show_default=False,
    ),
    replies: list[Path] = typer.Option(
        [],
        "--replies",
        "-r",
        metavar="FILE.jsonl",
        help="Recorded replies to show instead of the suite's configured ones (repeatable; "
        "needs --suite).",
        show_default=False,
    ),
    run: str | None = typer.Option(
        None,
        "--run",
        metavar="RUN_ID",
        help="A live run in the run store (see `earnest runs list`).",
        show_default=False,
    ),
    store: Path = typer.Option(
        Path(".earnest") / "runs.db", "--store", help="The run store (SQLite) holding --run."
    ),
    compare: str | None = typer.Option(
        None,
        "--compare",
        metavar="BASELINE",
        help="Compare --run with BASELINE: a baseline file (`earnest baseline bless`) or a run "
        "id in the store. Flips, drops and new unparseable replies are shown, paired by "
        "fixture, profile, arm and epoch.",
        show_default=False,
    ),
    trajectories: list[Path] = typer.Option(
        [],
        "--trajectories",
        "-t",
        metavar="PATH",
        help="Agent transcripts (files or folders, any format `earnest trajectory score` "
        "reads) to score as a battery: completion without effect, dimension scores. "
        "Repeatable.",
        show_default=False,
    ),
    dimensions: list[str] = typer.Option(
        [],
        "--dimensions",
        "-d",
        help="Trajectory dimensions to score, as `earnest trajectory score --dimensions`: "
        "names, 'default' (the default) or 'all'.",
        show_default=False,
    ),
    strict_claims: bool = typer.Option(
        True,
        "--strict-claims/--no-strict-claims",
        help="Check the trajectories' final claims (tests pass, N/N passed, ran X) against "
        "their tool calls and the last test run's summary, as `trajectory score` does (on by "
        "default; --no-strict-claims turns it off).",
    ),
    fmt: ReportFormat = typer.Option(
        ReportFormat.html,
        "--format",
        "-f",
        help="html (one self-contained file) or json (the report's data: docs/formats.md).",
        case_sensitive=False,
    ),
    title: str | None = typer.Option(None, "--title", help="The report's title."),
    no_redact: NoRedactOpt = False,
) -> None:
    """Write a report people can read: one self-contained HTML file, no network needed.

    For a suite (--suite: lint, coverage and its recorded replies, or --replies), a live run
    (--run, with --suite to show the suite's lint and coverage too), a run compared with a
    baseline (--run --compare), a trajectory battery (--trajectories); or several at once.

    A verdict matrix (fixtures x profiles and arms), pass rates with their intervals, the
    ablation delta per rule, coverage by rule, the rationalizations observed, and every reply,
    openable with the prompt it answered; filters by verdict, fixture, profile and arm.

    The report shows what the checks decided; it does not gate. Exit status: 0 the report was
    written, 2 bad usage or bad input.
    """
    redaction(no_redact)
    import dataclasses
    import json
    from datetime import UTC, datetime

    from earnest import __version__
    from earnest.cli.output import format_for, guard_output, write_output
    from earnest.pressure.suite import load_suite
    from earnest.report.from_suite import suite_report
    from earnest.report.html import render_html
    from earnest.report.model import Report

    if suite is None and run is None and not trajectories:
        raise InputError(
            None,
            "--suite",
            "nothing to report: give --suite DIR (e.g. --suite examples/suite), --run RUN_ID "
            "or --trajectories PATH",
        )
    if replies and (suite is None or run is not None):
        raise InputError(
            None, "--replies", "needs --suite and no --run: replies are judged against a suite"
        )
    if compare is not None and run is None:
        raise InputError(None, "--compare", "needs --run: the run to compare with the baseline")
    inputs = [*replies, *trajectories]
    if run is not None:
        inputs += [
            store,
            store.with_name(store.name + "-wal"),
            store.with_name(store.name + "-shm"),
        ]
    if compare is not None:
        inputs.append(Path(compare))
    guard_output(output, reads=inputs, suite=load_suite(suite) if suite is not None else None)
    fmt = format_for(fmt, output, param="fmt")

    generated = datetime.now(UTC).isoformat(timespec="seconds")
    if run is not None:
        from earnest.report.from_run import run_report

        report = run_report(
            store,
            run,
            suite_dir=suite,
            baseline=compare,
            title=title,
            generated_at=generated,
            version=__version__,
        )
    elif suite is not None:
        report = suite_report(
            load_suite(suite),
            replies=replies or None,
            title=title,
            generated_at=generated,
            version=__version__,
        )
    else:
        report = Report(
            title=title or "earnest: trajectories", generated_at=generated, version=__version__
        )
    if trajectories:
        from earnest.report.from_trajectories import trajectory_section

        section, read = trajectory_section(
            trajectories,
            dimensions=[p for d in dimensions or ["default"] for p in d.split(",")],
            strict_claims=strict_claims,
        )
        for line in read.lines():
            typer.echo(f"warning: {line}", err=True)
        report = dataclasses.replace(
            report,
            trajectories=section,
            sources=(*report.sources, *(str(p) for p in trajectories)),
        )
    if fmt is ReportFormat.json:
        from earnest.report.htmlsafe import finite

        text = json.dumps(finite(report.to_json()), indent=2, ensure_ascii=False) + "\n"
    else:
        text = render_html(report)
    write_output(output, text)
    what = []
    if report.pressure is not None:
        what.append(f"{len(report.pressure.samples)} replies")
    if report.suite is not None:
        what.append(f"{report.suite.coverage.fixtures} fixtures")
    if report.comparison is not None:
        what.append(f"{report.comparison.regressions} regression(s) against the baseline")
    if report.trajectories is not None:
        t = report.trajectories
        what.append(f"{len(t.trajectories)} trajectories, {t.cwe_count} completed without effect")
    typer.echo(f"wrote {output}" + (f" ({', '.join(what)})" if what else ""))
