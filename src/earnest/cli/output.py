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
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, TypeVar

import typer

from earnest.errors import InputError
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
    """Apply a command's ``--no-redact`` to every writer of this process; without it,
    ``EARNEST_NO_REDACT=1`` in the environment still turns redaction off (docs/formats.md)."""
    configure(False if no_redact else None)


def screen_console(buffer: io.StringIO) -> Console:
    """A console that renders into ``buffer`` as it would on standard output (colours on a
    terminal), so a table goes through :func:`emit`'s redaction like every other format."""
    from rich.console import Console

    from earnest.report.console import plain_console

    if sys.stdout.isatty():
        return Console(file=buffer, highlight=False, force_terminal=True)
    return plain_console(buffer)  # piped: full width, nothing cut (earnest.report.console)


F = TypeVar("F", bound=StrEnum)

EXTENSION_FORMATS = {
    ".json": "json",
    ".jsonl": "jsonl",
    ".xml": "junit",
    ".html": "html",
    ".parquet": "parquet",
    ".eval": "inspect",
}
"""What a report file's name says it holds: ``-o out.json`` means JSON, ``.xml`` JUnit XML,
``.parquet`` Parquet, ``.eval`` an Inspect log (never a text table in a binary format's name)."""


def _typed_on_command_line(name: str) -> bool:
    from typer._click.core import ParameterSource
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    return ctx is not None and ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE


def format_for(
    given: F, output: Path | None, *, param: str = "format", explicit: bool | None = None
) -> F:
    """The report format: ``--format`` when typed, else what ``output``'s extension says.

    ``-o out.json`` without ``--format`` writes JSON, not a table; ``--format json -o out.xml``
    contradicts itself and is refused, as is an extension this command cannot write.
    ``explicit`` says whether ``--format`` was typed (default: asked of the running command,
    whose option is named ``param``).

    Example:
        >>> from enum import StrEnum
        >>> class Fmt(StrEnum):
        ...     table = "table"
        ...     json = "json"
        >>> format_for(Fmt.table, Path("out.json"), explicit=False)
        <Fmt.json: 'json'>
        >>> format_for(Fmt.table, Path("out.txt"), explicit=False)
        <Fmt.table: 'table'>
    """
    if output is None:
        return given
    implied = EXTENSION_FORMATS.get(output.suffix.lower())
    typed = _typed_on_command_line(param) if explicit is None else explicit
    choices = [f.value for f in type(given)]
    if typed:
        if implied is not None and implied != given.value:
            raise InputError(
                output,
                None,
                f"--format {given.value} contradicts the file name, which says {implied}: "
                f"drop --format or name the file to match",
            )
        return given
    if implied is None:
        return given
    if implied not in choices:
        raise InputError(
            output,
            None,
            f"the file name says {implied}, which this command does not write "
            f"(--format is one of {', '.join(choices)}): give --format or another name",
        )
    return type(given)(implied)


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


@contextmanager
def streamed_output(output: Path | None) -> Iterator[IO[str]]:
    """A stream to write a report into as it is made: standard output, or a temporary file
    beside ``output`` that replaces it only when the block ends without an error
    (:func:`earnest.files.atomic_writer`: a failed run never leaves a half-written report
    where the user's file was). Writers redact each record themselves (a chunked copy could
    split a secret)."""
    if output is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    from earnest.files import atomic_writer

    with atomic_writer(output) as handle:
        yield handle


__all__ = [
    "EXTENSION_FORMATS",
    "NoRedactOpt",
    "emit",
    "format_for",
    "guard_output",
    "redaction",
    "screen_console",
    "streamed_output",
    "write_output",
]
