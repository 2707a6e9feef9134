"""Trajectory commands: ``earnest trajectory convert``, ``score`` and ``replay-gate``.

Reading problems never stop a command: each is printed on stderr as
``warning: file:line: message``, followed by a one-line summary. Exit 2 when nothing
readable was found, a path does not exist or an option is wrong.
"""

from __future__ import annotations

import contextlib
import enum
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import typer

from earnest.cli import app
from earnest.cli.output import NoRedactOpt, guard_output, redaction
from earnest.errors import InputError
from earnest.files import KeepOld, atomic_writer

if TYPE_CHECKING:
    from earnest.trajectory import ReadReport, Trajectory

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
    from earnest.redact import scrub
    from earnest.trajectory import ReadReport, detect_format, iter_paths, read_trajectories
    from earnest.trajectory.readers import READERS

    if format not in _OUTPUT_FORMATS:
        raise InputError(None, "--format", f"must be one of {', '.join(_OUTPUT_FORMATS)}")
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
                line = scrub(json.dumps(trajectory.to_dict(), ensure_ascii=False))
                if format == "json":
                    handle.write(("\n" if written == 0 else ",\n") + line)
                else:
                    handle.write(line + "\n")
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


class ScoreFormat(enum.StrEnum):
    table = "table"
    json = "json"
    jsonl = "jsonl"
    junit = "junit"


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
        "trajectory) or junit (XML for CI: a completion without effect fails).",
        case_sensitive=False,
    ),
    fail_over: float | None = typer.Option(
        None,
        "--fail-over",
        metavar="RATE",
        help="Exit 1 when the completion-without-effect rate (over all trajectories) "
        "exceeds RATE, a fraction between 0 and 1 (e.g. 0.05).",
    ),
    max_downgrades: int = typer.Option(
        2, "--max-downgrades", help="The replayed gate's downgrade budget per run.", min=0
    ),
    strict_claims: bool = typer.Option(
        False,
        "--strict-claims",
        help="Check the final message's claims (tests pass, N/N passed, ran X) against the "
        "run's tool calls and the last test run's printed summary: the claims field.",
    ),
    input_format: str | None = _input_format_option(),
    output: Path | None = _report_output_option(),
    no_redact: NoRedactOpt = False,
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

    Exit status: 0 scored, 1 the rate exceeds --fail-over, 2 bad input or nothing readable.
    """
    redaction(no_redact)

    from earnest.report.trajectory import (
        render_score_table,
        score_json,
        score_jsonl,
        score_junit,
    )
    from earnest.trajectory import Battery, score_trajectory, scorers_for

    if fail_over is not None and not 0.0 <= fail_over <= 1.0:
        raise InputError(None, "--fail-over", f"must be a fraction from 0 to 1, got {fail_over}")
    names = [part for item in dimensions or ["default"] for part in item.split(",")]
    try:
        scorers = scorers_for(names)
    except ValueError as exc:
        raise InputError(None, "--dimensions", str(exc)) from None
    if not scorers and not any(n.strip() for n in names):
        raise InputError(None, "--dimensions", "no dimension named")
    files = _checked_files(paths, output, input_format)
    battery = Battery()
    report = _read_all(
        files,
        input_format,
        lambda t: battery.add(
            score_trajectory(t, scorers, max_downgrades=max_downgrades, strict_claims=strict_claims)
        ),
    )
    _finish_reading(report, battery.total, len(files), paths)

    if fmt is ScoreFormat.json:
        text = json.dumps(score_json(battery), indent=2, ensure_ascii=False) + "\n"
    elif fmt is ScoreFormat.jsonl:
        text = "".join(line + "\n" for line in score_jsonl(battery))
    elif fmt is ScoreFormat.junit:
        text = score_junit(battery)
    elif output is None:
        text = _rendered(lambda console: render_score_table(battery, console), screen=True)
    else:
        text = _rendered(lambda console: render_score_table(battery, console))
    _emit(text, output)

    rate = battery.cwe_rate
    if fail_over is not None and rate > fail_over:
        print(
            f"earnest: completion-without-effect rate {rate:.1%} "
            f"({battery.completions_without_effect}/{battery.total}) exceeds --fail-over "
            f"{fail_over:.1%}",
            file=sys.stderr,
        )
        raise typer.Exit(1)


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
        False,
        "--strict-claims",
        help="The gate also checks what the final message claims (files, commands, tests "
        "pass, N/N passed against the last test run's summary): unverified-claim.",
    ),
    input_format: str | None = _input_format_option(),
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
    unverified. The replayed gate ignores EARNEST_EFFECT_GATE.

    Exit status: 0 replayed, 2 bad input or nothing readable.
    """
    redaction(no_redact)

    from earnest.report.trajectory import render_replay_table, replay_json
    from earnest.trajectory import ReplayTally, TrajectoryReplay, replay_trajectory

    files = _checked_files(paths, output, input_format)
    tally = ReplayTally(max_downgrades)
    replays: list[TrajectoryReplay] = []

    def take(t: Trajectory) -> None:
        replay = replay_trajectory(t, max_downgrades=max_downgrades, strict_claims=strict_claims)
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


def _finish_reading(report: ReadReport, count: int, files: int, paths: list[Path]) -> None:
    for line in report.lines():
        print(f"warning: {line}", file=sys.stderr)
    print(_summary(report, count, files), file=sys.stderr)
    if count == 0:
        where = ", ".join(str(p) for p in paths)
        raise InputError(where, None, "no readable trajectory found")


def _rendered(render: Callable[[Any], None], *, screen: bool = False) -> str:
    import io

    from rich.console import Console

    from earnest.cli.output import screen_console

    buffer = io.StringIO()
    console = (
        screen_console(buffer)
        if screen
        else Console(file=buffer, width=160, no_color=True, highlight=False)
    )
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
