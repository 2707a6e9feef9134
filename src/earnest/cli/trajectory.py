"""Trajectory commands: ``earnest trajectory convert``, ``score``, ``aggregate`` and ``replay-gate``.

Reading problems never stop a command: each is printed on stderr as
``warning: file:line: message``, followed by a one-line summary. Exit 2 when nothing
readable was found, a path does not exist or an option is wrong.
"""

from __future__ import annotations

import contextlib
import enum
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import typer

from earnest.cli import app
from earnest.cli.otel import OtelEndpointOpt, OtelOpt, close_sink, open_sink, send_trajectories
from earnest.cli.output import NoRedactOpt, guard_output, redaction
from earnest.errors import InputError
from earnest.files import KeepOld, atomic_writer

if TYPE_CHECKING:
    from earnest.trajectory import Battery, ReadReport, Trajectory

trajectory_app = typer.Typer(
    name="trajectory",
    help=(
        "Agent trajectories: read real agent logs (Claude Code, Codex, Gemini CLI, OpenHands, "
        "SWE-agent, tau-bench, ATIF, ...) into one normalized model; score them and replay "
        "the effect gate over them."
    ),
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(trajectory_app, name="trajectory")

_OUTPUT_FORMATS = ("jsonl", "json")


def _input_format_option() -> Any:
    return typer.Option(
        None,
        "--input-format",
        help="Read every file as this format instead of detecting it (see docs/formats.md).",
    )


def _shard_option() -> Any:
    return typer.Option(
        None,
        "--shard",
        metavar="I/N",
        help="Score only shard I of N (1 <= I <= N): every N-th file of the sorted file list, "
        "from the I-th. Combine the shards' --format jsonl results with "
        "`earnest trajectory aggregate`.",
    )


def _fail_over_option() -> Any:
    return typer.Option(
        None,
        "--fail-over",
        metavar="RATE",
        help="Exit 1 when the completion-without-effect rate (over all trajectories) "
        "exceeds RATE, a fraction between 0 and 1 (e.g. 0.05).",
    )


def _tool_option() -> Any:
    return typer.Option(
        None,
        "--tool",
        metavar="NAME=CLASS",
        help="Declare one of your own tools (repeatable): NAME=state_change (an effect), "
        "NAME=read (grounds an answer, never an effect) or NAME=check (a verified check when it "
        "succeeds), or any earnest tool kind. Over [effects.tools] of --config. A tool declared "
        "nowhere counts as a read.",
        show_default=False,
    )


def _config_option() -> Any:
    return typer.Option(
        None,
        "--config",
        help="The earnest.toml (or pyproject.toml, or a folder with one) whose [effects.tools] "
        "and unknown_shell declare your tools. Default: the current directory's, if any.",
        show_default=False,
    )


def _declarations(config: Path | None, tools: list[str] | None) -> Any:
    """The tool declarations of ``--config`` (default: the current folder) and ``--tool``."""
    from earnest.effects.config import tool_declarations

    return tool_declarations(config if config is not None else Path.cwd(), tools or ())


def _report_output_option() -> Any:
    return typer.Option(
        None, "--output", "-o", help="Write the report to FILE (atomically) instead of stdout."
    )


@trajectory_app.command("convert")
def convert(
    paths: list[Path] = typer.Argument(
        ...,
        help="Transcript files or directories (searched recursively for *.jsonl, *.json, *.traj).",
        show_default=False,
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write here (atomically) instead of stdout."
    ),
    format: str = typer.Option(
        "jsonl", "--format", help="Output shape: jsonl (one trajectory per line) or json (array)."
    ),
    input_format: str | None = _input_format_option(),
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Print each file's detected format on stderr."
    ),
    no_redact: NoRedactOpt = False,
) -> None:
    """Convert agent logs into normalized trajectories (docs/formats.md, "Trajectories").

    Every file's format is detected from its first 64 KiB. Malformed lines are skipped and
    counted; the warnings go to stderr.
    """
    redaction(no_redact)
    from earnest.redact_stream import scrub_json
    from earnest.trajectory import ReadReport, detect_format, iter_paths, read_trajectories
    from earnest.trajectory.readers import READERS

    if format not in _OUTPUT_FORMATS:
        raise InputError(None, "--format", f"must be one of {', '.join(_OUTPUT_FORMATS)}")
    from earnest.cli.output import format_for

    format = format_for(ConvertFormat(format), output).value
    if input_format is not None and input_format not in READERS:
        raise InputError(None, "--input-format", f"unknown format; known: {', '.join(READERS)}")
    files = list(iter_paths(paths))
    guard_output(output, reads=files)
    report = ReadReport()
    written = 0

    def emit(handle: IO[str]) -> None:
        nonlocal written
        if format == "json":
            handle.write("[")
        for path in files:
            if verbose:
                detected = input_format or detect_format(path) or "unrecognised"
                print(f"{path}: {detected}", file=sys.stderr)
            for trajectory in read_trajectories(path, report=report, format=input_format):
                # Written and redacted in one pass, a bounded segment at a time: a long
                # session's line is never held whole (earnest.redact_stream).
                if format == "json":
                    handle.write("\n" if written == 0 else ",\n")
                handle.writelines(scrub_json(trajectory.to_dict()))
                if format == "jsonl":
                    handle.write("\n")
                written += 1
        if format == "json":
            handle.write("\n]\n" if written else "]\n")

    if output is None:
        stdout = open(  # noqa: SIM115 - wraps the process's stdout, closed by the process
            sys.stdout.fileno(), "w", encoding="utf-8", errors="backslashreplace", closefd=False
        )
        with contextlib.suppress(BrokenPipeError):
            emit(stdout)
            stdout.flush()
    else:
        with atomic_writer(output, errors="backslashreplace") as handle:
            emit(handle)
            if written == 0:
                raise KeepOld
    for line in report.lines():
        print(f"warning: {line}", file=sys.stderr)
    print(_summary(report, written, len(files)), file=sys.stderr)
    if written == 0:
        where = ", ".join(str(p) for p in paths)
        raise InputError(where, None, "no readable trajectory found")


