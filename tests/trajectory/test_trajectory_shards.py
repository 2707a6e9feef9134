"""``earnest.shards.Shard``: disjoint, complete, independent of the order paths are given."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from earnest.shards import Shard


@given(st.lists(st.text(min_size=1), unique=True), st.integers(1, 9), st.randoms())
def test_shards_partition_the_files_whatever_their_order(
    paths: list[str], count: int, rnd: random.Random
) -> None:
    shuffled = list(paths)
    rnd.shuffle(shuffled)
    parts = [Shard(i, count).files(paths) for i in range(1, count + 1)]
    again = [Shard(i, count).files(shuffled) for i in range(1, count + 1)]
    assert sorted(p for part in parts for p in part) == sorted(paths)
    assert [sorted(p) for p in parts] == [sorted(p) for p in again]
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1


def test_stream_share_by_position() -> None:
    assert [list(Shard(i, 3).stream(range(8))) for i in (1, 2, 3)] == [[0, 3, 6], [1, 4, 7], [2, 5]]


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "x", "1/2/3", ""])
def test_parse_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        Shard.parse(text)


def test_parse() -> None:
    assert Shard.parse(" 2 / 5 ") == Shard(2, 5) and str(Shard(2, 5)) == "2/5"
