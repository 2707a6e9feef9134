"""Recorded replies reader: valid lines, every kind of bad line, streaming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.pressure import load_suite
from earnest.pressure.replies import read_replies
from earnest.pressure.score import fixture_index
from suitekit import fixture_data, write_replies, write_suite

FID = "FX-R08-RETRY"


@pytest.fixture
def fixtures(tmp_path: Path) -> dict:  # type: ignore[type-arg]
    return fixture_index(load_suite(write_suite(tmp_path / "suite")))[0]


def test_reads_all_fields_and_skips_blank_lines(tmp_path: Path, fixtures: dict) -> None:  # type: ignore[type-arg]
    path = write_replies(
        tmp_path / "r.jsonl",
        [
            {"fixture_id": FID, "response": "CHOICE: C"},
            "",
            "   ",
            {
                "fixture_id": FID,
                "response": "CHOICE: A",
                "model": "m",
                "arm": "ablated",
                "epoch": 3,
                "order": ["D", "C", "B", "A"],
                "ts": "2026-01-01",
            },
        ],
    )
    recs = list(read_replies(path, fixtures))
    assert [(r.line, r.response) for r in recs] == [(1, "CHOICE: C"), (4, "CHOICE: A")]
    r = recs[1]
    assert (r.model, r.arm, r.epoch, r.order) == ("m", "ablated", 3, ("D", "C", "B", "A"))
    assert r.extra == {"ts": "2026-01-01"}
    assert recs[0].order is None and recs[0].arm is None and recs[0].epoch is None
    assert r.file == str(path)


def test_streams_one_line_at_a_time(tmp_path: Path, fixtures: dict) -> None:  # type: ignore[type-arg]
    path = write_replies(tmp_path / "r.jsonl", [{"fixture_id": FID, "response": "x"}, "{broken"])
    it = read_replies(path, fixtures)
    assert next(it).line == 1  # the good line arrives before the bad one is read
    with pytest.raises(InputError, match="line 2"):
        next(it)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{broken", "invalid JSON"),
        ("[1, 2]", "expected a JSON object, got a list"),
        ('"text"', "expected a JSON object, got a string"),
        (json.dumps({"response": "x"}), "missing field 'fixture_id'"),
        (json.dumps({"fixture_id": FID}), "missing field 'response'"),
        (json.dumps({"fixture_id": 7, "response": "x"}), "'fixture_id' must be a non-empty string"),
        (
            json.dumps({"fixture_id": "", "response": "x"}),
            "'fixture_id' must be a non-empty string",
        ),
        (
            json.dumps({"fixture_id": FID, "response": None}),
            "'response' must be a string, got null",
        ),
        (
            json.dumps({"fixture_id": FID, "response": {"a": 1}}),
            "'response' must be a string, got an object",
        ),
        (json.dumps({"fixture_id": FID, "response": "x", "model": 3}), "'model' must be a string"),
        (
            json.dumps({"fixture_id": FID, "response": "x", "arm": "baseline"}),
            "'arm' must be one of rule, ablated",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "epoch": -1}),
            "'epoch' must be a whole number >= 0",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "epoch": 1.5}),
            "'epoch' must be a whole number",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "epoch": True}),
            "'epoch' must be a whole number",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "epoch": "1"}),
            "'epoch' must be a whole number",
        ),
        (
            json.dumps({"fixture_id": "FX-R08-RETRI", "response": "x"}),
            "unknown fixture id 'FX-R08-RETRI' (did you mean 'FX-R08-RETRY'?)",
        ),
        (
            json.dumps({"fixture_id": "NOPE", "response": "x"}),
            "unknown fixture id 'NOPE' (not in the suite)",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "order": "ABCD"}),
            "'order' must be a list of choice ids",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "order": ["A", "B", "C"]}),
            "is not a permutation",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "order": ["A", "B", "C", "C"]}),
            "is not a permutation",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "order": ["A", "B", "C", "E"]}),
            "is not a permutation",
        ),
        (
            json.dumps({"fixture_id": FID, "response": "x", "order": [1, 2, 3, 4]}),
            "'order' must be a list of choice ids",
        ),
    ],
)
def test_bad_lines_name_file_line_and_problem(
    tmp_path: Path,
    fixtures: dict,  # type: ignore[type-arg]
    line: str,
    message: str,
) -> None:
    path = write_replies(tmp_path / "r.jsonl", [{"fixture_id": FID, "response": "ok"}, "", line])
    with pytest.raises(InputError) as info:
        list(read_replies(path, fixtures))
    err = info.value
    assert err.file == str(path)
    assert err.place == "line 3"
    assert message in err.message


def test_order_null_means_fixture_order(tmp_path: Path, fixtures: dict) -> None:  # type: ignore[type-arg]
    path = write_replies(
        tmp_path / "r.jsonl", [{"fixture_id": FID, "response": "x", "order": None}]
    )
    assert next(read_replies(path, fixtures)).order is None


def test_not_utf8(tmp_path: Path, fixtures: dict) -> None:  # type: ignore[type-arg]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"fixture_id": "FX-R08-RETRY", "response": "ok"}\n{"response": "\xff"}\n')
    with pytest.raises(InputError, match="line 2: not UTF-8"):
        list(read_replies(path, fixtures))


def test_utf8_bom_is_accepted(tmp_path: Path, fixtures: dict) -> None:  # type: ignore[type-arg]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"fixture_id": "FX-R08-RETRY", "response": "ok"}\n')
    assert [r.line for r in read_replies(path, fixtures)] == [1]


def test_missing_file_and_folder(tmp_path: Path, fixtures: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(InputError, match="does not exist"):
        list(read_replies(tmp_path / "nope.jsonl", fixtures))
    with pytest.raises(InputError, match="is a folder"):
        list(read_replies(tmp_path, fixtures))


def test_reply_to_a_fixture_that_failed_to_load_says_so(tmp_path: Path) -> None:
    broken = fixture_data(id="FX-BROKEN", pressures=["time"], choices="nope")
    suite = load_suite(write_suite(tmp_path / "suite", [fixture_data(), broken]))
    fixtures, failed = fixture_index(suite)
    path = write_replies(tmp_path / "r.jsonl", [{"fixture_id": "FX-BROKEN", "response": "x"}])
    with pytest.raises(
        InputError, match=r"did not load .*FX-BROKEN\.json has defects: run `earnest lint`"
    ):
        list(read_replies(path, fixtures, broken=failed))