class ConvertFormat(enum.StrEnum):
    jsonl = "jsonl"
    json = "json"


class ScoreFormat(enum.StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    junit = "junit"
    parquet = "parquet"


class ReplayFormat(enum.StrEnum):
    table = "table"
    json = "json"


_PATHS_HELP = "Transcript files or directories (searched recursively for *.jsonl, *.json, *.traj)."


@trajectory_app.command("score")
def score(
    paths: list[Path] = typer.Argument(..., help=_PATHS_HELP, show_default=False),
    dimensions: list[str] | None = typer.Option(
        None,
        "--dimensions",
        "-d",
        help="Dimensions to score, comma-separated or repeated: planning, tool_grounding, "
        "recovery, refusal, effect_grounding, 'default' (the first four) or 'all'. "
        "Default: the default scorers (effect_grounding is opt-in). The "
        "completion-without-effect outcome is always computed.",
        show_default=False,
    ),
    fmt: ScoreFormat = typer.Option(
        ScoreFormat.table,
        "--format",
        help="table (terminal), json ({battery, trajectories}), jsonl (one object per "
        "trajectory), junit (XML for CI: a completion without effect fails) or parquet "
        "(one row per trajectory, needs --output and pyarrow: earnest[parquet]).",
        case_sensitive=False,
    ),
    fail_over: float | None = _fail_over_option(),
    max_downgrades: int = typer.Option(
        2, "--max-downgrades", help="The replayed gate's downgrade budget per run.", min=0
    ),
    strict_claims: bool = typer.Option(
        True,
        "--strict-claims/--no-strict-claims",
        help="Check the final message's claims (tests pass, N/N passed, ran X) against the "
        "run's tool calls, the last test run's printed summary and whether it ran after the "
        "last change: the claims field (on by default; --no-strict-claims turns it off).",
    ),
    input_format: str | None = _input_format_option(),
    tools: list[str] | None = _tool_option(),
    config_file: Path | None = _config_option(),
    output: Path | None = _report_output_option(),
    no_redact: NoRedactOpt = False,
    shard: str | None = _shard_option(),
    jobs: int | None = typer.Option(
        None,
        "--jobs",
        "-j",
        min=1,
        help="Score in N processes (default: the cores this process may use). The output is "
        "the same, byte for byte, in input order, whatever N.",
        show_default=False,
    ),
    dask: str | None = typer.Option(
        None,
        "--dask",
        metavar="ADDRESS",
        help="Score on a Dask cluster: its scheduler's address (tcp://HOST:8786), or local / "
        "local:N for N worker processes here. The workers read the files from the same "
        "absolute paths (docs/guides/dask.md); the output is that of --jobs 1. Needs "
        "earnest[dask].",
        show_default=False,
    ),
    otel: OtelOpt = False,
    otel_endpoint: OtelEndpointOpt = None,
) -> None:
    """Score recorded agent runs and measure how often "done" had no effect.

    Each trajectory gets its dimension scores (each criterion judged separately, with its
    reason), a confidence-weighted aggregate, and an outcome: backed,
    completion_without_effect (it ended normally claiming completion, and the effect gate
    replayed over it would downgrade that claim), no_claim, or abnormal (API error, limit,
    turn cap, interrupt: never "done"). The battery summary gives per-dimension means with
    95% intervals and the completion-without-effect rate with a Wilson interval.

    The gate is replayed without a workspace (the recorded files are not here): file
    changes reported by the agent's tools count, unverified.

    Your own tools (cancel_reservation, send_invoice) are unknown to earnest: declare them
    with --tool NAME=state_change|read|check or in [effects.tools]; an undeclared tool counts
    as a read (it grounds an answer but is never an effect).

    --otel also sends each trajectory's outcome as an OpenTelemetry gen_ai.evaluation.result
    event (docs/formats.md); a failed export is a warning and changes no exit status.

    Exit status: 0 scored, 1 the rate exceeds --fail-over, 2 bad input or nothing readable.
    """
    redaction(no_redact)
    from earnest.cli.jobs import capped_jobs
    from earnest.cli.output import format_for
    from earnest.parallel import default_jobs
    from earnest.redact import scrub
    from earnest.trajectory import Battery, ReadReport, scorers_for
    from earnest.trajectory.parallel import BatchScore, ScoreConfig, score_files

    fmt = format_for(fmt, output, param="fmt")
    _check_fraction(fail_over)
    names = [part for item in dimensions or ["default"] for part in item.split(",")]
    try:
        scorers = scorers_for(names)
    except ValueError as exc:
        raise InputError(None, "--dimensions", str(exc)) from None
    if not scorers and not any(n.strip() for n in names):
        raise InputError(None, "--dimensions", "no dimension named")
    files = _checked_files(paths, output, input_format)
    chosen = _sharded(files, shard)
    declared = _declarations(config_file, tools)
    config = ScoreConfig(
        tuple(names), max_downgrades, input_format, fmt.value, strict_claims, declared
    )
    if dask is not None and jobs is not None:
        raise InputError(None, "--jobs", "not with --dask: the cluster's workers score")
    workers = default_jobs() if jobs is None else capped_jobs(jobs)

    def scored() -> Iterator[BatchScore]:
        if dask is None:
            return score_files(chosen, config, workers)
        from earnest.trajectory.distributed import score_files_at

        return score_files_at(dask, chosen, config)

    # jsonl and json stream: each result is written (or spooled) as its batch arrives and the
    # battery holds counts only; a table or JUnit lists every trajectory, so keeps them.
    streaming = fmt in (ScoreFormat.jsonl, ScoreFormat.json, ScoreFormat.parquet)
    battery = Battery(keep_results=not streaming)
    report = ReadReport()
    sink = open_sink(otel, otel_endpoint)

    def emit(handle: IO[str]) -> None:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="backslashreplace") as spool:
            elements = 0
            for batch in scored():
                report.merge(batch.report)
                battery.tally.merge(batch.tally)
                battery.results.extend(batch.results)
                send_trajectories(sink, batch)
                if fmt is ScoreFormat.jsonl:
                    handle.writelines(scrub(text) for text in batch.texts)
                for text in batch.texts if fmt is ScoreFormat.json else ():
                    spool.write((",\n" if elements else "") + scrub(text))
                    elements += 1
            _finish_reading(report, battery.total, len(chosen), paths, empty_ok=not chosen)
            if fmt is ScoreFormat.json:
                from earnest.report.trajectory import write_score_json

                spool.seek(0)
                write_score_json(handle, battery.summary(), spool, elements)
        # The report (and Rich with it) only for the formats it renders: start-up (issue 27).
        if fmt is ScoreFormat.junit:
            from earnest.report.trajectory import score_junit

            handle.write(scrub(score_junit(battery)))
        elif fmt is ScoreFormat.table:
            from earnest.report.trajectory import render_score_table

            table = _rendered(
                lambda console: render_score_table(battery, console), screen=output is None
            )
            handle.write(scrub(table))

    if fmt is ScoreFormat.parquet:
        if output is None:
            raise InputError(None, "--format", "parquet is binary: give --output FILE")
        from earnest.parquet import TRAJECTORY_COLUMNS, ParquetRows, trajectory_row

        with ParquetRows(output, TRAJECTORY_COLUMNS) as rows:
            for batch in scored():
                report.merge(batch.report)
                battery.tally.merge(batch.tally)
                send_trajectories(sink, batch)
                for text in batch.texts:
                    rows.add(trajectory_row(json.loads(text)))
            _finish_reading(report, battery.total, len(chosen), paths, empty_ok=not chosen)
    elif output is None:
        stdout = open(  # noqa: SIM115 - wraps the process's stdout, closed by the process
            sys.stdout.fileno(), "w", encoding="utf-8", errors="backslashreplace", closefd=False
        )
        with contextlib.suppress(BrokenPipeError):
            emit(stdout)
            stdout.flush()
    else:
        with atomic_writer(output, errors="backslashreplace") as handle:
            emit(handle)
    close_sink(sink)
    _check_fail_over(battery, fail_over)


