"""``earnest aggregate``: the ``earnest score`` summary rebuilt from per-reply results."""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path

import typer

from earnest.cli import app
from earnest.errors import InputError


class AggregateFormat(enum.StrEnum):
    table = "table"
    json = "json"


@app.command("aggregate")
def aggregate(
    results: list[Path] = typer.Argument(
        ...,
        metavar="RESULTS.jsonl...",
        help="Per-reply results written by `earnest score --format jsonl` (e.g. one per --shard).",
        show_default=False,
    ),
    fmt: AggregateFormat = typer.Option(
        AggregateFormat.table,
        "--format",
        help="table (terminal) or json ({summary}, the summary of `score --format json`).",
        case_sensitive=False,
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the report to FILE instead of standard output."
    ),
) -> None:
    """Rebuild the score summary (verdict counts, pass rate and its Wilson interval) from
    per-reply results, e.g. of `earnest score --shard i/N` runs: exactly the summary of
    scoring every reply at once.

    Exit status: 0 every reply passed, 1 any did not (or there were none), 2 bad input.
    """
    from rich.console import Console

    from earnest.cli.output import emit, format_for, guard_output
    from earnest.pressure.aggregate import aggregate_replies
    from earnest.report.verdict_summary import render_verdict_summary, rendered

    for path in results:
        if not path.is_file():
            raise InputError(path, None, "no such file")
    guard_output(output, reads=results)
    fmt = format_for(fmt, output, param="fmt")
    tally = aggregate_replies(results)
    print(f"earnest: {tally.total} scored replies from {len(results)} files", file=sys.stderr)
    if fmt is AggregateFormat.json:
        summary = tally.summary()
        summary["results"] = [str(p) for p in results]
        text = json.dumps({"summary": summary}, indent=2, ensure_ascii=False) + "\n"
    elif output is None:
        render_verdict_summary(tally, Console(highlight=False))
        text = ""
    else:
        text = rendered(lambda console: render_verdict_summary(tally, console))
    emit(text, output)
    raise typer.Exit(0 if tally.all_passed else 1)
