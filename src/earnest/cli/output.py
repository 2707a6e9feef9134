"""Where a command's report goes: ``--output FILE`` (written atomically) or standard output.

``--output`` never replaces a file the command reads or the suite owns (its configuration,
doctrine, agent docs, fixtures and recorded replies): that is bad input, exit 2, and the file is
untouched. A file that cannot be written (a full disk, no permission) is bad input naming it,
and the user's previous file stays as it was. New files get the user's umask.

Example:
    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> emit("ok\\n", target); target.read_text()
    'ok\\n'
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from earnest.files import check_target, refuse_overwrite, write_text_atomic
from earnest.redact import configure, scrub

if TYPE_CHECKING:
    from rich.console import Console

    from earnest.pressure.models import Suite


def guard_output(
    output: Path | None, *, reads: Iterable[Path] = (), suite: Suite | None = None
) -> None:
    """Refuse (:class:`~earnest.errors.InputError`) an ``output`` that is a folder, in a missing
    folder, one of the files the command ``reads`` or one the ``suite`` owns."""
    if output is None:
        return
    check_target(output)
    refuse_overwrite(output, reads, "a file the command reads")
    if suite is not None:
        from earnest.pressure.owned import owned_files

        refuse_overwrite(output, owned_files(suite), "a file of the suite")


NoRedactOpt = Annotated[
    bool,
    typer.Option(
        "--no-redact",
        help="Write secrets (API keys, tokens) as read instead of [REDACTED:rule] "
        "(docs/formats.md, Redaction).",
    ),
]


def redaction(no_redact: bool) -> None:
    """Apply a command's ``--no-redact`` to every writer of this process."""
    configure(not no_redact)


def screen_console(buffer: io.StringIO) -> Console:
    """A console that renders into ``buffer`` as it would on standard output (colours on a
    terminal), so a table goes through :func:`emit`'s redaction like every other format."""
    from rich.console import Console

    return Console(file=buffer, highlight=False, force_terminal=sys.stdout.isatty() or None)


def write_output(output: Path, text: str) -> None:
    """``text`` (secrets redacted) to ``output`` through a temporary file; a failure is an
    ``InputError``."""
    write_text_atomic(output, scrub(text))


def emit(text: str, output: Path | None) -> None:
    """``text`` (secrets redacted) to ``output`` when given, else to standard output (nothing
    when empty)."""
    if output is not None:
        write_output(output, text)
    elif text:
        typer.echo(scrub(text), nl=False)


__all__ = ["NoRedactOpt", "emit", "guard_output", "redaction", "screen_console", "write_output"]