class AggregateFormat(enum.StrEnum):
    table = "table"
    json = "json"


@trajectory_app.command("aggregate")
def aggregate(
    results: list[Path] = typer.Argument(
        ...,
        metavar="RESULTS.jsonl...",
        help="Per-trajectory results written by `earnest trajectory score --format jsonl` "
        "(e.g. one file per --shard).",
        show_default=False,
    ),
    fmt: AggregateFormat = typer.Option(
        AggregateFormat.table,
        "--format",
        help="table (terminal) or json ({battery}, the battery of `score --format json`).",
        case_sensitive=False,
    ),
    fail_over: float | None = _fail_over_option(),
    output: Path | None = _report_output_option(),
) -> None:
    """Rebuild the battery summary from per-trajectory results, e.g. of shards.

    Rates, Wilson and t intervals, outcome, termination and per-format counts come out
    exactly as if every trajectory had been scored in one run. A record that is not a
    `trajectory score` result, or a trajectory counted twice, stops with the file and line.

    Exit status: 0 aggregated, 1 the rate exceeds --fail-over, 2 bad input.
    """
    from earnest.report.trajectory import render_battery_summary
    from earnest.trajectory.aggregate import aggregate_results

    _check_fraction(fail_over)
    from earnest.cli.output import format_for

    for path in results:
        if not path.is_file():
            raise InputError(path, None, "no such file")
    guard_output(output, reads=results)
    fmt = format_for(fmt, output, param="fmt")
    battery = aggregate_results(results)
    print(
        f"earnest: {battery.total} trajectory results from {len(results)} files",
        file=sys.stderr,
    )
    if fmt is AggregateFormat.json:
        text = json.dumps({"battery": battery.summary()}, indent=2, ensure_ascii=False) + "\n"
    elif output is None:
        text = _rendered(lambda console: render_battery_summary(battery, console), screen=True)
    else:
        text = _rendered(lambda console: render_battery_summary(battery, console))
    _emit(text, output)
    _check_fail_over(battery, fail_over)


