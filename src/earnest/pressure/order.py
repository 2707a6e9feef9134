"""Displayed option order: letters by position, mapped back to the fixture's choice ids.

Options are always displayed as ``A, B, C, ...`` by position. ``order`` lists the fixture's
choice ids in the order they were displayed, so displayed letter ``"A"`` means the choice
``order[0]``. With no shuffle, ``order`` is the fixture's own order.

Example:
    >>> label_map(("C", "A", "B", "D"))["A"]
    'C'
    >>> shuffled_order(("A", "B", "C", "D"), seed=7, key="PRS-1") == shuffled_order(("A", "B", "C", "D"), seed=7, key="PRS-1")
    True
"""

from __future__ import annotations

import random
import string
from collections.abc import Sequence

LABELS = string.ascii_uppercase


def display_labels(n: int) -> tuple[str, ...]:
    """The letters shown for ``n`` options: ``A``, ``B``, ..."""
    if not 0 <= n <= len(LABELS):
        raise ValueError(f"cannot label {n} options")
    return tuple(LABELS[:n])


def label_map(order: Sequence[str]) -> dict[str, str]:
    """Displayed letter → fixture choice id."""
    return dict(zip(display_labels(len(order)), order, strict=True))


def shuffled_order(choice_ids: Sequence[str], seed: int | None, key: str = "") -> tuple[str, ...]:
    """A deterministic shuffle of ``choice_ids`` for ``seed`` (and a per-fixture/sample ``key``);
    ``seed=None`` keeps the fixture's own order."""
    ids = list(choice_ids)
    if seed is None:
        return tuple(ids)
    random.Random(f"earnest:{seed}:{key}").shuffle(ids)
    return tuple(ids)


__all__ = ["LABELS", "display_labels", "label_map", "shuffled_order"]
