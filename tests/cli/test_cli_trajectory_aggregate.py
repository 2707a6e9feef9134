"""``trajectory score --shard i/N`` and ``trajectory aggregate``: shards rebuild the battery of
scoring everything at once, exactly. Real subprocess runs over the example trajectories."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_earnest

FOLDER = EXAMPLES / "trajectories"


def _score(*args: str) -> str:
    proc = run_earnest("trajectory", "score", str(FOLDER), "-d", "all", *args)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _shards(tmp_path: Path, count: int) -> list[Path]:
    paths = []
    for i in range(1, count + 1):
        out = tmp_path / f"shard-{i}-of-{count}.jsonl"
        proc = run_earnest(
            "trajectory", "score", str(FOLDER), "-d", "all", "--format", "jsonl",
            "--shard", f"{i}/{count}", "-o", str(out),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert f"earnest: shard {i}/{count}: " in proc.stderr
        paths.append(out)
    return paths


def test_shards_aggregate_to_the_battery_of_one_run(tmp_path: Path) -> None:
    whole = json.loads(_score("--format", "json"))
    shards = _shards(tmp_path, 3)
    records = [json.loads(line) for p in shards for line in p.read_text().splitlines()]
    # Disjoint, and together every trajectory once.
    keys = [(r["source"], r["trajectory_id"]) for r in records]
    assert len(keys) == len(set(keys)) == whole["battery"]["trajectories"] == 12
    assert sorted(keys) == sorted((t["source"], t["trajectory_id"]) for t in whole["trajectories"])
    assert all(p.read_text() for p in shards)  # each shard got a share

    proc = run_earnest("trajectory", "aggregate", *map(str, reversed(shards)), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "earnest: 12 trajectory results from 3 files" in proc.stderr
    assert json.loads(proc.stdout) == {"battery": whole["battery"]}


def test_aggregate_does_not_depend_on_record_order(tmp_path: Path) -> None:
    whole = json.loads(_score("--format", "json"))
    lines = _score("--format", "jsonl").splitlines()
    random.Random(7).shuffle(lines)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join(lines[:5]) + "\n\n")
    rest = tmp_path / "rest.jsonl"
    rest.write_text("\n".join(lines[5:]) + "\n")
    proc = run_earnest("trajectory", "aggregate", str(rest), str(mixed), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["battery"] == whole["battery"]


def test_aggregate_table_and_fail_over(tmp_path: Path) -> None:
    results = tmp_path / "all.jsonl"
    results.write_text(_score("--format", "jsonl"))
    proc = run_earnest("trajectory", "aggregate", str(results))
    assert proc.returncode == 0, proc.stderr
    assert "completion without effect: 2/12 trajectories (16.7%, 95% interval 4.7%-44.8%)" in (
        proc.stdout
    )
    proc = run_earnest("trajectory", "aggregate", str(results), "--fail-over", "0.1")
    assert proc.returncode == 1
    assert "exceeds --fail-over 10.0%" in proc.stderr


def test_a_shard_without_files_writes_empty_results(tmp_path: Path) -> None:
    out = tmp_path / "s13.jsonl"
    proc = run_earnest(
        "trajectory", "score", str(FOLDER), "--format", "jsonl", "--shard", "13/13", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert "shard 13/13: 0 of 12 files" in proc.stderr
    assert out.read_text() == ""


@pytest.mark.parametrize("shard", ["0/3", "4/3", "1/0", "a/b", "2"])
def test_a_wrong_shard_is_a_usage_error(shard: str) -> None:
    proc = run_earnest("trajectory", "score", str(FOLDER), "--shard", shard)
    assert proc.returncode == 2
    assert "earnest: --shard: " in proc.stderr and "Traceback" not in proc.stderr


def test_aggregate_refuses_a_double_count_and_bad_records(tmp_path: Path) -> None:
    results = tmp_path / "all.jsonl"
    results.write_text(_score("--format", "jsonl"))
    proc = run_earnest("trajectory", "aggregate", str(results), str(results))
    assert proc.returncode == 2
    assert f"{results}: line 1: trajectory " in proc.stderr and "already counted" in proc.stderr

    good = results.read_text().splitlines()
    broken = json.loads(good[1])
    broken["dimensions"]["planning"]["score"] = 1.5
    cases = {
        "not json\n": "line 1: not JSON",
        good[0] + "\n" + json.dumps(broken) + "\n": "line 2: dimensions.planning.score must be",
        '{"source": "x"}\n': "line 1: 'trajectory_id' must be a string",
        "[1]\n": "line 1: expected a JSON object",
    }
    for i, (text, message) in enumerate(cases.items()):
        bad = tmp_path / f"bad{i}.jsonl"
        bad.write_text(text)
        proc = run_earnest("trajectory", "aggregate", str(bad))
        assert proc.returncode == 2, text
        assert f"earnest: {bad}: {message}" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_earnest("trajectory", "aggregate", str(tmp_path / "missing.jsonl"))
    assert proc.returncode == 2 and "no such file" in proc.stderr


@pytest.mark.parametrize(
    ("other", "says"),
    [
        (["-d", "all", "--no-strict-claims"], "strict_claims off here, on there"),
        (["-d", "planning"], "dimensions planning here, "),
        (["-d", "all", "--max-downgrades", "5"], "max_downgrades 5 here, 2 there"),
    ],
)
def test_shards_scored_with_other_settings_are_refused(
    tmp_path: Path, other: list[str], says: str
) -> None:
    """Issue 22, item 14: each record carries its settings; mixing them is exit 2 naming both
    files, never one silent battery."""
    first, second = tmp_path / "part-1.jsonl", tmp_path / "part-2.jsonl"
    for out, shard, args in ((first, "1/2", ["-d", "all"]), (second, "2/2", other)):
        proc = run_earnest(
            "trajectory", "score", str(FOLDER), *args, "--format", "jsonl", "--shard", shard,
            "-o", str(out),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    proc = run_earnest("trajectory", "aggregate", str(first), str(second))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert str(second) in proc.stderr and str(first) in proc.stderr
    assert "scored with other settings than" in proc.stderr and says in proc.stderr, proc.stderr


def test_the_default_dimensions_by_name_are_the_same_settings(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out, shard, dims in ((first, "1/2", "default"),
                             (second, "2/2", "planning,tool_grounding,recovery,refusal")):  # fmt: skip
        proc = run_earnest("trajectory", "score", str(FOLDER), "-d", dims, "--format", "jsonl",
                           "--shard", shard, "-o", str(out))  # fmt: skip
        assert proc.returncode == 0, proc.stderr
    record = json.loads(first.read_text().splitlines()[0])
    assert record["settings"] == {
        "dimensions": ["planning", "recovery", "refusal", "tool_grounding"],
        "strict_claims": True,
        "max_downgrades": 2,
    }
    proc = run_earnest("trajectory", "aggregate", str(first), str(second))
    assert proc.returncode == 0, proc.stderr
