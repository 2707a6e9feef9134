"""Issue 10: choice-only suites (``[suite] citation`` and ``--no-citation`` on score, check and
run), citations from reasoning, and ``earnest score`` streaming with flat memory."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SRC, run_earnest
from suitekit import CONFIG, write_replies, write_suite

FID = "FX-R08-RETRY"
UNCITED = {"fixture_id": FID, "response": "The lock is the better engineering.\nCHOICE: C"}
THOUGHT = {
    "fixture_id": FID,
    "response": "<think>Rule 8 is the point here.</think>\nThe lock is better.\nCHOICE: C",
}


def scored(proc: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def test_citation_required_by_default_and_recorded(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s")
    replies = write_replies(tmp_path / "r.jsonl", [UNCITED])
    proc = run_earnest("score", str(replies), "--suite", str(suite), "--format", "jsonl")
    assert proc.returncode == 1
    (row,) = scored(proc)
    assert (row["verdict"], row["citation"]) == ("fail-citation", "required")


@pytest.mark.parametrize("how", ["config", "flag"])
def test_choice_only_mode(tmp_path: Path, how: str) -> None:
    config = CONFIG + 'citation = "optional"\n' if how == "config" else CONFIG
    suite = write_suite(tmp_path / "s", config=config)
    replies = write_replies(tmp_path / "r.jsonl", [UNCITED])
    flag = ["--no-citation"] if how == "flag" else []
    proc = run_earnest("score", str(replies), "--suite", str(suite), "--format", "jsonl", *flag)
    assert proc.returncode == 0, proc.stderr
    (row,) = scored(proc)
    assert (row["verdict"], row["citation"]) == ("pass", "optional")
    assert row["missing_citations"] == ["Rule 8"]  # still recorded

    doc = json.loads(
        run_earnest("score", str(replies), "--suite", str(suite), "--format", "json", *flag).stdout
    )
    assert doc["summary"]["citation"] == "optional"
    assert doc["replies"][0]["citation"] == "optional"
    table = run_earnest("score", str(replies), "--suite", str(suite), *flag)
    assert "citation: optional" in table.stdout
    junit = run_earnest("score", str(replies), "--suite", str(suite), "--format", "junit", *flag)
    assert 'name="citation" value="optional"' in junit.stdout


def test_check_takes_no_citation(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s", config=CONFIG + 'replies = ["recorded/*.jsonl"]\n')
    (suite / "recorded").mkdir()
    write_replies(suite / "recorded" / "r.jsonl", [UNCITED])
    strict = run_earnest("check", "--suite", str(suite), "--format", "json")
    assert strict.returncode == 1
    assert json.loads(strict.stdout)["citation"] == "required"
    loose = run_earnest("check", "--suite", str(suite), "--format", "json", "--no-citation")
    doc = json.loads(loose.stdout)
    assert doc["citation"] == "optional" and doc["replies"]["summary"]["citation"] == "optional"
    assert doc["gating_failures"] == 0


def test_bad_citation_value_is_named(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "s", config=CONFIG + 'citation = "sometimes"\n')
    replies = write_replies(tmp_path / "r.jsonl", [UNCITED])
    proc = run_earnest("score", str(replies), "--suite", str(suite))
    assert proc.returncode == 2
    assert "suite.citation" in proc.stderr and "Traceback" not in proc.stderr


def test_citations_from_reasoning_opt_in(tmp_path: Path) -> None:
    replies = write_replies(tmp_path / "r.jsonl", [THOUGHT])
    plain = write_suite(tmp_path / "a")
    proc = run_earnest("score", str(replies), "--suite", str(plain), "--format", "jsonl")
    (row,) = scored(proc)
    assert row["verdict"] == "fail-citation" and row["reasoning"] == "Rule 8 is the point here."
    opted = write_suite(tmp_path / "b", config=CONFIG + "citations_from_reasoning = true\n")
    proc = run_earnest("score", str(replies), "--suite", str(opted), "--format", "jsonl")
    (row,) = scored(proc)
    assert row["verdict"] == "pass" and row["citations_from_reasoning"] is True


def test_score_streams_jsonl_as_it_judges(tmp_path: Path) -> None:
    """The first result is on stdout before the input has ended."""
    suite = write_suite(tmp_path / "s")
    env_path = f"{SRC}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "earnest", "score", "-", "--suite", str(suite), "--format", "jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(json.dumps(UNCITED) + "\n")
        proc.stdin.flush()
        # The first result arrives while stdin is still open (a batch writer would wait for EOF).
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        if not ready:
            proc.kill()
            pytest.fail("no result on stdout before the input ended: not streamed")
        first = proc.stdout.readline()
        assert json.loads(first)["verdict"] == "fail-citation"
        proc.stdin.write(json.dumps(UNCITED) + "\n")
        proc.stdin.close()
        rest = proc.stdout.read()
    finally:
        proc.wait(timeout=60)
    assert len(rest.splitlines()) == 1 and proc.returncode == 1


def _peak_rss_kb(suite: Path, replies: Path, fmt: str) -> int:
    """Peak RSS of one ``earnest score`` child (ru_maxrss of the children of a fresh process)."""
    code = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            sys.executable,
            "-m",
            "earnest",
            "score",
            str(replies),
            "--suite",
            str(suite),
            "--format",
            fmt,
        ],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
        timeout=600,
        check=True,
    )
    return int(out.stdout.strip())


@pytest.mark.parametrize("fmt", ["jsonl", "json", "table"])
def test_memory_is_flat_in_the_number_of_replies(tmp_path: Path, fmt: str) -> None:
    suite = write_suite(tmp_path / "s")
    text = "The operator asked. " * 100 + "Rule 8 holds.\nCHOICE: C"  # ~2 KB, a pass
    row = json.dumps({"fixture_id": FID, "response": text})
    small = tmp_path / "small.jsonl"
    large = tmp_path / "large.jsonl"
    small.write_text((row + "\n") * 1_000, encoding="utf-8")
    large.write_text((row + "\n") * 20_000, encoding="utf-8")
    grew = _peak_rss_kb(suite, large, fmt) - _peak_rss_kb(suite, small, fmt)
    # holding every result (~6 KB each) would add ~110 MB for the 19,000 more replies
    assert grew < 25_000, f"peak RSS grew by {grew} KB"
