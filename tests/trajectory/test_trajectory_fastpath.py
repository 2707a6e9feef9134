"""The reading fast paths (issue 14, item 6) change no result: the surrogate scrub skipped
when orjson parsed, the split surrogate patterns, the direct decoder for ``{`` lines and
the Claude Code skip test bounded by ``"message":`` give exactly what the plain code gave,
on generated input built to hit every edge."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earnest import fastjson, safejson
from earnest.trajectory.readers.claude_code import skippable

_MARKERS = (b'"type":"progress"', b'"type":"file-history-snapshot"', b'"type":"queue-operation"')
_OLD_MAYBE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def reference_skippable(line: bytes) -> bool:
    """The test before the fast path (every marker searched in the whole line)."""
    for marker in _MARKERS:
        at = line.find(marker)
        if at >= 0:
            message_at = line.find(b'"message":')
            if message_at < 0 or at < message_at:
                return True
    return False


def reference_loads(data: str | bytes) -> Any:
    """safejson.loads before the fast path: the standard library, then a scrub when the
    single pattern matched."""
    value = json.loads(data)
    pattern = safejson._MAYBE_STR if isinstance(data, str) else _OLD_MAYBE
    if pattern.search(data):  # type: ignore[arg-type]
        value = safejson.scrub_value(value)
    return value


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b or (a != a and b != b))  # NaN


FRAGMENTS = [*_MARKERS, b'"message":', b'"message"', b"{", b"}", b'"', b":", b",", b"x", b" ",
             b'"type":"user"', b'"type":"progress', b"\n"]  # fmt: skip


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=12))
def test_skippable_is_the_plain_test(parts: list[bytes]) -> None:
    line = b"".join(parts)
    assert skippable(line) == reference_skippable(line)


def test_skippable_edges() -> None:
    for line in (
        b'{"type":"progress","message":{}}',
        b'{"message":{},"type":"progress"}',
        b'{"type":"progress"message":1}',  # the marker's closing quote opens "message"
        b'{"data":{"type":"queue-operation"}}',
        b'{"message":"x"}',
        b"",
    ):
        assert skippable(line) == reference_skippable(line), line


_ALPHABET = [
    "a",
    "\\",
    "u",
    "d",
    "D",
    "8",
    "f",
    "0",
    "\ud800",
    "\udfff",
    "\U0001f600",
    "\ud55c",
    '"',
    " ",
]
SURROGATE_TEXT = st.text(alphabet=st.sampled_from(_ALPHABET), max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | SURROGATE_TEXT,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(SURROGATE_TEXT, children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=600)
@given(value=json_values, ascii_only=st.booleans(), stdlib=st.booleans())
def test_safe_loads_gives_what_it_gave(value: Any, ascii_only: bool, stdlib: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    chosen = fastjson.parse
    if stdlib:  # as EARNEST_JSON=stdlib (or orjson not installed)
        fastjson.parse = fastjson._stdlib
    try:
        for data in (text, text.encode("utf-8", "surrogatepass")):
            assert _same(safejson.loads(data), reference_loads(data))
    finally:
        fastjson.parse = chosen


ODD = [
    b'{"a": 1}', b"{", b"{}", b'{\x00"\x00a\x00"\x00:\x001\x00}\x00', b'{"a": "\xed\xa0\x80"}',
    b'{"a": "\\ud800"}', b'{"a": "\\uDBFF\\uDFFF"}', b'{"a": 1} x', b'{"a": \n', b"{\xff}",
    b"\xef\xbb\xbf{}", b" {}", b'{"\xed\xbf\xbf": 2}', '{"a": 1}'.encode("utf-16-le"),
]  # fmt: skip


@pytest.mark.parametrize("data", ODD)
def test_json_loads_fast_path_is_json_loads(data: bytes) -> None:
    try:
        expected: Any = json.loads(data)
    except ValueError as exc:
        with pytest.raises(type(exc)) as caught:
            fastjson.json_loads(data)
        assert str(caught.value) == str(exc)
        with pytest.raises(ValueError):
            safejson.loads(data)
    else:
        assert _same(fastjson.json_loads(data), expected)
        assert _same(safejson.loads(data), safejson.scrub_value(expected))
