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
from typing import Any

WARM_UP_BYTES = 1 << 20
"""Bytes a process parses with the standard library before it imports orjson.

Importing orjson costs a few milliseconds (it imports ``uuid``, ``platform``...), more than
it saves on a small read: a stop hook reading one run, or a reply file, never pays for it;
a reader going through a large transcript switches to orjson after the first megabyte. The
result is the same either way (see above), so where the switch happens is not visible."""


def _stdlib(data: bytes | str) -> Any:
    return json.loads(data)


def _choice() -> str:
    return os.environ.get("EARNEST_JSON", "").strip().lower()


def _wanted() -> bool:
    if _choice() == "stdlib":
        return False
    try:
        return find_spec("orjson") is not None
    except (ImportError, ValueError):
        return False


def _orjson_loads() -> Callable[[bytes | str], Any]:
    """The orjson-backed parser: orjson first, the standard library when orjson refuses."""
    import orjson

    fast = orjson.loads
    refused = orjson.JSONDecodeError
    # orjson reads an integer beyond 64 bits as a float, silently: text with a run of 19
    # digits (an integer that may not fit, or a long mantissa) goes to the standard library.
    # bytes.translate + `in` finds such a run ten times faster than a regular expression.
    digits = bytes.maketrans(b"123456789", b"000000000")
    run = b"0" * 19

    def loads(data: bytes | str) -> Any:
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        if run not in raw.translate(digits):
            try:
                return fast(raw)
            except refused:
                pass
        return json.loads(data)  # same acceptance, same result and error, as without orjson

    return loads


PARSER = "orjson" if _wanted() else "json"
"""``PARSER`` names the parser in use: ``"orjson"`` or ``"json"``."""

_parse: Callable[[bytes | str], Any] = _stdlib
_seen = WARM_UP_BYTES if _choice() == "orjson" else 0  # orjson from the first document


def loads(data: bytes | str) -> Any:
    """``json.loads``, through orjson once this process has parsed :data:`WARM_UP_BYTES`."""
    global _parse, _seen
    if _parse is _stdlib and PARSER == "orjson":
        _seen += len(data)
        if _seen >= WARM_UP_BYTES:
            try:
                _parse = _orjson_loads()
            except ImportError:  # found but not importable (a broken install)
                _seen = -(1 << 62)
    return _parse(data)


def fast_loads() -> Callable[[bytes | str], Any]:
    """The parser :func:`loads` switches to (orjson-backed when installed), imported now."""
    return _orjson_loads() if PARSER == "orjson" else _stdlib


__all__ = ["PARSER", "WARM_UP_BYTES", "fast_loads", "loads"]
