"""Where a JSON or TOML text nests deepest, and where an over-long integer is: for the error
message when the parser gives up (``RecursionError``, Python's 4,300-digit integer limit).

The parsers say only "maximum recursion depth exceeded", with no place; this scan names the
line and column, counting ``[``/``{`` outside strings (and, for TOML, outside comments).

Example:
    >>> deepest("[[1], [[2]]]")
    (3, 1, 8)
    >>> long_integer("x = 12\\ny = " + "9" * 5000)
    (2, 5)
"""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[+-]?\d[\d_]{4299,}")


def deepest(text: str, *, toml: bool = False) -> tuple[int, int, int]:
    """(maximum depth, line, column) of the first place the deepest nesting is reached."""
    depth = best = 0
    best_at = 0
    quote = ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch == '"' or (toml and ch == "'"):
            quote = ch
        elif toml and ch == "#":
            nl = text.find("\n", i)
            i = n if nl < 0 else nl
            continue
        elif ch in "[{":
            depth += 1
            if depth > best:
                best, best_at = depth, i
        elif ch in "]}":
            depth = max(0, depth - 1)
        i += 1
    line = text.count("\n", 0, best_at) + 1
    column = best_at - (text.rfind("\n", 0, best_at) + 1) + 1
    return best, line, column


def long_integer(text: str) -> tuple[int, int] | None:
    """(line, column) of the first integer literal of more than 4,300 digits, if any."""
    m = _DIGITS.search(text)
    if m is None:
        return None
    at = m.start()
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


__all__ = ["deepest", "long_integer"]
