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

from enum import StrEnum
from pathlib import Path
from typing import TypeVar

import typer

from earnest.errors import InputError

F = TypeVar("F", bound=StrEnum)

EXTENSION_FORMATS = {".json": "json", ".jsonl": "jsonl", ".xml": "junit", ".html": "html"}
"""What a report file's name says it holds: ``-o out.json`` means JSON, ``.xml`` JUnit XML."""


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


__all__ = ["EXTENSION_FORMATS", "emit", "format_for", "write_output"]
