"""JSON parsing for the readers: orjson when installed (``pip install 'earnest[fast]'``),
the standard library otherwise — with the same result either way.

:func:`loads` hands the text to orjson first and, when orjson refuses it, to
:func:`json.loads`: so everything orjson parses is parsed as the standard library would
(the test suite checks it on real transcripts and generated documents), and what it refuses
— ``NaN``/``Infinity``, ``1e400``, lone surrogate escapes, a byte-order mark, UTF-16,
invalid UTF-8 — is parsed, or refused with its error message, by the standard library
exactly as before. orjson would read an integer beyond 64 bits as a float: text with a run
of 19 digits goes to the standard library without trying orjson. ``EARNEST_JSON=stdlib`` turns orjson off (e.g. to compare the two).

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
from typing import Any


def _stdlib(data: bytes | str) -> Any:
    return json.loads(data)


def _pick() -> tuple[str, Callable[[bytes | str], Any]]:
    if os.environ.get("EARNEST_JSON", "").strip().lower() == "stdlib":
        return "json", _stdlib
    try:
        import orjson
    except ImportError:
        return "json", _stdlib
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

    return "orjson", loads


PARSER, loads = _pick()
"""``PARSER`` names the parser in use: ``"orjson"`` or ``"json"``."""

__all__ = ["PARSER", "loads"]
