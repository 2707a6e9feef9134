"""The scorer was made faster (issue 10, item 10); these tests prove no judgement moved.

``snapshots/speed_golden.json.xz`` was written by ``speed_golden.py`` with the scorer as it was
before that work: the benchmark's 2,000-reply mix (every envelope, every failure mode) and
every line and whole file of the real transcripts, event logs and test outputs in the
repository, under the three citation modes. Every judgement must hash the same.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from speed_golden import file_texts, judge_one, load, text_digest


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return load()


def test_golden_covers_every_verdict_and_envelope(golden: dict[str, Any]) -> None:
    bench = golden["bench"]
    assert len(bench) == 2000
    verdicts = Counter(r["verdict"] for r in bench)
    assert set(verdicts) == {
        "pass",
        "fail-choice",
        "fail-citation",
        "fail-hybrid",
        "fail-unparseable",
    }
    assert sum(verdicts.values()) - verdicts["pass"] >= 600
    assert len(golden["files"]) >= 5000
    assert {r["mode"] for r in golden["files"]} == {0, 1, 2}


def test_benchmark_mix_judged_as_in_the_golden_file(golden: dict[str, Any]) -> None:
    wrong = []
    for i, rec in enumerate(golden["bench"]):
        now = judge_one("example", rec["fixture_id"], rec["mode"], rec["response"])
        if now["digest"] != rec["digest"]:
            wrong.append((i, rec["verdict"], rec["reason"], now["verdict"], now["reason"]))
    assert not wrong, f"{len(wrong)} judgements changed; first: {wrong[:3]}"


def test_repository_texts_judged_as_in_the_golden_file(golden: dict[str, Any]) -> None:
    want = {(r["path"], r["line"]): r for r in golden["files"]}
    seen = 0
    wrong = []
    for path, line, text in file_texts():
        rec = want.get((path, line))
        if rec is None or rec["text"] != text_digest(text):
            continue  # a file added or changed since: not part of the golden corpus
        seen += 1
        now = judge_one(rec["suite"], rec["fixture_id"], rec["mode"], text)
        if now["digest"] != rec["digest"]:
            wrong.append((path, line, rec["reason"], now["reason"]))
    assert seen >= 0.9 * len(want)
    assert not wrong, f"{len(wrong)} judgements changed; first: {wrong[:3]}"
