"""Contradictory or out-of-range options are refused before anything runs."""

from __future__ import annotations

from pathlib import Path

from conftest import EXAMPLES, run_earnest

SUITE = EXAMPLES / "suite"


def test_no_shuffle_with_a_seed_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "runs.db"
    proc = run_earnest(
        "run", "--suite", str(SUITE), "--profile", "r=replay:none.jsonl",
        "--no-shuffle", "--seed", "3", "--store", str(store), "--yes",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "--seed: contradicts --no-shuffle" in proc.stderr and "Traceback" not in proc.stderr
    assert not store.exists()  # refused before a run was created


def test_prompt_refuses_a_negative_seed_like_run() -> None:
    prompt = run_earnest("prompt", "IMPL-R1-FLAKY-RETRY", "-s", str(SUITE), "--seed", "-1")
    run = run_earnest("run", "-s", str(SUITE), "--seed", "-1")
    assert prompt.returncode == run.returncode == 2
    assert "--seed: must be at least 0" in prompt.stderr
    assert "--seed: must be at least 0" in run.stderr


def test_prompt_without_a_seed_says_fixture_order() -> None:
    proc = run_earnest("prompt", "IMPL-R1-FLAKY-RETRY", "-s", str(SUITE))
    assert proc.returncode == 0, proc.stderr
    head = proc.stdout.splitlines()[0]
    assert "None" not in proc.stdout.splitlines()[0]
    assert head == "# fixture IMPL-R1-FLAKY-RETRY, arm rule, fixture order"
    seeded = run_earnest("prompt", "IMPL-R1-FLAKY-RETRY", "-s", str(SUITE), "--seed", "3")
    assert seeded.stdout.splitlines()[0] == "# fixture IMPL-R1-FLAKY-RETRY, arm rule, seed 3"
