"""Where a command's report goes: ``--output FILE`` (written atomically) or standard output.

A file that cannot be written is bad input naming it (exit 2), and the user's previous file
stays as it was.

Example:
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> emit("ok\\n", target); target.read_text()
    'ok\\n'
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import typer

from earnest.errors import InputError


def write_output(output: Path, text: str) -> None:
    """``text`` to ``output`` through a temporary file; a failure is an :class:`InputError`."""
    from earnest.report.junit import write_text_atomic

    try:
        write_text_atomic(output, text)
    except OSError as exc:
        raise InputError(output, None, f"cannot write: {exc.strerror}") from None


def emit(text: str, output: Path | None) -> None:
    """``text`` to ``output`` when given, else to standard output (nothing when empty)."""
    if output is not None:
        write_output(output, text)
    elif text:
        typer.echo(text, nl=False)


@contextmanager
def streamed_output(output: Path | None) -> Iterator[TextIO]:
    """A stream to write a report into as it is made: standard output, or a temporary file
    beside ``output`` that replaces it only when the block ends without an error (so a failed
    run never leaves a half-written report where the user's file was)."""
    if output is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{output.name}.", dir=output.parent or ".")
    except OSError as exc:
        raise InputError(output, None, f"cannot write: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            yield fh
        os.replace(tmp, output)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(output, None, f"cannot write: {exc.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["emit", "streamed_output", "write_output"]
