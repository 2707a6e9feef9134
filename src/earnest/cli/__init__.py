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
        "Pressure harness: do written rules hold under pressure?  "
        "Effect-grounded completion: does 'done' mean something happened?  "
        "Exit codes: 0 all good, 1 the check found failures, 2 bad usage or bad input."
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
from earnest.cli import aggregate as _aggregate  # noqa: E402,F401
from earnest.cli import check as _check  # noqa: E402,F401
from earnest.cli import hooks as _hooks  # noqa: E402,F401
from earnest.cli import live as _live  # noqa: E402,F401
from earnest.cli import pressure as _pressure  # noqa: E402,F401
from earnest.cli import report as _report  # noqa: E402,F401
from earnest.cli import score as _score  # noqa: E402,F401
from earnest.cli import trajectory as _trajectory  # noqa: E402,F401

# `earnest --help` groups commands by what a user is doing, in the order they would do it.
_PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Pressure harness (offline)",
        ("init", "lint", "coverage", "prompt", "score", "aggregate", "check"),
    ),
    ("Live runs", ("run", "runs", "export", "compare", "baseline")),
    ("Effect-grounded completion", ("hook", "trajectory")),
    ("Reports and more", ("report", "schema", "version")),
)


def _arrange() -> None:
    rank = {name: i for i, (_, names) in enumerate(_PANELS) for name in names}
    panel = {name: title for title, names in _PANELS for name in names}
    order = [name for _, names in _PANELS for name in names]

    def key(name: str | None) -> int:
        return order.index(name) if name in rank else len(order)

    for command in app.registered_commands:
        command.rich_help_panel = panel.get(command.name or "", "Other")
    for group in app.registered_groups:
        group.rich_help_panel = panel.get(group.name or "", "Other")
    app.registered_commands.sort(key=lambda c: key(c.name))
    app.registered_groups.sort(key=lambda g: key(g.name))


_arrange()


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