def _check_fraction(fail_over: float | None) -> None:
    if fail_over is not None and not 0.0 <= fail_over <= 1.0:
        raise InputError(None, "--fail-over", f"must be a fraction from 0 to 1, got {fail_over}")


def _check_fail_over(battery: Battery, fail_over: float | None) -> None:
    rate = battery.cwe_rate
    if fail_over is not None and rate > fail_over:
        print(
            f"earnest: completion-without-effect rate {rate:.1%} "
            f"({battery.completions_without_effect}/{battery.total}) exceeds --fail-over "
            f"{fail_over:.1%}",
            file=sys.stderr,
        )
        raise typer.Exit(1)


def _sharded(files: list[Path], shard: str | None) -> list[Path]:
    if shard is None:
        return files
    from earnest.shards import parse_shard

    chosen = parse_shard(shard)
    assert chosen is not None
    picked = chosen.files(files)
    print(f"earnest: shard {chosen}: {len(picked)} of {len(files)} files", file=sys.stderr)
    return picked


@trajectory_app.command("replay-gate")
def replay_gate(
    paths: list[Path] = typer.Argument(..., help=_PATHS_HELP, show_default=False),
    fmt: ReplayFormat = typer.Option(
        ReplayFormat.table,
        "--format",
        help="table (terminal) or json ({summary, trajectories}).",
        case_sensitive=False,
    ),
    max_downgrades: int = typer.Option(
        2, "--max-downgrades", help="The gate's downgrade budget per run.", min=0
    ),
    strict_claims: bool = typer.Option(
        True,
        "--strict-claims/--no-strict-claims",
        help="The gate also checks what the final message claims (files, commands, tests "
        "pass, N/N passed against the last test run's summary, a run after the last change): "
        "unverified-claim (on by default; --no-strict-claims turns it off).",
    ),
    input_format: str | None = _input_format_option(),
    tools: list[str] | None = _tool_option(),
    config_file: Path | None = _config_option(),
    output: Path | None = _report_output_option(),
    no_redact: NoRedactOpt = False,
) -> None:
    """Replay the effect gate over recorded runs: what would turning it on have done?

    Every user prompt starts a run (the gate is reset). The run's tool calls are recorded
    turn by turn, and the gate is applied wherever the agent claimed completion: where a
    stop hook sent it back to work, and at the end of a run where it had the last word
    (runs that ended in an API error, a limit, the turn cap or an interrupt claimed
    nothing). Reports the completions it would have downgraded, how often its budget ran
    out, and why.

    No workspace: the recorded files are not on this machine, so the gate runs with
    verify_artifacts=False and file changes reported by the agent's tools count,
    unverified. The replayed gate ignores EARNEST_EFFECT_GATE. Your own tools are declared
    as for `trajectory score` (--tool, [effects.tools]).

    Exit status: 0 replayed, 2 bad input or nothing readable.
    """
    redaction(no_redact)
    from earnest.cli.output import format_for
    from earnest.report.trajectory import render_replay_table, replay_json
    from earnest.trajectory import ReplayTally, TrajectoryReplay, replay_trajectory

    fmt = format_for(fmt, output, param="fmt")
    registry = _declarations(config_file, tools).registry()
    files = _checked_files(paths, output, input_format)
    tally = ReplayTally(max_downgrades)
    replays: list[TrajectoryReplay] = []

    def take(t: Trajectory) -> None:
        replay = replay_trajectory(
            t, max_downgrades=max_downgrades, registry=registry, strict_claims=strict_claims
        )
        tally.add(replay)
        replays.append(replay)

    report = _read_all(files, input_format, take)
    _finish_reading(report, tally.trajectories, len(files), paths)
    if fmt is ReplayFormat.json:
        text = json.dumps(replay_json(tally, replays), indent=2, ensure_ascii=False) + "\n"
    elif output is None:
        text = _rendered(lambda console: render_replay_table(tally, replays, console), screen=True)
    else:
        text = _rendered(lambda console: render_replay_table(tally, replays, console))
    _emit(text, output)


