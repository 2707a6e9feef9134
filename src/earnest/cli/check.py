"""``earnest check``: the CI entry point for a suite."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from earnest.cli import app
from earnest.cli.otel import OtelEndpointOpt, OtelOpt, close_sink, open_sink, suite_otel
from earnest.cli.output import NoRedactOpt, redaction
from earnest.cli.pressure import SUITE_HELP

if TYPE_CHECKING:
    from earnest.pressure.check import CheckResult


class CheckFormat(StrEnum):
    table = "table"
    json = "json"
    junit = "junit"


@app.command("check")
def check_command(
    suite: Path = typer.Option(Path("."), "--suite", "-s", help=SUITE_HELP, show_default=True),
    format: CheckFormat = typer.Option(
        CheckFormat.table, "--format", "-f", help="table, json or junit (docs/formats.md)."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the report to FILE instead of standard output."
    ),
    no_redact: NoRedactOpt = False,
    no_citation: bool = typer.Option(
        False,
        "--no-citation",
        help='Choice-only: citations are recorded but never fail a reply (citation = "optional").',
    ),
    otel: OtelOpt = False,
    otel_endpoint: OtelEndpointOpt = None,
) -> None:
    """Lint, coverage, and scoring of the suite's recorded replies, in one command: the CI entry point.

    Fails (exit 1) on any lint error, any coverage failure, or any recorded reply outside the
    ablated arm that does not pass. Ablated-arm replies are the RED baseline (the rule removed):
    they are scored and shown, and expected to fail. Exit 2 on bad input.

    --otel (or EARNEST_OTEL=1 in the environment; never the suite's [otel] table) also sends each recorded reply's verdict as an
    OpenTelemetry gen_ai.evaluation.result event; a failed export changes no exit status.
    """
    redaction(no_redact)
    import io

    from earnest.cli.output import emit, format_for, guard_output, screen_console
    from earnest.pressure.check import run_check
    from earnest.pressure.lint import lint_json
    from earnest.pressure.suite import load_suite, with_citation
    from earnest.report.check import check_junit
    from earnest.report.console import plain_console
    from earnest.report.score import render_score_table, score_json

    loaded = with_citation(load_suite(suite), "optional" if no_citation else None)
    guard_output(output, suite=loaded)
    format = format_for(format, output)
    sink = open_sink(otel, otel_endpoint, suite_otel(loaded.config.raw, loaded.config.config_file))
    result = run_check(loaded)
    if sink is not None and result.score is not None:
        from earnest.otel.events import verdict_event

        for reply in result.score.replies:
            sink.emit(verdict_event(reply.as_dict()))
    errors = sum(1 for d in result.diagnostics if d.severity == "error")
    warnings = len(result.diagnostics) - errors

    if format is CheckFormat.json:
        doc = {
            "ok": result.ok,
            "reasons": result.reasons(),
            "citation": loaded.config.citation,
            "lint": lint_json(loaded, result.diagnostics),
            "coverage": {"suite": str(loaded.config.root), **result.coverage.to_json()},
            "replies": (
                score_json(result.score, files=[str(p) for p in result.reply_files])
                if result.score is not None
                else None
            ),
            "replies_error": result.replies_error,
            "gating_failures": len(result.gating_failures),
        }
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    elif format is CheckFormat.junit:
        text = check_junit(result, loaded)
    else:
        # The lint and coverage lines are plain text written as they are: passed through rich,
        # 100k findings took minutes to lay out. Only the bounded score table uses rich.
        head = _lint_and_coverage_text(result, errors, warnings)
        table = ""
        if result.score is not None:
            buffer = io.StringIO()
            console = plain_console(buffer) if output is not None else screen_console(buffer)
            render_score_table(result.score, console)
            table = buffer.getvalue()
        text = head + table + _summary_text(result)

    emit(text, output)
    close_sink(sink)
    raise typer.Exit(0 if result.ok else 1)


def _lint_and_coverage_text(result: CheckResult, errors: int, warnings: int) -> str:
    import contextlib
    import io

    from earnest.cli.pressure import _print_coverage

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("== lint")
        for d in result.diagnostics:
            print(f"{d.severity + ':':<8} {d.render()}")
        print(f"lint: {errors} error(s), {warnings} warning(s)")
        print("\n== coverage")
        _print_coverage(result.coverage)
        print("\n== recorded replies")
        if result.replies_error is not None:
            print(f"not scored: {result.replies_error}")
        elif result.score is None:
            print("no recorded replies configured ([suite] replies)")
    return buf.getvalue()


def _summary_text(result: CheckResult) -> str:
    lines = [""]
    if result.score is not None:
        ablated = sum(1 for r in result.score.replies if r.record.arm == "ablated")
        if ablated:
            lines.append(
                f"{ablated} ablated-arm reply(ies) scored as the RED baseline: they do not gate"
            )
    lines.append("check: ok" if result.ok else "check: FAILED: " + "; ".join(result.reasons()))
    return "\n".join(lines) + "\n"
