"""JSON from untrusted files: one decoder that fails only with ``ValueError`` and never hands
back a lone surrogate.

Transcripts, recorded replies, fixtures and model replies are written by others. Three things
in them crash code that trusts ``json.loads``:

- nesting deeper than the interpreter's recursion limit raises ``RecursionError``;
- an integer of more than 4,300 digits raises a plain ``ValueError`` (not a
  ``JSONDecodeError``, so ``except JSONDecodeError`` misses it);
- ``"\\ud800"`` decodes to a lone surrogate, which every UTF-8 writer (stdout, a report file,
  SQLite) refuses with ``UnicodeEncodeError`` much later, far from the input.

:func:`loads` turns the first two into ``ValueError`` with a short reason and replaces lone
surrogates by U+FFFD, so a reader can count the line as bad (or keep it, cleaned) and go on.

Example:
    >>> loads('{"model": "m\\\\ud800"}')
    {'model': 'm\\ufffd'}
    >>> try:
    ...     loads("[" * 100_000 + "]" * 100_000)
    ... except ValueError as exc:
    ...     print(exc)
    JSON nested too deeply
    >>> scrub("ok \\udfff")
    'ok \\ufffd'
"""

from __future__ import annotations

import re

from earnest import fastjson

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

_LONE = re.compile("[\ud800-\udfff]")
# What can decode to a lone surrogate: a \uD800-\uDFFF escape, or (bytes are decoded with
# "surrogatepass" by json) the raw UTF-8-style encoding of one (ED A0..BF xx).
_MAYBE_STR = re.compile(r"\\u[dD][89a-fA-F]")
# Two patterns, not one alternation: a pattern that starts with a literal is searched for
# that literal first (memchr), ten times faster than trying the alternation at every byte.
_ESCAPE_BYTES = re.compile(rb"\\u[dD][89a-fA-F]")
_RAW_BYTES = re.compile(rb"\xed[\xa0-\xbf]")


def loads(data: str | bytes | bytearray) -> Any:
    """``json.loads`` for untrusted input: only ``ValueError`` (``JSONDecodeError`` for bad
    syntax), and lone surrogates in strings and keys replaced by U+FFFD."""
    try:
        # orjson when installed (earnest.fastjson: the same result as json.loads, faster).
        value, valid = fastjson.parse(bytes(data) if isinstance(data, bytearray) else data)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if valid:  # orjson parsed it: it refuses every lone surrogate, so there is none
        return value
    if isinstance(data, str):
        if _MAYBE_STR.search(data):
            value = scrub_value(value)
    elif _ESCAPE_BYTES.search(data) or (b"\xed" in data and _RAW_BYTES.search(data)):
        value = scrub_value(value)
    return value


def scrub(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (the same object when clean)."""
    return _LONE.sub("\ufffd", text) if _LONE.search(text) else text


def scrub_value(value: Any) -> Any:
    """A JSON value with lone surrogates replaced in every string and key. Iterative, so a
    value nested as deep as the decoder allows is no problem; dicts and lists are changed in
    place."""
    if isinstance(value, str):
        return scrub(value)
    if not isinstance(value, dict | list):
        return value
    stack: list[dict[str, Any] | list[Any]] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = scrub(item)
                elif isinstance(item, dict | list):
                    stack.append(item)
            continue
        if any(_LONE.search(k) for k in node):
            items = [(scrub(k), v) for k, v in node.items()]
            node.clear()
            node.update(items)
        for k, item in node.items():
            if isinstance(item, str):
                node[k] = scrub(item)
            elif isinstance(item, dict | list):
                stack.append(item)
    return value


__all__ = ["loads", "scrub", "scrub_value"]
