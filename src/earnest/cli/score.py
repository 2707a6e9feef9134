"""``earnest score``: judge recorded replies against a suite."""

from __future__ import annotations

import enum
from pathlib import Path

import typer

from earnest.cli import app
from earnest.errors import InputError


class ScoreFormat(enum.StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    junit = "junit"
    parquet = "parquet"


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
        Path("."), "--suite", help="The suite folder (with earnest.toml).", show_default=True
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
        help="Judge in N processes (default: the cores this process may use); the output is "
        "the same, in input order, whatever N.",
        show_default=False,
    ),
) -> None:
    """Score recorded replies: one of five verdicts per reply, with the reason.

    Each reply is unwrapped from its agent-CLI or API envelope, parsed for its CHOICE line, mapped back through the displayed order and judged: the choice, then the citation of the targeted rule and of every must_cite string. Failures list the recorded rationalizations they used.

    Exit status: 0 every reply passed, 1 any did not (or there were none), 2 bad input.
    """
    import io
    import json

    from rich.console import Console

    from earnest.cli.output import emit
    from earnest.parallel import default_jobs
    from earnest.pressure.score import score_replies
    from earnest.pressure.suite import load_suite
    from earnest.report.score import render_score_table, score_json, score_jsonl, score_junit
    from earnest.shards import parse_shard

    if output is not None:
        target = output.resolve()
        for r in replies:
            if r != "-" and Path(r).resolve() == target:
                raise InputError(
                    output, None, "--output would overwrite a replies file being scored"
                )
        if output.is_dir():
            raise InputError(output, None, "--output is a folder, expected a file path")
        if not output.parent.exists():
            raise InputError(output, None, f"folder {output.parent} does not exist")

    loaded = load_suite(suite)
    result = score_replies(
        loaded, replies, parse_shard(shard), default_jobs() if jobs is None else jobs
    )

    if fmt is ScoreFormat.parquet:
        from earnest.parquet import REPLY_COLUMNS, reply_row, write_rows

        if output is None:
            raise InputError(None, "--format", "parquet is binary: give --output FILE")
        write_rows(output, REPLY_COLUMNS, (reply_row(r.as_dict()) for r in result.replies))
        raise typer.Exit(0 if result.all_passed else 1)
    if fmt is ScoreFormat.json:
        doc = score_json(result, files=replies, suite=str(suite))
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    elif fmt is ScoreFormat.jsonl:
        text = "".join(line + "\n" for line in score_jsonl(result))
    elif fmt is ScoreFormat.junit:
        text = score_junit(result, loaded)
    else:
        buffer = io.StringIO()
        if output is None:
            console = Console(highlight=False)
            render_score_table(result, console)
            text = ""
        else:
            render_score_table(
                result, Console(file=buffer, width=140, no_color=True, highlight=False)
            )
            text = buffer.getvalue()

    emit(text, output)

    if result.total == 0:
        typer.echo("earnest: no replies to score: nothing passed", err=True)
    raise typer.Exit(0 if result.all_passed else 1)
