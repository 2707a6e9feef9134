"""``earnest trajectory convert``: real subprocess runs on the curated real transcripts in tests/data."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPTS, run_earnest
from earnest.trajectory import Trajectory, read_trajectories


def test_convert_a_directory_to_stdout() -> None:
    proc = run_earnest("trajectory", "convert", str(TRANSCRIPTS / "openhands"))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(records) == 4 and {r["format"] for r in records} == {"openhands"}
    assert all(r["schema"] == "earnest.trajectory/1" for r in records)
    assert "earnest: 4 trajectories from 4 of 4 files (openhands 4)" in proc.stderr


def test_convert_writes_a_file_that_reads_back_equal(tmp_path: Path) -> None:
    source = TRANSCRIPTS / "claude-code" / "mclaude-18240050-3ee8--create-app-shortcut.jsonl"
    out = tmp_path / "out.jsonl"
    proc = run_earnest("trajectory", "convert", str(source), "--output", str(out))
    assert proc.returncode == 0 and proc.stdout == ""
    assert proc.stderr.count("warning: ") == 5 and f"{source}:3: malformed JSON" in proc.stderr
    assert "5 lines skipped" in proc.stderr
    (back,) = read_trajectories(out)
    (direct,) = read_trajectories(source)
    assert back == direct and isinstance(back, Trajectory)
    again = tmp_path / "again.jsonl"
    proc = run_earnest("trajectory", "convert", str(out), "-o", str(again))
    assert proc.returncode == 0 and again.read_text() == out.read_text()


def test_json_array_output(tmp_path: Path) -> None:
    proc = run_earnest(
        "trajectory", "convert", str(TRANSCRIPTS / "claude-headless-json"), "--format", "json"
    )
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert [d["termination"]["reason"] for d in data].count("usage_limit") == 1
    assert len(data) == 5  # the *.diff companions are not transcripts


def test_unusable_input_exits_2_and_keeps_the_old_output(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00\x01 not a transcript")
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n")
    proc = run_earnest("trajectory", "convert", str(junk), "-o", str(out))
    assert proc.returncode == 2
    assert "no readable trajectory found" in proc.stderr and "Traceback" not in proc.stderr
    assert out.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.jsonl", "out.jsonl"]


def test_missing_path_bad_options_and_self_overwrite(tmp_path: Path) -> None:
    proc = run_earnest("trajectory", "convert", str(tmp_path / "missing.jsonl"))
    assert proc.returncode == 2 and "no such file or directory" in proc.stderr
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    proc = run_earnest("trajectory", "convert", str(chat), "--format", "yaml")
    assert proc.returncode == 2 and "--format" in proc.stderr
    proc = run_earnest("trajectory", "convert", str(chat), "--input-format", "nope")
    assert proc.returncode == 2 and "--input-format" in proc.stderr
    proc = run_earnest("trajectory", "convert", str(chat), "-o", str(chat))
    assert proc.returncode == 2 and "refusing to overwrite" in proc.stderr
    assert json.loads(chat.read_text()) == [{"role": "user", "content": "hi"}]


def test_verbose_names_each_format_and_help_lists_convert() -> None:
    proc = run_earnest("trajectory", "convert", "-v", str(TRANSCRIPTS / "codex"))
    assert proc.returncode == 0
    assert "kvsankar-real-codex-exec-session-01-redacted.jsonl: codex-rollout" in proc.stderr
    helped = run_earnest("trajectory", "--help")
    assert helped.returncode == 0 and "convert" in helped.stdout
