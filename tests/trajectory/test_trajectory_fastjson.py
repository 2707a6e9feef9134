"""orjson, when installed, never changes what the readers read: the same documents and
errors as the standard library, on generated JSON and on real transcripts end to end."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import EXAMPLES, run_earnest
from earnest import fastjson

pytest.importorskip("orjson")

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()  # beyond 64 bits too: orjson alone would make them floats
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and infinities: orjson refuses them
    | st.text(),  # lone surrogates: orjson refuses them
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def test_orjson_is_in_use() -> None:
    assert fastjson.PARSER == "orjson"
    assert fastjson.fast_loads() is not fastjson._stdlib


FAST = fastjson.fast_loads()  # the orjson-backed parser, as used after the warm-up


def test_loads_switches_to_orjson_after_the_warm_up(tmp_path: Path) -> None:
    """A small read never imports orjson (a stop hook); a large one uses it."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from earnest import fastjson\n"
        "fastjson.loads(b'[1, 2]')\n"
        "print('orjson' in sys.modules)\n"
        "blob = b'[' + b','.join([b'\"abcdefgh\"'] * 200_000) + b']'\n"
        "fastjson.loads(blob)\n"
        "fastjson.loads(b'[3]')\n"
        "print('orjson' in sys.modules, fastjson._parse is not fastjson._stdlib)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.stdout.split() == ["False", "True", "True"], result.stderr


@settings(max_examples=400)
@given(json_values, st.booleans())
def test_same_values_as_the_standard_library(value: Any, ascii_only: bool) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    for data in (text, text.encode("utf-8", "surrogatepass")):
        assert _same(FAST(data), json.loads(data))


BAD = [
    b'{"a": 1,}', b"[1, 2", b"", b'{"a": "\x00"}', b'["\xff"]', b"nul", b'{"a" 1}',
    b"[1] [2]", b'{"a": 1e400, "b": -Infinity}', b"\xef\xbb\xbf[1]", b'"\\ud800"',
    b'[123456789012345678901234567890, -9223372036854775809]',
    '{"a": 1}'.encode("utf-16"),
]  # fmt: skip


@pytest.mark.parametrize("data", BAD)
def test_same_result_or_same_error_on_odd_input(data: bytes) -> None:
    try:
        expected: Any = json.loads(data)
    except (ValueError, RecursionError) as exc:
        with pytest.raises(type(exc)) as caught:
            FAST(data)
        assert str(caught.value) == str(exc)
    else:
        assert _same(FAST(data), expected)


def test_readers_give_the_same_output_with_and_without_orjson(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    shutil.copytree(EXAMPLES / "trajectories", folder)
    base = (EXAMPLES / "trajectories" / "kimuson-1af7fc5e-init-empty-repo.jsonl").read_bytes()
    odd = b"".join(line + b"\n" for line in BAD if b"\n" not in line)
    (folder / "odd.jsonl").write_bytes(
        base + odd + b'{"type": "user", "n": 12345678901234567890123}\n'
    )
    for command in (["convert"], ["score", "-d", "all", "--format", "jsonl", "-j", "1"]):
        fast = run_earnest("trajectory", *command, str(folder), env={"EARNEST_JSON": "orjson"})
        slow = run_earnest("trajectory", *command, str(folder), env={"EARNEST_JSON": "stdlib"})
        assert fast.returncode == slow.returncode == 0, fast.stderr
        assert fast.stdout == slow.stdout and fast.stderr == slow.stderr
        assert "odd.jsonl" in fast.stderr  # its bad lines were warned about, identically
