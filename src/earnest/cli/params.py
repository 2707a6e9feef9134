"""Command-line values read without the validation library: start-up is part of every command.

Typer turns each parameter's text into its type through a pydantic ``TypeAdapter``; importing
pydantic and building the adapters costs more than reading a small transcript (issue 27: 158 ms
of a 0.46 s ``earnest trajectory score``). earnest's parameters are of a few plain types
(``str``, ``Path``, ``int``, ``float`` with a lower bound, an ``Enum`` of formats, lists of
``str`` or ``Path``): :func:`install` gives each such parameter (and flag) a converter that does what the
adapter would, without pydantic — the same values accepted, the same ones refused with the same
sentence (which :mod:`earnest.cli.usage` rewords for the user). A parameter of any other type, or
with a constraint not handled here, keeps Typer's own converter (pydantic, imported then).
``tests/cli/test_cli_startup.py`` compares both on the values each type takes and refuses.

Example:
    >>> to_int(" 12 "), to_int("1_000"), to_int("12.0")
    (12, 1000, 12)
    >>> to_float("1e3"), to_bool(" Yes ")
    (1000.0, True)
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._click.exceptions import BadParameter
from typer._coercion import RuntimeParam
from typer._display import _escape_control_characters  # type: ignore[attr-defined]
from typer._param_types import coerce_cli_choice, coerce_cli_path
from typer.core import _TyperParameter

_INT = re.compile(r"\s*[+-]?[0-9]+(?:_[0-9]+)*(?:\.0+)?\s*", re.ASCII)
_INT_ERROR = "Input should be a valid integer, unable to parse string as an integer"
_BOOL_ERROR = "Input should be a valid boolean, unable to interpret input"
_FLOAT_ERROR = "Input should be a valid number, unable to parse string as a number"
# Every constraint a ParameterInfo can carry that changes a value; none may be set.
_UNHANDLED = ("parser", "click_type", "max", "clamp", "formats", "path_type")


def to_int(value: Any) -> int:
    """An integer as the validation library reads one from text (ASCII digits, ``_`` between
    digits, a ``.0`` fraction, spaces around); ``ValueError`` with its sentence otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INT.fullmatch(value):
        return int(value.strip().split(".")[0])
    raise ValueError(_INT_ERROR)


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


def to_bool(value: Any) -> bool:
    """A flag's value as Typer reads one (``""`` is false) with the validation library's words
    for true and false (``1/0``, ``on/off``, ``t/f``, ``true/false``, ``y/n``, ``yes/no``)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        if not word:
            return False
    raise ValueError(_BOOL_ERROR)


def to_float(value: Any) -> float:
    """A number as the validation library reads one from text (Python's ``float`` on ASCII)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value.isascii():
        try:
            return float(value)
        except ValueError:
            pass
    raise ValueError(_FLOAT_ERROR)


def _bounded(convert: Callable[[Any], Any], low: Any) -> Callable[[Any], Any]:
    if low is None:
        return convert

    def check(value: Any) -> Any:
        number = convert(value)
        if not number >= low:
            raise ValueError(f"Input should be greater than or equal to {low}")
        return number

    return check


@dataclass(frozen=True)
class PlainParam(RuntimeParam):
    """A parameter's converter without pydantic: ``convert`` on each value (each item of a
    list), its ``ValueError`` a usage error naming the parameter."""

    convert: Callable[..., Any]
    many: bool

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        try:
            if not self.many:
                return self.convert(value, param, ctx)
            items = value if isinstance(value, (list, tuple)) else [value]
            return [self.convert(item, param, ctx) for item in items]
        except ValueError as exc:
            # The validation library's own sentences as it words them; a check's as it wraps
            # a ValueError.
            message = _escape_control_characters(str(exc))
            if not message.startswith("Input should"):
                message = f"Value error, {message}"
            raise BadParameter(message, ctx=ctx, param=param) from None


def _converter(annotation: Any, info: Any) -> Callable[..., Any] | None:
    """What turns one value of ``annotation`` into its type, or ``None``: Typer's own then."""
    if annotation is str:
        return lambda value, param, ctx: value if isinstance(value, str) else str(value)
    if annotation is bool:
        return lambda value, param, ctx: to_bool(value)
    if annotation is int or annotation is float:
        number = _bounded(to_int if annotation is int else to_float, info.min)
        return lambda value, param, ctx: number(value)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        choices = tuple(annotation)
        sensitive = info.case_sensitive
        return lambda value, param, ctx: coerce_cli_choice(
            value, choices=choices, case_sensitive=sensitive, ctx=ctx
        )
    if annotation is Path:

        def path(value: Any, param: Any, ctx: Any) -> Path:
            if isinstance(value, Path):
                return value
            if not isinstance(value, (str, os.PathLike)):
                raise ValueError("Input is not a valid path")
            checked = coerce_cli_path(os.fspath(value), info, path_type=None, param=param, ctx=ctx)
            return Path(os.fsdecode(checked))

        return path
    return None


def plain_param(descriptor: Any) -> PlainParam | None:
    """The pydantic-free converter for a parameter's type descriptor, or ``None``."""
    info = descriptor.parameter_info
    if descriptor.file_annotation is not None:
        return None
    if any(getattr(info, name, None) not in (None, False) for name in _UNHANDLED):
        return None
    annotation = descriptor.annotation
    many = get_origin(annotation) is list
    if many:
        (annotation,) = get_args(annotation) or (None,)
    elif get_origin(annotation) is not None:
        return None
    convert = _converter(annotation, info)
    if convert is None:
        return None
    return PlainParam(info, descriptor.annotation, convert, many)


def install() -> None:
    """Make every Typer parameter (``--help`` too, which Click adds as it parses) build the
    pydantic-free converter when one fits its type, Typer's own otherwise. Idempotent."""
    original = _TyperParameter.get_runtime_param
    if getattr(original, "_earnest", False):
        return

    def get_runtime_param(self: _TyperParameter) -> RuntimeParam:
        if self._runtime_param is None:
            self._runtime_param = plain_param(self.type_descriptor)
        return original(self)

    get_runtime_param._earnest = True  # type: ignore[attr-defined]
    setattr(_TyperParameter, "get_runtime_param", get_runtime_param)  # noqa: B010


__all__ = ["PlainParam", "install", "plain_param", "to_bool", "to_float", "to_int"]
