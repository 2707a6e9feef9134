"""How the CLI talks about itself: help text printed as written, usage errors in plain words.

Typer renders help through Rich markup, which would eat ``[tool.earnest]`` or ``[suite.debt]``
from a help string, and it prints a ``<bool>`` type beside every flag (``--help <bool>``).
Usage errors come back in the words of the validation library underneath ("Value error, 'xml'
is not one of 'table', ..."); a user should read ``--format: 'xml' is not one of table, json,
junit``. This module fixes those three things on the command tree before it runs, and renders
a usage error as ``earnest CMD: message`` plus where to look next.

Example:
    >>> plain_reason("Value error, 'xml' is not one of 'table', 'json', 'junit'.")
    "'xml' is not one of table, json, junit"
    >>> plain_reason("Input should be a valid integer, unable to parse string as an integer")
    'not an integer'
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from typer._click.exceptions import BadParameter, ClickException, NoSuchOption, UsageError
from typer.core import TyperOption

# The validation library's sentences, and what a user should read instead.
_REWORDED: tuple[tuple[str, str], ...] = (
    (r"^Input should be a valid integer.*$", "not an integer"),
    (r"^Input should be a valid number.*$", "not a number"),
    (r"^Input should be a valid boolean.*$", "not true or false"),
    (r"^Input should be greater than or equal to (\S+)$", r"must be at least \1"),
    (r"^Input should be greater than (\S+)$", r"must be more than \1"),
    (r"^Input should be less than or equal to (\S+)$", r"must be at most \1"),
)


def plain_reason(message: str) -> str:
    """A parameter error's reason without the validation library's wording."""
    text = message.strip()
    text = re.sub(r"^Value error, ", "", text)
    for pattern, replacement in _REWORDED:
        text = re.sub(pattern, replacement, text)
    choices = re.match(r"^(.*) is not one of (.*?)\.?$", text)
    if choices:
        listed = ", ".join(c.strip().strip("'\"") for c in choices.group(2).split(","))
        text = f"{choices.group(1)} is not one of {listed}"
    return text.rstrip(".")


def _walk(command: Any) -> Iterator[Any]:
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _walk(sub)


def shows_help(root: Any, argv: list[str]) -> bool:
    """Whether ``argv`` may print help: ``--help``/``-h``, or a group named without one of its
    commands (which prints its help). Only then are help strings escaped: Rich's markup module
    is a tenth of a small command's start-up (issue 27)."""
    if "--help" in argv or "-h" in argv:
        return True
    command = root
    for arg in argv:
        if arg.startswith("-"):
            continue
        sub = getattr(command, "commands", {}).get(arg)
        if sub is None:
            break
        command = sub
    return bool(getattr(command, "commands", None))


def prepare(root: Any, argv: list[str] | None = None) -> Any:
    """Give each parameter of a plain type its converter without pydantic
    (:mod:`earnest.cli.params`) and, when ``argv`` may print help (:func:`shows_help`; always
    when ``argv`` is not given), escape Rich markup in every help string of ``root``'s tree,
    so brackets print as written."""
    from earnest.cli.params import install

    install()
    if argv is not None and not shows_help(root, argv):
        return root
    from rich.markup import escape

    for command in _walk(root):
        for field in ("help", "short_help", "epilog"):
            value = getattr(command, field, None)
            if isinstance(value, str):
                setattr(command, field, escape(value))
        for param in command.params:
            if isinstance(getattr(param, "help", None), str):
                param.help = escape(param.help)
    return root


def _flag_type_hidden() -> None:
    """A flag takes no value: show no ``<bool>`` beside it (``--help``, ``--strict``, ...)."""
    original = TyperOption.display_type_rich
    if getattr(original, "_earnest", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else original(self, ctx)

    display_type_rich._earnest = True  # type: ignore[attr-defined]
    setattr(TyperOption, "display_type_rich", display_type_rich)  # noqa: B010


_flag_type_hidden()


def _command_path(exc: UsageError, prog: str) -> str:
    ctx = exc.ctx
    return ctx.command_path if ctx is not None else prog


def render_usage_error(exc: ClickException, root: Any, prog: str = "earnest") -> str:
    """``earnest CMD: message`` and a pointer to help; an unknown command lists the commands."""
    if not isinstance(exc, UsageError):
        return f"{prog}: {exc.format_message()}"
    where = _command_path(exc, prog)
    if isinstance(exc, BadParameter):
        hint = exc.param_hint
        if hint is None and exc.param is not None:
            opts = [o for o in getattr(exc.param, "opts", []) if o.startswith("--")]
            hint = opts[0] if opts else (exc.param.name or "").upper()
        elif isinstance(hint, (list, tuple)):
            hint = next((h for h in hint if h.startswith("--")), hint[0])
        message = exc.format_message() if hint is None else f"{hint}: {plain_reason(exc.message)}"
        if type(exc).__name__ == "MissingParameter":
            message = exc.format_message()
    elif isinstance(exc, NoSuchOption):
        message = exc.format_message()
    else:
        message = exc.format_message()
    lines = [f"{where}: {message}"]
    if message.startswith("No such command"):
        group = exc.ctx.command if exc.ctx is not None else root
        names = [n for n, c in getattr(group, "commands", {}).items() if not c.hidden]
        lines.append("Commands: " + ", ".join(names))
    lines.append(f"Try '{where} --help' for help.")
    return "\n".join(lines)


__all__ = ["plain_reason", "prepare", "render_usage_error", "shows_help"]
