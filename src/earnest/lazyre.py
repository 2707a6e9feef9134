"""Regular expressions compiled at their first use, and tried only where they can match.

Every stop hook is a fresh interpreter, and compiling a pattern costs it 0.1-0.8 ms (the
claim words and runner summaries are long alternations): compiled at import, the sixty-odd
patterns on a stop's path were a fifth of its own work, though a stop whose run left a file
changed reads no claim word and one that printed no test summary needs no runner's pattern.
A :class:`LazyPattern` is compiled the first time it is used, once per process.

With ``needles``, it is also tried only on a text that holds one of them: every match of the
pattern holds one (``tests/test_lazyre.py`` checks each gated pattern's needles on strings
generated from the pattern itself), so a text without any has no match and costs a substring
search instead of a scan (and, if no text ever holds one, no compiling at all).

Example:
    >>> ran = LazyPattern(r"^Ran (\\d+) tests?", "Ran ", flags=re.M)
    >>> ran.search("nothing ran") is None, ran.compiled_now
    (True, False)
    >>> ran.search("ok\\nRan 3 tests").group(1), ran.compiled_now
    ('3', True)
    >>> LazyPattern(r"\\s+").split("a  b")
    ['a', 'b']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any


class LazyPattern:
    """``re.compile(source, flags)``, compiled at first use; with ``needles``, only tried on a
    text holding one of them (a text without any gives what a text with no match gives)."""

    __slots__ = ("_compiled", "flags", "needles", "source")

    def __init__(self, source: str, *needles: str, flags: int = 0) -> None:
        self.source = source
        self.needles = needles
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> str:
        return self.source

    @property
    def compiled_now(self) -> bool:
        """Whether this process has compiled it yet."""
        return self._compiled is not None

    def compile(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if it was not yet)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.source, self.flags)
        return compiled

    def compiled(self, text: str) -> re.Pattern[str] | None:
        """The compiled pattern, or ``None`` when ``text`` holds none of the needles (then it
        has no match)."""
        compiled = self._compiled
        if self.needles:
            for needle in self.needles:  # a loop, not any(): this runs at every use
                if needle in text:
                    break
            else:
                return None
        return compiled if compiled is not None else self.compile()

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        pattern = self.compiled(text)
        return None if pattern is None else pattern.search(text, pos)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        pattern = self.compiled(text)
        return None if pattern is None else pattern.match(text, pos)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        pattern = self.compiled(text)
        return None if pattern is None else pattern.fullmatch(text)

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match[str]]:
        pattern = self.compiled(text)
        return iter(()) if pattern is None else pattern.finditer(text, pos)

    def findall(self, text: str) -> list[Any]:
        pattern = self.compiled(text)
        return [] if pattern is None else pattern.findall(text)

    def sub(self, replacement: str | Callable[[re.Match[str]], str], text: str) -> str:
        pattern = self.compiled(text)
        return text if pattern is None else pattern.sub(replacement, text)

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        pattern = self.compiled(text)
        return [text] if pattern is None else pattern.split(text, maxsplit)

    def __repr__(self) -> str:
        return f"LazyPattern({self.source!r}, flags={self.flags!r}, needles={self.needles!r})"


__all__ = ["LazyPattern"]
