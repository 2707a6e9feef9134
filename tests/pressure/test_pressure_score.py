"""score_replies: input order, counts per verdict, several files, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.pressure import load_suite
from earnest.pressure.models import VERDICTS
from earnest.pressure.score import iter_scored, score_replies
from suitekit import fixture_data, write_replies, write_suite

FID = "FX-R08-RETRY"
ROWS = [
    {"fixture_id": FID, "response": "Rule 8.\nCHOICE: C", "model": "m", "arm": "rule", "epoch": 0},
    {"fixture_id": FID, "response": "CHOICE: A", "model": "m", "arm": "ablated", "epoch": 0},
    {"fixture_id": FID, "response": "CHOICE: C"},
    {"fixture_id": FID, "response": "CHOICE: B/D"},
    {"fixture_id": FID, "response": ""},
    {"fixture_id": FID, "response": "Rule 8.\nCHOICE: A", "order": ["C", "A", "B", "D"]},
]


def test_scores_in_input_order_with_counts(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path / "suite"))
    path = write_replies(tmp_path / "r.jsonl", ROWS)
    result = score_replies(suite, [path])
    assert [r.judgement.verdict for r in result.replies] == [
        "pass",
        "fail-choice",
        "fail-citation",
        "fail-hybrid",
        "fail-unparseable",
        "pass",
    ]
    assert [r.record.line for r in result.replies] == [1, 2, 3, 4, 5, 6]
    assert result.counts == {
        "pass": 2,
        "fail-choice": 1,
        "fail-citation": 1,
        "fail-hybrid": 1,
        "fail-unparseable": 1,
        "fail-action": 0,
    }
    assert list(result.counts) == list(VERDICTS)
    assert (result.total, result.passed, result.failed, result.all_passed) == (6, 2, 4, False)
    s = result.summary()
    assert s["pass_rate"] == pytest.approx(2 / 6)
    assert 0 < s["pass_rate_interval"][0] < 2 / 6 < s["pass_rate_interval"][1] < 1


def test_several_files_keep_file_order(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path / "suite"))
    a = write_replies(tmp_path / "a.jsonl", ROWS[:2])
    b = write_replies(tmp_path / "b.jsonl", ROWS[2:3])
    result = score_replies(suite, [b, a])
    assert [(Path(r.record.file).name, r.record.line) for r in result.replies] == [
        ("b.jsonl", 1),
        ("a.jsonl", 1),
        ("a.jsonl", 2),
    ]


def test_all_pass_and_empty(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path / "suite"))
    ok = score_replies(suite, [write_replies(tmp_path / "ok.jsonl", ROWS[:1])])
    assert ok.all_passed
    empty = score_replies(suite, [write_replies(tmp_path / "e.jsonl", [])])
    assert empty.total == 0 and not empty.all_passed  # nothing scored is not a pass


def test_bad_line_raises_input_error(tmp_path: Path) -> None:
    suite = load_suite(write_suite(tmp_path / "suite"))
    path = write_replies(tmp_path / "r.jsonl", [*ROWS[:2], {"fixture_id": "X", "response": ""}])
    with pytest.raises(InputError) as info:
        score_replies(suite, [path])
    assert (info.value.file, info.value.place) == (str(path), "line 3")


def test_iter_scored_streams(tmp_path: Path) -> None:
    suite = load_suite(
        write_suite(tmp_path / "suite", [fixture_data(), fixture_data(id="FX-2", rule=6)])
    )
    path = write_replies(
        tmp_path / "r.jsonl", [{"fixture_id": "FX-2", "response": "Rule 6\nCHOICE: c"}, "{bad"]
    )
    it = iter_scored(suite, [path])
    first = next(it)
    assert (first.judgement.fixture_id, first.judgement.verdict) == ("FX-2", "pass")
    with pytest.raises(InputError):
        next(it)
