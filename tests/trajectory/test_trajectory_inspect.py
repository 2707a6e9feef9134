"""Inspect AI logs as trajectories: a real ``inspect_ai.eval`` of a tiny agent task with
tools (``mockllm/model``, scripted replies, a tool that really writes files), its ``.eval``
log and the same log written as an old ``.json`` log, scored by ``earnest trajectory
score`` in a subprocess that never imports inspect_ai. Damaged and hostile archives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, SRC, run_earnest
from earnest.trajectory import ReadReport, read_trajectories
from earnest.trajectory.readers import inspect_log
from earnest.trajectory.readers.detect import detect_format
from earnest.trajectory.readers.ziparchive import read_member

pytest.importorskip("inspect_ai")  # the `inspect` extra, installed with `dev`

SCRIPT = Path(__file__).with_name("inspect_agent_eval.py")

EXPECTED = {
    # trajectory id -> (outcome, termination reason, tool calls, outcomes of the calls)
    "write#1": ("backed", "normal", ["success"]),
    "claim#1": ("completion_without_effect", "normal", []),
    "fail#1": ("completion_without_effect", "normal", ["error"]),
    "loop#1": ("abnormal", "max_turns", ["success", "success", "unknown"]),  # cut by the limit
    "crash#1": ("abnormal", "api_error", ["unknown"]),
    "react#1": ("backed", "normal", ["success"]),
}


@pytest.fixture(scope="module")
def inspect_run(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, list[dict[str, Any]]]:
    """The real eval, run once: (log folder, workspace, read_eval_log facts per sample)."""
    root = tmp_path_factory.mktemp("inspect")
    logs, workspace = root / "logs", root / "workspace"
    logs.mkdir()
    workspace.mkdir()
    env = dict(os.environ, INSPECT_LOG_DIR=str(logs), HOME=str(root), NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(logs), str(workspace)],
        capture_output=True, text=True, cwd=root, env=env, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    facts = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return logs, workspace, facts


def _scores(paths: list[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    proc = run_earnest("trajectory", "score", *map(str, paths), "-d", "all", "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    return {(Path(r["source"]).suffix, r["trajectory_id"]): r for r in rows}


def _converted(path: Path) -> dict[str, dict[str, Any]]:
    proc = run_earnest("trajectory", "convert", str(path))
    assert proc.returncode == 0, proc.stderr
    return {d["id"]: d for d in map(json.loads, proc.stdout.splitlines())}


def test_the_real_eval_ran_its_tools(inspect_run: tuple[Path, Path, list[dict[str, Any]]]) -> None:
    logs, workspace, facts = inspect_run
    assert sorted(p.name for p in workspace.iterdir()) == [
        "a.txt",
        "d.txt",
        "m0.txt",
        "m1.txt",
        "m2.txt",
    ]
    assert len(list(logs.glob("*.eval"))) == 2 and len(list(logs.glob("*.json"))) == 2
    assert {f["id"] for f in facts} == {k.split("#")[0] for k in EXPECTED}


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_each_sample_is_scored_like_any_trajectory(
    inspect_run: tuple[Path, Path, list[dict[str, Any]]], suffix: str
) -> None:
    logs, _, _ = inspect_run
    scores = _scores(sorted(logs.glob(f"*{suffix}")))
    got = {
        tid: (r["outcome"], r["termination"]["reason"], r["tool_calls"])
        for (_, tid), r in scores.items()
    }
    assert got == {tid: (o, t, len(c)) for tid, (o, t, c) in EXPECTED.items()}
    assert {r["format"] for r in scores.values()} == {"inspect"}
    assert scores[(suffix, "write#1")]["reason"] == "workspace_delta: write (a.txt), unverified"
    assert scores[(suffix, "claim#1")]["reason"].startswith(
        "completion-without-effect: expected a workspace_delta"
    )
    assert "message limit 6 reached" in scores[(suffix, "loop#1")]["reason"]
    assert "the tool crashed" in scores[(suffix, "crash#1")]["termination"]["detail"]


def test_calls_and_errors_match_what_inspect_reads(
    inspect_run: tuple[Path, Path, list[dict[str, Any]]],
) -> None:
    """Every call id, tool name and tool error inspect_ai's own read_eval_log sees."""
    logs, _, facts = inspect_run
    for fact in facts:
        trajectory = _converted(logs / fact["log"])[f"{fact['id']}#{fact['epoch']}"]
        calls = trajectory["tool_calls"]
        assert [[c["id"], c["name"]] for c in calls] == fact["calls"]
        errors = [[c["id"], c["error"].split(": ", 1)[1]] for c in calls if c["outcome"] == "error"]
        assert errors == fact["errors"]
        expected = EXPECTED[trajectory["id"]][2]
        assert [c["outcome"] for c in calls] == expected
        assert trajectory["metadata"]["sample_id"] == fact["id"]
        assert trajectory["metadata"]["task"] in ("agent_tools", "react_agent")
        assert trajectory["metadata"]["model"] == "mockllm/model"
    fail = _converted(next(logs.glob("*agent-tools*.eval")))["fail#1"]
    assert fail["tool_calls"][0]["error"] == (
        "unknown: /etc/c.txt: only paths inside the workspace may be written"
    )
    assert fail["user_request"] == "Create c.txt containing hi."
    assert fail["final_message"] == "Done: I created c.txt."
    react = _converted(next(logs.glob("*react-agent*.eval")))["react#1"]
    assert react["user_request"] == "Create d.txt containing hi."
    assert react["file_edits"] == [
        {"path": "d.txt", "kind": "create", "tool_call_id": react["tool_calls"][0]["id"]}
    ]


