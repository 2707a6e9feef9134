"""Unknown configuration keys are errors that name the nearest known key.

A typo in a config file must not silently switch a guard off (``min_fixture = 12`` read as
"no minimum"). Every table reader checks its keys with :func:`check_keys`; the suggestion
comes from :func:`difflib.get_close_matches`, the standard library's ranked fuzzy match.

Example:
    >>> did_you_mean("min_fixture", ["min_fixtures", "fixtures", "doctrine"])
    'min_fixtures'
    >>> unknown_key_message("min_fixture", ["min_fixtures", "doctrine"])
    'unknown key min_fixture — did you mean min_fixtures? (known: doctrine, min_fixtures)'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from earnest.errors import InputError


def did_you_mean(key: str, known: Iterable[str]) -> str | None:
    """The known key closest to ``key`` (case-insensitive), or ``None`` when none is close."""
    import difflib  # only when a key is wrong: every config reader (a stop hook's) imports this

    options = sorted(known)
    by_fold = {k.casefold(): k for k in options}
    close = difflib.get_close_matches(key.casefold(), list(by_fold), n=1, cutoff=0.6)
    return by_fold[close[0]] if close else None


def _show(key: str) -> str:
    # A key is user text: show it quoted when it holds anything but a bare-key's characters.
    bare = key and all(ch.isalnum() or ch in "-_" for ch in key) and key.isascii()
    return key if bare else repr(key)


def unknown_key_message(key: str, known: Iterable[str], what: str = "key") -> str:
    options = sorted(known)
    near = did_you_mean(key, options)
    hint = f" — did you mean {near}?" if near else ""
    return f"unknown {what} {_show(key)}{hint} (known: {', '.join(options)})"


def check_keys(
    table: Mapping[str, Any],
    known: Iterable[str],
    file: str | Path | None,
    place: str,
    what: str = "key",
) -> None:
    """Raise :class:`InputError` for the first key of ``table`` (in file order) not in ``known``."""
    options = tuple(known)
    for key in table:
        if key not in options:
            where = f"{place}.{_show(str(key))}" if place else _show(str(key))
            raise InputError(file, where, unknown_key_message(str(key), options, what))


__all__ = ["check_keys", "did_you_mean", "unknown_key_message"]
