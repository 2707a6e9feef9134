"""JSON parsing for the readers: orjson when installed (``pip install 'earnest[fast]'``),
the standard library otherwise — with the same result either way.

:func:`loads` hands the text to orjson first and, when orjson refuses it, to
:func:`json.loads`: so everything orjson parses is parsed as the standard library would
(the test suite checks it on real transcripts and generated documents), and what it refuses
— ``NaN``/``Infinity``, ``1e400``, lone surrogate escapes, a byte-order mark, UTF-16,
invalid UTF-8 — is parsed, or refused with its error message, by the standard library
exactly as before. orjson would read an integer beyond 64 bits as a float: text with a run
of 19 digits goes to the standard library without trying orjson. ``EARNEST_JSON=stdlib``
turns orjson off (e.g. to compare the two). orjson is imported only once a process has parsed
:data:`WARM_UP_BYTES` (a stop hook reading one run never imports it); ``EARNEST_JSON=orjson``
uses it from the first document.

Example:
    >>> loads(b'{"a": [1, 2.5, "x"]}')
    {'a': [1, 2.5, 'x']}
    >>> loads(b'[NaN]')  # orjson refuses NaN; the standard library reads it
    [nan]
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from importlib.util import find_spec

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

WARM_UP_BYTES = 1 << 20
"""Bytes a process parses with the standard library before it imports orjson.

Importing orjson costs a few milliseconds (it imports ``uuid``, ``platform``...), more than
it saves on a small read: a stop hook reading one run, or a reply file, never pays for it;
a reader going through a large transcript switches to orjson after the first megabyte. The
result is the same either way (see above), so where the switch happens is not visible."""


_decode = json.JSONDecoder().decode
"""What :func:`json.loads` calls when given no options (its default decoder)."""


def json_loads(data: bytes | str) -> Any:
    """:func:`json.loads`, with its wrapper skipped for a line that starts ``{``: for such
    bytes ``json.loads`` detects UTF-8 (no byte-order mark, no NUL in the first two bytes)
    and decodes them with ``surrogatepass`` before the same decoder runs, as here."""
    if isinstance(data, bytes) and data[:1] == b"{" and data[1:2] != b"\x00":
        return _decode(data.decode("utf-8", "surrogatepass"))
    return json.loads(data)


def _stdlib(data: bytes | str) -> tuple[Any, bool]:
    return json_loads(data), False


def _choice() -> str:
    return os.environ.get("EARNEST_JSON", "").strip().lower()


def _wanted() -> bool:
    if _choice() == "stdlib":
        return False
    try:
        return find_spec("orjson") is not None
    except (ImportError, ValueError):
        return False


def _orjson_parse() -> Callable[[bytes | str], tuple[Any, bool]]:
    """The orjson-backed parser: orjson first, the standard library when orjson refuses."""
    import orjson

    fast = orjson.loads
    refused = orjson.JSONDecodeError
    digits = bytes.maketrans(b"123456789", b"000000000")
    run = b"0" * 19

    def parse(data: bytes | str) -> tuple[Any, bool]:
        # A str goes to orjson as it is (it reads an ASCII str's own bytes; one with a lone
        # surrogate it refuses, as it refuses their UTF-8-style bytes).
        try:
            value = fast(data)
        except refused:
            # same acceptance, same result and error, as without orjson
            return json_loads(data), False
        # orjson reads an integer beyond 64 bits as a float, silently: a value that holds a
        # float is kept only when the text has no run of 19 digits (an integer that may not
        # fit, or a long mantissa). A value without a float holds no such integer, and most
        # documents have none: looking through the value is cheaper than through the text
        # (bytes.translate + `in` still finds a run ten times faster than a regex).
        if _has_float(value):
            raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
            if run in raw.translate(digits):
                return json_loads(data), False
        return value, True

    return parse


def _has_float(value: Any) -> bool:
    """Whether a parsed JSON value holds a float anywhere (iterative: any depth)."""
    if type(value) is not dict and type(value) is not list:
        return type(value) is float
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        for item in node.values() if type(node) is dict else node:
            kind = type(item)
            if kind is str:  # most of an envelope: passed over first
                continue
            if kind is dict or kind is list:
                push(item)
            elif kind is float:
                return True
    return False


PARSER = "orjson" if _wanted() else "json"
"""``PARSER`` names the parser in use: ``"orjson"`` or ``"json"``."""

_parse: Callable[[bytes | str], tuple[Any, bool]] = _stdlib
_seen = WARM_UP_BYTES if _choice() == "orjson" else 0  # orjson from the first document


def parse(data: bytes | str) -> tuple[Any, bool]:
    """``(value, valid_unicode)``: the value as ``json.loads`` gives it, through orjson once
    this process has parsed :data:`WARM_UP_BYTES`; ``valid_unicode`` is True when orjson
    parsed it, which only accepts valid UTF-8 with no lone surrogate (escaped or not), so
    no string in the value holds one and :mod:`earnest.safejson` need not look for them.

        >>> parse(b'"\\ud83d\\ude00"')[0], parse(b'"\\ud800"')  # a pair, and a lone one
        ('\U0001f600', ('\ud800', False))
    """
    global _parse, _seen
    if _parse is _stdlib and PARSER == "orjson":
        _seen += len(data)
        if _seen >= WARM_UP_BYTES:
            try:
                _parse = _orjson_parse()
            except ImportError:  # found but not importable (a broken install)
                _seen = -(1 << 62)
    return _parse(data)


def loads(data: bytes | str) -> Any:
    """``json.loads``, through orjson once this process has parsed :data:`WARM_UP_BYTES`."""
    return parse(data)[0]


_loose: Callable[[bytes | str], Any] | None = None


def parse_loose(data: bytes | str) -> tuple[Any] | None:
    """``(value,)`` as orjson reads ``data``, once :func:`parse` uses orjson; ``None`` when it
    does not (yet) or orjson refuses ``data`` (then use :func:`parse`).

    The value is ``json.loads``'s but for its numbers: an integer beyond 64 bits (and perhaps
    a float of 19 digits or more) may come back as a different float, since the check
    :func:`parse` makes for them is skipped. Strings, keys, structure, booleans and ``None``
    are exact, and no string holds a lone surrogate: for a reader that looks at nothing else
    (:mod:`earnest.pressure.envelopes`).

        >>> parse_loose(b'{"a": 1}') in (None, ({"a": 1},))
        True
    """
    global _loose
    if _parse is _stdlib:
        return None
    if _loose is None:
        import orjson

        _loose = orjson.loads
    try:
        return (_loose(data),)
    except ValueError:  # orjson.JSONDecodeError
        return None


def fast_loads() -> Callable[[bytes | str], Any]:
    """The parser :func:`loads` switches to (orjson-backed when installed), imported now."""
    chosen = _orjson_parse() if PARSER == "orjson" else _stdlib
    return lambda data: chosen(data)[0]


__all__ = ["PARSER", "WARM_UP_BYTES", "fast_loads", "json_loads", "loads", "parse", "parse_loose"]
