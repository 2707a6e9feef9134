"""``--shard i/N``: a deterministic share of the inputs, for scoring on several machines.

Shard ``i`` of ``N`` (``1 <= i <= N``) takes every ``N``-th input counted from the ``i``-th:
for files, by their place in the *sorted* list of paths (so the share does not depend on
the order the paths were given or the directory listing); for a stream of records, by
their place in input order. The ``N`` shards are disjoint and together hold every input
once; their per-item results combine with ``earnest trajectory aggregate`` /
``earnest aggregate`` into the summary of scoring everything at once.

Example:
    >>> shard = Shard.parse("2/3")
    >>> shard.files(["e", "a", "d", "b", "c"])
    ['e', 'b']
    >>> list(shard.stream("abcdefg"))
    ['b', 'e']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
P = TypeVar("P", str, Path)

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"i/N"`` with ``1 <= i <= N``; :class:`ValueError` says what is wrong."""
        match = _SHARD.fullmatch(text)
        if match is None:
            raise ValueError(f"expected i/N (e.g. 1/4), got {text!r}")
        index, count = int(match[1]), int(match[2])
        if count < 1:
            raise ValueError(f"N must be at least 1, got {text!r}")
        if not 1 <= index <= count:
            raise ValueError(f"i must be from 1 to {count}, got {text!r}")
        return cls(index, count)

    def takes(self, position: int) -> bool:
        """Whether the input at 0-based ``position`` belongs to this shard."""
        return position % self.count == self.index - 1

    def files(self, paths: Sequence[P]) -> list[P]:
        """This shard's share of ``paths``, chosen by place in sorted order, kept in given order."""
        ranked = sorted(range(len(paths)), key=lambda k: Path(paths[k]).as_posix())
        chosen = {k for place, k in enumerate(ranked) if self.takes(place)}
        return [p for k, p in enumerate(paths) if k in chosen]

    def stream(self, items: Iterable[T]) -> Iterator[T]:
        """This shard's share of ``items``, by place in input order."""
        for position, item in enumerate(items):
            if self.takes(position):
                yield item

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str | None, option: str = "--shard") -> Shard | None:
    """The CLI's ``--shard`` value (``None`` when not given); a usage error names the option."""
    if text is None:
        return None
    from earnest.errors import InputError

    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise InputError(None, option, str(exc)) from None


__all__ = ["Shard", "parse_shard"]