def test_earnest_reads_eval_logs_without_inspect_ai(
    inspect_run: tuple[Path, Path, list[dict[str, Any]]],
) -> None:
    logs, _, _ = inspect_run
    code = (
        "import sys; from earnest.cli import run; code = run(sys.argv[1:]); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('inspect_ai', 'zipfile_zstd')), file=sys.stderr); sys.exit(code)"
    )
    env = dict(os.environ, PYTHONPATH=str(SRC))
    proc = subprocess.run(
        [sys.executable, "-c", code, "trajectory", "score", str(logs), "--format", "jsonl"],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-1] == "[]"
    assert "earnest: 12 trajectories from 4 of 4 files (inspect 12)" in proc.stderr


def test_detection_and_directory_walk(inspect_run: tuple[Path, Path, list[dict[str, Any]]]) -> None:
    logs, _, _ = inspect_run
    for path in logs.iterdir():
        assert detect_format(path) == "inspect", path
    # a .json log larger than the 64 KiB head is judged by its first keys
    small = next(logs.glob("*agent-tools*.json"))
    doc = json.loads(small.read_text())
    doc["samples"][0]["messages"][0]["content"] += " padding" * 20_000
    large = logs.parent / "large.json"
    large.write_text(json.dumps(doc, indent=2))
    assert large.stat().st_size > 128 * 1024 and detect_format(large) == "inspect"
    assert len(list(read_trajectories(large, report=ReadReport()))) == 5
    # a zip that is not an Inspect log is no transcript
    other = logs.parent / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert detect_format(other) is None


def test_a_damaged_eval_log_is_an_input_error_naming_it(
    inspect_run: tuple[Path, Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    logs, _, _ = inspect_run
    real = next(logs.glob("*agent-tools*.eval")).read_bytes()
    cut = tmp_path / "cut.eval"
    cut.write_bytes(real[: len(real) // 2])  # the central directory is gone
    proc = run_earnest("trajectory", "score", str(cut))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert f"warning: {cut}: not a readable .eval log: damaged zip archive" in proc.stderr
    assert f"{cut}: no readable trajectory found" in proc.stderr
    # beside a good log, the damaged one is a warning and the rest is scored
    shutil.copy(next(logs.glob("*react-agent*.eval")), tmp_path / "good.eval")
    proc = run_earnest("trajectory", "score", str(tmp_path), "--format", "jsonl")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line)["trajectory_id"] for line in proc.stdout.splitlines()] == ["react#1"]
    assert "damaged zip archive" in proc.stderr
    # not a zip at all, though named .eval
    junk = tmp_path / "junk.eval"
    junk.write_text("hello")
    proc = run_earnest("trajectory", "score", str(junk))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert str(junk) in proc.stderr


def _rezip(source: Path, target: Path, change: dict[str, bytes | None]) -> None:
    """A deflated copy of the archive ``source`` with members replaced, added or dropped."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename not in change:
                new.writestr(info.filename, read_member(old, source, info, limit=10**8))
        for name, data in change.items():
            if data is not None:
                new.writestr(name, data)


def test_hostile_members_are_skipped_and_bounded(
    inspect_run: tuple[Path, Path, list[dict[str, Any]]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    logs, _, _ = inspect_run
    source = next(logs.glob("*agent-tools*.eval"))
    hostile = tmp_path / "hostile.eval"
    _rezip(source, hostile, {
        "samples/write_epoch_1.json": None,  # dropped
        "samples/bad_epoch_1.json": b'{"id": "bad", "messages": [',
        "samples/list_epoch_1.json": b"[1, 2]",
        "samples/../../escape_epoch_1.json": b'{"id": "escape", "messages": []}',
        "samples/deep_epoch_1.json": b'{"id": "deep", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    })  # fmt: skip
    report = ReadReport()
    got = [t.id for t in read_trajectories(hostile, report=report)]
    assert got == ["claim#1", "fail#1", "loop#1", "crash#1", "escape#None"]
    text = "\n".join(report.lines())
    assert "samples/bad_epoch_1.json: malformed JSON" in text
    assert "samples/list_epoch_1.json: a sample must be a JSON object" in text
    assert "samples/deep_epoch_1.json: malformed JSON: JSON nested too deeply" in text
    # read by name, as any sample (a sample id may hold ".."), never as a path
    assert not (tmp_path.parent / "escape_epoch_1.json").exists()
    # every member is bounded: past the limit a sample is skipped, with its name
    monkeypatch.setattr(inspect_log, "MAX_MEMBER_BYTES", 1000)
    report = ReadReport()
    assert [t.id for t in read_trajectories(source, report=report)] == []
    assert (
        "samples/write_epoch_1.json: larger than 1000 bytes uncompressed; sample not read"
        in "\n".join(report.lines())
    )


def test_a_member_that_lies_about_its_size_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deflated member declaring 10 bytes that inflates to 2 MB: never more than the
    bound is inflated, and the sample is reported, not read."""
    path = tmp_path / "bomb.eval"
    body = json.dumps(
        {"id": "x", "messages": [{"role": "user", "content": " " * 2_000_000}]}
    ).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"task": "t"}}))
        archive.writestr("samples/x_epoch_1.json", body)
    data = bytearray(path.read_bytes())
    central = data.rindex(b"PK\x01\x02")  # the last member's central directory entry
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")  # uncompressed size
    path.write_bytes(bytes(data))
    monkeypatch.setattr(inspect_log, "MAX_MEMBER_BYTES", 1_000_000)
    report = ReadReport()
    assert list(read_trajectories(path, report=report)) == []
    # inflating stops as soon as it passes the declared size
    assert "samples/x_epoch_1.json: damaged (inflates past its declared 10 bytes)" in "\n".join(
        report.lines()
    )
    assert "sample not read" in "\n".join(report.lines())