def _checked_files(paths: list[Path], output: Path | None, input_format: str | None) -> list[Path]:
    from earnest.trajectory import iter_paths
    from earnest.trajectory.readers import READERS

    if input_format is not None and input_format not in READERS:
        raise InputError(None, "--input-format", f"unknown format; known: {', '.join(READERS)}")
    files = list(iter_paths(paths))
    guard_output(output, reads=files)
    return files


def _read_all(
    files: list[Path], input_format: str | None, take: Callable[[Trajectory], None]
) -> ReadReport:
    """Stream every trajectory of ``files`` into ``take`` (none is kept here)."""
    from earnest.trajectory import ReadReport, read_trajectories

    report = ReadReport()
    for path in files:
        for trajectory in read_trajectories(path, report=report, format=input_format):
            take(trajectory)
    return report


def _finish_reading(
    report: ReadReport, count: int, files: int, paths: list[Path], *, empty_ok: bool = False
) -> None:
    """Warnings and the reading summary; nothing readable is an error (``empty_ok``: a shard
    that was given no file at all, which still writes its empty results)."""
    for line in report.lines():
        print(f"warning: {line}", file=sys.stderr)
    print(_summary(report, count, files), file=sys.stderr)
    if count == 0 and not empty_ok:
        where = ", ".join(str(p) for p in paths)
        raise InputError(where, None, "no readable trajectory found")


def _rendered(render: Callable[[Any], None], *, screen: bool = False) -> str:
    import io

    from earnest.cli.output import screen_console
    from earnest.report.console import plain_console

    buffer = io.StringIO()
    console = screen_console(buffer) if screen else plain_console(buffer)
    render(console)
    return buffer.getvalue()


def _emit(text: str, output: Path | None) -> None:
    if output is not None:
        from earnest.cli.output import write_output

        write_output(output, text)
    elif text:
        from earnest.redact import scrub

        stdout = open(  # noqa: SIM115 - wraps the process's stdout, closed by the process
            sys.stdout.fileno(), "w", encoding="utf-8", errors="backslashreplace", closefd=False
        )
        with contextlib.suppress(BrokenPipeError):
            stdout.write(scrub(text))
            stdout.flush()


def _summary(report: ReadReport, written: int, files: int) -> str:
    formats = ", ".join(f"{name} {count}" for name, count in sorted(report.formats.items()))
    parts = [
        f"earnest: {written} trajectories from {report.files_read} of {files} files"
        + (f" ({formats})" if formats else ""),
        f"{report.skipped_lines} lines skipped",
    ]
    if report.files_skipped:
        parts.append(f"{report.files_skipped} files not transcripts")
    return "; ".join(parts)


__all__ = ["trajectory_app"]
