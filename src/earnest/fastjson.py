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


def _pick() -> tuple[str, Callable[[bytes | str], tuple[Any, bool]]]:
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

    def parse(data: bytes | str) -> tuple[Any, bool]:
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        if run not in raw.translate(digits):
            try:
                return fast(raw), True
            except refused:
                pass
        # same acceptance, same result and error, as without orjson
        return json_loads(data), False

    return "orjson", parse


PARSER, parse = _pick()
"""``PARSER`` names the parser in use: ``"orjson"`` or ``"json"``.

``parse(data)`` is ``(value, valid_unicode)``: ``valid_unicode`` is True when orjson parsed
it, which only accepts text that is valid UTF-8 with no lone surrogate (escaped or not), so
no string in the value holds one and :mod:`earnest.safejson` need not look for them.

    >>> parse(b'"\\ud83d\\ude00"')[0], parse(b'"\\ud800"')  # a pair, and a lone one
    ('\U0001f600', ('\ud800', False))
"""


def loads(data: bytes | str) -> Any:
    """The JSON value of ``data`` (as :func:`json.loads` gives it)."""
    return parse(data)[0]


__all__ = ["PARSER", "json_loads", "loads", "parse"]
