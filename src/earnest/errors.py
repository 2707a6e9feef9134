"""The one error type that reaches the user: bad input, named precisely.

Every reader raises :class:`InputError` with the file, the place in it and what is
wrong; the CLI prints ``file:place: message`` on stderr and exits 2. Nothing that
reads user input lets a traceback reach the user.

Example:
    >>> str(InputError("suite/earnest.toml", "suite.doctrine", "missing"))
    'suite/earnest.toml: suite.doctrine: missing'
"""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Bad user input: ``file``, the ``place`` in it (line, field, key), and the ``message``."""

    def __init__(self, file: str | Path | None, place: str | int | None, message: str) -> None:
        self.file = str(file) if file is not None else None
        self.place = str(place) if place is not None else None
        self.message = message
        super().__init__(self.render())

    def render(self) -> str:
        parts = [p for p in (self.file, self.place) if p]
        return ": ".join([*parts, self.message])


__all__ = ["InputError"]
