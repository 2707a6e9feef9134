"""Read a TOML config file: never a traceback, always the file and the place.

Beyond :mod:`tomllib`'s own syntax errors this turns into an :class:`InputError`: a FIFO or
device (refused unread), bytes that are not UTF-8, a leading byte-order mark (accepted),
arrays or inline tables nested too deeply for the parser, and integers longer than Python's
4,300-digit conversion limit.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "earnest.toml"
    >>> _ = p.write_text("[suite]\\nx = []\\n")
    >>> read_toml(p)
    {'suite': {'x': []}}
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.nesting import deepest, long_integer
from earnest.textfile import read_text


def toml_place(message: str) -> str | None:
    """``line N`` from a :class:`tomllib.TOMLDecodeError` message ``... (at line N, column C)``."""
    marker = "(at line "
    if marker in message:
        return "line " + message.split(marker, 1)[1].split(",", 1)[0].rstrip(")")
    return None


def parse_toml(text: str, path: Path | str) -> dict[str, Any]:
    """Parse ``text`` (read from ``path``); every failure is an :class:`InputError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(path, toml_place(str(exc)), f"invalid TOML: {exc}") from None
    except RecursionError:
        depth, line, column = deepest(text, toml=True)
        raise InputError(
            path,
            f"line {line} column {column}",
            f"invalid TOML: arrays or tables nested too deeply ({depth} levels)",
        ) from None
    except ValueError:  # Python's limit on integer string conversion
        where = long_integer(text)
        place = f"line {where[0]} column {where[1]}" if where else None
        raise InputError(
            path, place, "invalid TOML: an integer of more than 4,300 digits"
        ) from None


def read_toml(path: Path, what: str = "config file") -> dict[str, Any]:
    """The TOML document at ``path``."""
    return parse_toml(read_text(path, what), path)


__all__ = ["parse_toml", "read_toml", "toml_place"]