def test_a_plain_deflated_log_and_attachments(tmp_path: Path) -> None:
    """Older inspect_ai wrote deflated members; condensed content lives in attachments."""
    path = tmp_path / "old.eval"
    sample = {
        "id": 7, "epoch": 2,
        "messages": [
            {"role": "user", "content": "attachment://abc", "source": "input"},
            {"role": "assistant", "content": [{"type": "reasoning", "reasoning": "hmm"},
                                              {"type": "text", "text": "Running the tests."}],
             "tool_calls": [{"id": "t1", "function": "bash", "arguments": {"cmd": "attachment://cmd"}}]},
            {"role": "tool", "tool_call_id": "t1", "function": "bash", "content": "3 passed"},
            {"role": "user", "content": "Please proceed to the next step."},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "t2", "function": "submit", "arguments": {"answer": "All 3 tests pass."}}]},
            {"role": "tool", "tool_call_id": "t2", "function": "submit", "content": "All 3 tests pass."},
        ],
        "attachments": {"abc": "Run the test suite and tell me if it passes.", "cmd": "pytest -q"},
        "scores": {"includes": {"value": "C"}},
    }  # fmt: skip
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("_journal/start.json", json.dumps({"eval": {"task": "t", "model": "m"}}))
        archive.writestr("samples/7_epoch_2.json", json.dumps(sample))
    (t,) = read_trajectories(path, report=ReadReport())
    assert t.id == "7#2" and t.user_request == "Run the test suite and tell me if it passes."
    assert t.tool_calls[0].arguments == {"cmd": "pytest -q"}
    assert t.final_message == "All 3 tests pass." and t.termination.reason == "normal"
    assert [m.kind for m in t.messages if m.role == "user"] == ["prompt", "feedback"]
    assert "hmm" not in "".join(m.text for m in t.messages)
    assert t.metadata["scores"] == {"includes": "C"}


def test_unsupported_compression_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "bz.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_BZIP2) as archive:
        archive.writestr("header.json", json.dumps({"eval": {"task": "t"}}))
        archive.writestr("samples/1_epoch_1.json", json.dumps({"id": 1, "messages": []}))
    report = ReadReport()
    assert list(read_trajectories(path, report=report)) == []
    assert "samples/1_epoch_1.json: compression method 12 is not supported" in "\n".join(
        report.lines()
    )


def test_a_damaged_zstandard_member_is_reported_and_the_rest_read(
    inspect_run: tuple[Path, Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    logs, _, _ = inspect_run
    source = next(logs.glob("*agent-tools*.eval"))
    with zipfile.ZipFile(source) as archive:
        info = archive.getinfo("samples/write_epoch_1.json")
    assert info.compress_type == 93  # what inspect_ai writes: Zstandard
    data = bytearray(source.read_bytes())
    at = (
        info.header_offset
        + 30
        + len(info.filename.encode())
        + len(info.extra)
        + info.compress_size // 2
    )
    data[at] ^= 0xFF
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(bytes(data))
    report = ReadReport()
    got = [t.id for t in read_trajectories(damaged, report=report)]
    assert got == ["claim#1", "fail#1", "loop#1", "crash#1"]
    assert f"{damaged}: samples/write_epoch_1.json: damaged (" in "\n".join(report.lines())
