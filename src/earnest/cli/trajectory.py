"""Trajectory commands: ``earnest trajectory convert`` (``score`` and ``replay-gate`` join later).

Reading problems never stop a conversion: each is printed on stderr as
``warning: file:line: message``, followed by a one-line summary. Exit 2 when nothing
readable was found or a path does not exist.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

import typer

from earnest.cli import app
from earnest.errors import InputError

if TYPE_CHECKING:
    from earnest.trajectory import ReadReport

trajectory_app = typer.Typer(
    name="trajectory",
    help=(
        "Agent trajectories: read real agent logs (Claude Code, Codex, Gemini CLI, OpenHands, "
        "SWE-agent, tau-bench, ATIF, ...) into one normalized model."
    ),
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(trajectory_app, name="trajectory")

_OUTPUT_FORMATS = ("jsonl", "json")


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
    input_format: str | None = typer.Option(
        None,
        "--input-format",
        help="Read every file as this format instead of detecting it (see docs/formats.md).",
    ),
    verbose: bool = typer.Option(
        False, "--verbose", "-v", help="Print each file's detected format on stderr."
    ),
) -> None:
    """Convert agent logs into normalized trajectories (docs/formats.md, "Trajectories").

    Every file's format is detected from its first 64 KiB. Malformed lines are skipped and
    counted; the warnings go to stderr.
    """
    from earnest.trajectory import ReadReport, detect_format, iter_paths, read_trajectories
    from earnest.trajectory.readers import READERS

    if format not in _OUTPUT_FORMATS:
        raise InputError(None, "--format", f"must be one of {', '.join(_OUTPUT_FORMATS)}")
    if input_format is not None and input_format not in READERS:
        raise InputError(None, "--input-format", f"unknown format; known: {', '.join(READERS)}")
    files = list(iter_paths(paths))
    if output is not None:
        target = output.resolve()
        if any(f.resolve() == target for f in files):
            raise InputError(
                output, None, "the output file is also an input; refusing to overwrite it"
            )
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
                line = json.dumps(trajectory.to_dict(), ensure_ascii=False)
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
        _write_atomically(output, emit, lambda: written > 0)
    for line in report.lines():
        print(f"warning: {line}", file=sys.stderr)
    print(_summary(report, written, len(files)), file=sys.stderr)
    if written == 0:
        where = ", ".join(str(p) for p in paths)
        raise InputError(where, None, "no readable trajectory found")


def _write_atomically(
    output: Path, emit: Callable[[IO[str]], None], keep: Callable[[], bool]
) -> None:
    """Write to a temporary file beside ``output``; replace ``output`` only on success."""
    directory = output.parent if str(output.parent) else Path(".")
    if not directory.is_dir():
        raise InputError(output, None, "the output directory does not exist")
    fd, temp = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".tmp", dir=directory)
    try:
        with open(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
            emit(handle)
        if keep():
            os.chmod(temp, _mode_for(output))
            os.replace(temp, output)
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


def _mode_for(output: Path) -> int:
    """Keep an existing file's mode; a new file gets the usual umask-derived mode."""
    if output.exists():
        return output.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


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
