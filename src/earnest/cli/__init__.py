"""The ``earnest`` command line: a thin layer over the library.

Each command group lives in its own module and registers itself on :data:`app`.
Heavy imports happen inside command functions so ``earnest --help`` starts fast.
"""

from __future__ import annotations

import sys

import typer

from earnest.errors import InputError

app = typer.Typer(
    name="earnest",
    help=(
        "Check whether an LLM agent's word is backed by its behaviour.\n\n"
        "Pressure harness: lint, coverage, prompt, score, check.  "
        "Effect-grounded completion: hook, trajectory."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


@app.callback()
def _root() -> None:
    """Check whether an LLM agent's word is backed by its behaviour."""


@app.command("version")
def version() -> None:
    """Print earnest's version."""
    from earnest import __version__

    print(__version__)


# Registration order is the order in `earnest --help`.
from earnest.cli import check as _check  # noqa: E402,F401
from earnest.cli import hooks as _hooks  # noqa: E402,F401
from earnest.cli import live as _live  # noqa: E402,F401
from earnest.cli import pressure as _pressure  # noqa: E402,F401
from earnest.cli import report as _report  # noqa: E402,F401
from earnest.cli import score as _score  # noqa: E402,F401
from earnest.cli import trajectory as _trajectory  # noqa: E402,F401


def run(argv: list[str]) -> int:
    """Run the CLI; turn :class:`InputError` into ``earnest: file: place: message`` and exit 2."""
    try:
        app(args=argv, prog_name="earnest", standalone_mode=True)
    except InputError as exc:
        print(f"earnest: {exc.render()}", file=sys.stderr)
        return 2
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 2
    return 0


__all__ = ["app", "run"]
