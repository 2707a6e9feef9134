"""``earnest score``: judge recorded replies against a suite."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from earnest.cli import app
from earnest.cli.otel import OtelEndpointOpt, OtelOpt, close_sink, open_sink, suite_otel
from earnest.cli.output import NoRedactOpt, redaction
from earnest.errors import InputError


class ScoreFormat(enum.StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    junit = "junit"
    parquet = "parquet"


def _size(replies: list[str]) -> int:
    """The replies files' total size in bytes (a file that cannot be read counts nothing:
    reading it says what is wrong)."""
    total = 0
    for name in replies:
        with contextlib.suppress(OSError):
            total += Path(name).stat().st_size
    return total


@app.command("score")
def score(
    replies: list[str] = typer.Argument(
        ...,
        metavar="REPLIES.jsonl",
        help="Recorded replies, JSONL with one sample per line "
        '({"fixture_id", "response", "model"?, "arm"?, "epoch"?, "order"?}); "-" reads stdin.',
        show_default=False,
    ),
    suite: Path = typer.Option(
        Path("."), "--suite", "-s", help="The suite folder (with earnest.toml).", show_default=True
    ),
    fmt: ScoreFormat = typer.Option(
        ScoreFormat.table,
        "--format",
        help="table (terminal), json ({summary, replies}), jsonl (one object per reply, "
        "in input order), junit (XML for CI) or parquet (one row per reply; needs --output "
        "and pyarrow: earnest[parquet]).",
        case_sensitive=False,
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
    shard: str | None = typer.Option(
        None,
        "--shard",
        metavar="I/N",
        help="Judge only shard I of N (1 <= I <= N): every N-th reply in input order, from "
        "the I-th. Combine the shards' --format jsonl results with `earnest aggregate`.",
    ),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        help="Judge in N processes; the output is the same, in input order, whatever N. "
        "Default: 1, or one per core but one when there are 4 or more cores and 32 MiB or "
        "more of replies (only there do processes pay).",
        show_default=False,
    ),
    otel: OtelOpt = False,
    otel_endpoint: OtelEndpointOpt = None,
) -> None:
    """Score recorded replies: one of five verdicts per reply, with the reason.

    Each reply is unwrapped from its agent-CLI or API envelope, parsed for its CHOICE line, mapped back through the displayed order and judged: the choice, then the citation of the targeted rule and of every must_cite string. Failures list the recorded rationalizations they used.

    Results are written as they are judged (jsonl, json) and only counts are kept, so memory
    stays flat however many replies there are.

    --otel (or EARNEST_OTEL=1 in the environment; never the suite's [otel] table) also sends each verdict as an OpenTelemetry
    gen_ai.evaluation.result event; a failed export is a warning and changes no exit status.

    Exit status: 0 every reply passed, 1 any did not (or there were none), 2 bad input.
    """
    redaction(no_redact)
    import io

    from earnest.cli.jobs import capped_jobs
    from earnest.cli.output import emit, format_for, guard_output, screen_console, streamed_output
    from earnest.otel.events import verdict_event
    from earnest.otel.export import tap
    from earnest.parallel import score_jobs
    from earnest.pressure.score import ScoreTally, iter_scored, score_replies
    from earnest.pressure.suite import load_suite, with_citation
    from earnest.report.console import plain_console
    from earnest.report.score import render_score_table, score_junit, stream_json, stream_jsonl
    from earnest.shards import parse_shard

    loaded = with_citation(load_suite(suite), "optional" if no_citation else None)
    # Overwriting an input is the worse mistake: say that before any format contradiction.
    guard_output(output, reads=[Path(r) for r in replies if r != "-"], suite=loaded)
    fmt = format_for(fmt, output, param="fmt")
    tally = ScoreTally(loaded.config.citation)
    share = parse_shard(shard)
    # Standard input is read as it arrives: a pipe reader expects each result as soon as its
    # reply is judged, which chunked workers would hold back. Files go parallel by default only
    # where it pays (earnest.parallel.score_jobs: many cores and much input); an explicit
    # --jobs is capped at the cores (earnest.cli.jobs).
    workers = jobs if jobs is not None else 1 if "-" in replies else score_jobs(_size(replies))
    workers = capped_jobs(workers)
    sink = open_sink(otel, otel_endpoint, suite_otel(loaded.config.raw, loaded.config.config_file))

    def judged() -> Iterator[Any]:
        # Each verdict is emitted as it is judged, beside the report (never instead of it).
        return tap(iter_scored(loaded, replies, share, workers), sink, event)

    def event(s: Any) -> Any:
        return verdict_event(s.as_dict())

    if fmt is ScoreFormat.parquet:
        from earnest.parquet import REPLY_COLUMNS, reply_row, write_rows

        if output is None:
            raise InputError(None, "--format", "parquet is binary: give --output FILE")

        def rows() -> Iterator[dict[str, Any]]:
            for s in judged():
                tally.add(s)
                yield reply_row(s.as_dict())

        write_rows(output, REPLY_COLUMNS, rows())
        result = tally.result()
        text = None
    elif fmt in (ScoreFormat.json, ScoreFormat.jsonl):
        with streamed_output(output) as out:
            scored = judged()
            if fmt is ScoreFormat.jsonl:
                stream_jsonl(scored, tally, out, flush=output is None)
            else:
                stream_json(scored, tally, out, files=replies, suite=str(suite))
        result = tally.result()
        text = None
    elif fmt is ScoreFormat.junit:
        result = score_replies(loaded, replies, share, workers)
        if sink is not None:
            for s in result.replies:
                sink.emit(event(s))
        text = score_junit(result, loaded)
    else:
        # The table shows every failure: those are kept, passes only counted.
        kept = []
        for s in judged():
            tally.add(s)
            if not s.judgement.passed:
                kept.append(s)
        result = tally.result(kept)
        buffer = io.StringIO()
        if output is None:
            render_score_table(result, screen_console(buffer))
            text = buffer.getvalue()
        else:
            render_score_table(result, plain_console(buffer))
            text = buffer.getvalue()

    if text is not None:
        emit(text, output)
    close_sink(sink)

    if result.total == 0:
        typer.echo("earnest: no replies to score: nothing passed", err=True)
    raise typer.Exit(0 if result.all_passed else 1)
