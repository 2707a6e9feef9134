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
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


def _print_version(value: bool) -> None:
    if value:
        from earnest import __version__

        print(__version__)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print earnest's version and exit.",
        callback=_print_version,
        is_eager=True,
    ),
) -> None:
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
    """Run the CLI; turn :class:`InputError` into ``earnest: file: place: message`` and exit 2.

    A usage error (unknown command or option, a bad value) is printed in plain words by
    :mod:`earnest.cli.usage`, with exit 2.
    """
    import typer.main
    from typer._click.exceptions import ClickException, NoArgsIsHelpError

    from earnest.cli.usage import prepare, render_usage_error

    command = prepare(typer.main.get_command(app), argv)
    try:
        result = command.main(args=argv, prog_name="earnest", standalone_mode=False)
    except InputError as exc:
        print(f"earnest: {exc.render()}", file=sys.stderr)
        return 2
    except NoArgsIsHelpError as exc:
        # A group run with no command: its help, on standard output as before.
        print(exc.format_message())
        return 2
    except ClickException as exc:
        print(render_usage_error(exc, command), file=sys.stderr)
        return exc.exit_code
    except typer.Abort:
        print("Aborted!", file=sys.stderr)
        return 1
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 2
    return result if isinstance(result, int) else 0


__all__ = ["app", "run"]
