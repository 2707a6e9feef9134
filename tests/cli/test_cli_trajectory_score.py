"""``earnest trajectory score`` and ``replay-gate``: real subprocess runs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import EXAMPLES, TRANSCRIPTS, run_earnest

FOLDER = EXAMPLES / "trajectories"


def test_score_table_on_the_examples() -> None:
    proc = run_earnest("trajectory", "score", str(FOLDER))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Trajectories" in out and "Battery" in out
    assert "kimuson-1af7fc5e-init-empty-repo.jsonl" in out and "WITHOUT EFFECT" in out
    assert "max_turns" in out and "api_error" in out
    assert "completion without effect: 2/12 trajectories (16.7%, 95% interval 4.7%-44.8%)" in out
    assert "effect_grounding" not in out  # opt-in
    assert "earnest: 12 trajectories from 12 of 12 files" in proc.stderr


def test_score_jsonl() -> None:
    proc = run_earnest("trajectory", "score", str(FOLDER), "--format", "jsonl", "-d", "all")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(rows) == 12
    for row in rows:
        assert {"source", "trajectory_id", "format", "completion_without_effect",
                "terminated_abnormally", "dimensions"} <= set(row)  # fmt: skip
        assert set(row["dimensions"]) == {
            "planning", "tool_grounding", "recovery", "refusal", "effect_grounding"
        }  # fmt: skip
        for body in row["dimensions"].values():
            assert {"score", "confidence", "reason"} <= set(body)
    by_file = {Path(r["source"]).name: r for r in rows}
    assert by_file["kimuson-1af7fc5e-init-empty-repo.jsonl"]["completion_without_effect"] is True
    api = by_file["mclaude-412e2513-f75c--only-api-errors.jsonl"]
    assert api["terminated_abnormally"] is True and api["completion_without_effect"] is False
    assert by_file["mclaude-91b751c5-d980--hi-QA.jsonl"]["outcome"] == "backed"


def test_score_json_with_chosen_dimensions() -> None:
    proc = run_earnest(
        "trajectory", "score", str(FOLDER), "--format", "json",
        "--dimensions", "effect_grounding,refusal",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc) == {"battery", "trajectories"}
    battery = doc["battery"]
    assert set(battery["dimensions"]) == {"refusal", "effect_grounding"}
    assert battery["completion_without_effect"]["count"] == 2
    assert battery["formats"]["claude-code"]["trajectories"] == 6
    assert battery["gate"] == {"claims": 14, "downgraded": 3, "exhausted": 2}


def test_score_junit(tmp_path: Path) -> None:
    out = tmp_path / "report.xml"
    proc = run_earnest("trajectory", "score", str(FOLDER), "--format", "junit", "-o", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    root = ET.parse(out).getroot()
    assert root.get("tests") == "12" and root.get("failures") == "2" and root.get("skipped") == "4"
    failures = [
        (case.get("name"), case.find("failure"))
        for case in root.iter("testcase")
        if case.find("failure") is not None
    ]
    names = sorted(str(name) for name, _ in failures)
    assert names[0].startswith("handmade-stop-hook-loop-unbacked.jsonl")
    assert names[1].startswith("kimuson-1af7fc5e-init-empty-repo.jsonl")
    for _, failure in failures:
        assert failure is not None and failure.get("type") == "completion-without-effect"
        assert (failure.get("message") or "").startswith("completion-without-effect")


@pytest.mark.parametrize(("rate", "code"), [("0.1", 1), ("0.2", 0)])
def test_fail_over_gates_on_the_rate(rate: str, code: int) -> None:
    proc = run_earnest("trajectory", "score", str(FOLDER), "--format", "jsonl", "--fail-over", rate)
    assert proc.returncode == code, proc.stderr
    if code:
        assert "completion-without-effect rate 16.7% (2/12) exceeds --fail-over" in proc.stderr


def test_fail_over_passes_when_nothing_is_without_effect() -> None:
    proc = run_earnest(
        "trajectory", "score", str(FOLDER / "drmaciver-coverage-test-fix.jsonl"),
        str(FOLDER / "mclaude-412e2513-f75c--only-api-errors.jsonl"), "--fail-over", "0",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["does-not-exist"], "does-not-exist: no such file or directory"),
        ([str(FOLDER), "--dimensions", "vibes"], "--dimensions: unknown dimension 'vibes'"),
        ([str(FOLDER), "--fail-over", "1.5"], "--fail-over: must be a fraction from 0 to 1"),
        ([str(FOLDER), "--input-format", "nope"], "--input-format: unknown format"),
        ([str(FOLDER / "SOURCE.md")], "no readable trajectory found"),
    ],
)
def test_unusable_input_exits_2(args: list[str], message: str) -> None:
    proc = run_earnest("trajectory", "score", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_binary_and_empty_files_are_unusable(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "blob.json").write_bytes(b"\x00\x01\x02\xff" * 100)
    proc = run_earnest("trajectory", "score", str(tmp_path))
    assert proc.returncode == 2
    assert "empty file" in proc.stderr and "no readable trajectory found" in proc.stderr


def test_score_never_overwrites_an_input(tmp_path: Path) -> None:
    source = tmp_path / "run.jsonl"
    source.write_bytes((FOLDER / "mclaude-91b751c5-d980--hi-QA.jsonl").read_bytes())
    proc = run_earnest("trajectory", "score", str(tmp_path), "-o", str(source))
    assert proc.returncode == 2 and "refusing to overwrite" in proc.stderr
    assert source.read_bytes() == (FOLDER / "mclaude-91b751c5-d980--hi-QA.jsonl").read_bytes()


def test_replay_gate_table() -> None:
    proc = run_earnest("trajectory", "replay-gate", str(FOLDER))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "12 trajectories, 12 runs, 14 claimed completions: 9 passed, 3 downgraded" in out
    assert "budget ran out 2 time(s) (in 1 run(s), max_downgrades 2)" in out
    assert "5  completion-without-effect: expected workspace_delta; no change or check" in out
    assert "verify_artifacts=False" in out


def test_replay_gate_json_and_budget() -> None:
    proc = run_earnest("trajectory", "replay-gate", str(FOLDER), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    s = doc["summary"]
    assert (s["claims"], s["downgraded"], s["exhausted"]) == (14, 3, 2)
    assert s["workspace"] == "none" and "verify_artifacts=False" in s["note"]
    loop = next(t for t in doc["trajectories"] if "handmade" in t["source"])
    assert [c["outcome"] for c in loop["run_details"][0]["claims"]] == [
        "downgraded", "downgraded", "exhausted", "exhausted"
    ]  # fmt: skip
    wider = run_earnest(
        "trajectory", "replay-gate", str(FOLDER), "--format", "json", "--max-downgrades", "5"
    )
    s = json.loads(wider.stdout)["summary"]
    assert (s["downgraded"], s["exhausted"], s["max_downgrades"]) == (5, 0, 5)


def test_replay_gate_ignores_the_kill_switch() -> None:
    # EARNEST_EFFECT_GATE governs live loops; a measurement always replays the gate.
    proc = run_earnest(
        "trajectory", "replay-gate", str(FOLDER), "--format", "json",
        env={"EARNEST_EFFECT_GATE": "0"},
    )  # fmt: skip
    assert proc.returncode == 0 and json.loads(proc.stdout)["summary"]["downgraded"] == 3


def test_replay_gate_unusable_input() -> None:
    proc = run_earnest("trajectory", "replay-gate", "nowhere.jsonl")
    assert proc.returncode == 2 and "nowhere.jsonl: no such file or directory" in proc.stderr


def test_score_reports_reader_warnings_on_real_files() -> None:
    source = TRANSCRIPTS / "claude-code" / "mclaude-18240050-3ee8--create-app-shortcut.jsonl"
    proc = run_earnest("trajectory", "score", str(source), "--format", "jsonl")
    assert proc.returncode == 0
    assert f"warning: {source}:3: malformed JSON" in proc.stderr
    (row,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert row["terminated_abnormally"] is True and row["termination"]["reason"] == "truncated"
