"""``earnest score --shard i/N`` and ``earnest aggregate``: the shards' per-reply results
rebuild the summary of scoring every reply at once. Real subprocess runs on the example suite."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_earnest

SUITE = EXAMPLES / "suite"
REPLIES = SUITE / "recorded" / "replies.jsonl"


def _score(*args: str) -> str:
    proc = run_earnest("score", str(REPLIES), "--suite", str(SUITE), *args)
    assert proc.returncode == 1, proc.stderr  # the example replies do not all pass
    return proc.stdout


@pytest.mark.parametrize("count", [2, 5])
def test_shards_aggregate_to_the_summary_of_one_run(tmp_path: Path, count: int) -> None:
    whole = json.loads(_score("--format", "json"))
    shards = []
    for i in range(1, count + 1):
        out = tmp_path / f"s{i}.jsonl"
        _score("--format", "jsonl", "--shard", f"{i}/{count}", "-o", str(out))
        shards.append(out)
    records = [json.loads(line) for p in shards for line in p.read_text().splitlines()]
    assert sorted(r["line"] for r in records) == [r["line"] for r in whole["replies"]]
    sizes = [len(p.read_text().splitlines()) for p in shards]
    assert sum(sizes) == 27 and max(sizes) - min(sizes) <= 1

    proc = run_earnest("aggregate", *map(str, reversed(shards)), "--format", "json")
    assert proc.returncode == 1, proc.stderr  # not every reply passed, as in the one run
    assert f"earnest: 27 scored replies from {count} files" in proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary.pop("results") == [str(p) for p in reversed(shards)]
    expected = whole["summary"]
    del expected["suite"], expected["files"]
    assert summary == expected


def test_aggregate_table(tmp_path: Path) -> None:
    results = tmp_path / "all.jsonl"
    results.write_text(_score("--format", "jsonl"))
    proc = run_earnest("aggregate", str(results))
    assert proc.returncode == 1, proc.stderr
    assert "13/27 passed (48%, 95% interval 31%-66%)" in proc.stdout
    assert "fail-unparseable" in proc.stdout


def test_aggregate_refuses_double_counts_and_bad_records(tmp_path: Path) -> None:
    results = tmp_path / "all.jsonl"
    results.write_text(_score("--format", "jsonl"))
    proc = run_earnest("aggregate", str(results), str(results))
    assert proc.returncode == 2
    assert f"earnest: {results}: line 1: the reply of " in proc.stderr
    assert "already counted" in proc.stderr
    first = json.loads(results.read_text().splitlines()[0])
    cases = {
        "{oops\n": "line 1: not JSON",
        json.dumps({**first, "verdict": "maybe"}) + "\n": "line 1: 'verdict' must be one of",
        "\n" + json.dumps({**first, "line": "3"}) + "\n": "line 2: 'line' must be a whole number",
    }
    for i, (text, message) in enumerate(cases.items()):
        bad = tmp_path / f"bad{i}.jsonl"
        bad.write_text(text)
        proc = run_earnest("aggregate", str(bad))
        assert proc.returncode == 2, text
        assert f"earnest: {bad}: {message}" in proc.stderr and "Traceback" not in proc.stderr


def test_score_wrong_shard_is_a_usage_error() -> None:
    proc = run_earnest("score", str(REPLIES), "--suite", str(SUITE), "--shard", "3/2")
    assert proc.returncode == 2 and "earnest: --shard: i must be from 1 to 2" in proc.stderr
