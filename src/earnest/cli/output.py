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

from pathlib import Path

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


__all__ = ["emit", "write_output"]
