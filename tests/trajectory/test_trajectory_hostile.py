"""Hostile transcript lines: each is counted and skipped, the rest of the transcript is read.

Seeds are the first lines of real transcripts (``tests/data/trajectory/hostile``, see its
SOURCE.md); the hostile lines are made here: a 5,000-digit integer, 100,000-deep nesting,
records whose fields have the wrong JSON type, lone surrogates and a NUL byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_earnest
from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers import read_trajectories
from earnest.trajectory.readers.detect import detect_format
from earnest.trajectory.report import ReadReport

SEEDS = Path(__file__).parent.parent / "data" / "trajectory" / "hostile"
FORMATS = sorted(p.stem for p in SEEDS.glob("*.jsonl"))

BIG_INT = '{"type": "user", "epoch": ' + "9" * 5000 + "}"
DEEP_ARRAY = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
UNPARSEABLE = [BIG_INT, DEEP_ARRAY, DEEP_OBJECT, '{"type": "user", "x": "\x00"}']


def read(path: Path, fmt: str | None = None) -> tuple[list[Trajectory], ReadReport]:
    report = ReadReport()
    return list(read_trajectories(path, report=report, format=fmt)), report


def seed_lines(fmt: str) -> list[str]:
    return (SEEDS / f"{fmt}.jsonl").read_text(encoding="utf-8").splitlines()


def shape(trajectories: list[Trajectory]) -> list[tuple[int, int, str]]:
    return [(len(t.tool_calls), len(t.messages), t.final_message) for t in trajectories]


def test_every_seed_is_a_transcript_of_its_format() -> None:
    assert len(FORMATS) >= 7
    for fmt in FORMATS:
        assert detect_format(SEEDS / f"{fmt}.jsonl") == fmt
        trajectories, _ = read(SEEDS / f"{fmt}.jsonl")
        assert trajectories, fmt


@pytest.mark.parametrize("fmt", FORMATS)
def test_unparseable_lines_are_counted_and_the_rest_is_read(fmt: str, tmp_path: Path) -> None:
    clean, _ = read(SEEDS / f"{fmt}.jsonl")
    lines = seed_lines(fmt)
    hostile = tmp_path / f"{fmt}.jsonl"
    # after the first line, so the rest of the transcript comes after the damage
    hostile.write_text("\n".join([lines[0], *UNPARSEABLE, *lines[1:]]) + "\n", encoding="utf-8")
    assert detect_format(hostile) == fmt  # the NUL line does not hide the format
    trajectories, report = read(hostile)
    assert report.skipped_lines >= len(UNPARSEABLE)
    assert shape(trajectories) == shape(clean)


WRONG = [["x"], {"a": 1}, 7, None, "\ud800"]


def _mutations(record: dict[str, Any]) -> list[tuple[str, ...]]:
    """Paths to every field of ``record`` two levels deep (lists: the first two items)."""
    out: list[tuple[str, ...]] = []

    def walk(value: Any, path: tuple[Any, ...], depth: int) -> None:
        if depth > 3:
            return
        items: list[tuple[Any, Any]] = []
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value[:2]))
        for key, child in items:
            out.append((*path, key))
            walk(child, (*path, key), depth + 1)

    walk(record, (), 0)
    return out


def _set(record: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        record = record[key]
    record[path[-1]] = value


@pytest.mark.parametrize("fmt", FORMATS)
def test_fields_of_the_wrong_type_never_raise(fmt: str, tmp_path: Path) -> None:
    """Every field of every seed record, in turn, replaced by a list, an object, a number,
    null and a lone surrogate: the reader skips or tolerates it, it never raises."""
    lines = seed_lines(fmt)
    target = tmp_path / f"{fmt}.jsonl"
    tried = 0
    for index, line in enumerate(lines):
        record = json.loads(line)
        for path in _mutations(record):
            for wrong in WRONG:
                mutated = json.loads(line)
                _set(mutated, path, wrong)
                copy = [*lines]
                copy[index] = json.dumps(mutated)
                target.write_text("\n".join(copy) + "\n", encoding="utf-8")
                try:
                    trajectories, _ = read(target, fmt)
                except Exception as exc:  # the failure names what was changed
                    raise AssertionError(f"line {index + 1} {path} = {wrong!r}: {exc!r}") from exc
                for t in trajectories:
                    json.dumps(t.to_dict()).encode("utf-8")  # nothing unencodable comes out
                tried += 1
    assert tried > 50


def test_a_claude_code_record_whose_type_is_a_list_is_a_bad_line(tmp_path: Path) -> None:
    lines = seed_lines("claude-code")
    bad = json.loads(lines[1])
    bad["type"] = [bad["type"]]
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(bad), *lines[1:]]) + "\n", encoding="utf-8")
    trajectories, report = read(path)
    assert report.skipped_lines == 1 and trajectories
    assert any("record type is not a string" in w.message for w in report.warnings)


def test_a_nul_byte_in_the_first_record_does_not_hide_the_format(tmp_path: Path) -> None:
    for fmt in FORMATS:
        lines = seed_lines(fmt)
        path = tmp_path / f"{fmt}.jsonl"
        damaged = lines[0][:20] + "\x00" + lines[0][20:]
        path.write_text("\n".join([damaged, *lines[1:]]) + "\n", encoding="utf-8")
        assert detect_format(path) == fmt, fmt
    binary = tmp_path / "image.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 8)
    assert detect_format(binary) is None


def test_lone_surrogates_come_out_as_replacement_characters(tmp_path: Path) -> None:
    lines = seed_lines("claude-code")
    last = json.loads(lines[-1])
    path = tmp_path / "t.jsonl"
    extra = {**last, "uuid": "x-1", "type": "assistant", "message": {
        "id": "m-x", "role": "assistant", "model": "claude-\udc80",
        "content": [{"type": "text", "text": "All done \ud800 and tested."}]}}  # fmt: skip
    path.write_text("\n".join([*lines, json.dumps(extra)]) + "\n", encoding="utf-8")
    (t,) = read(path)[0]
    assert t.final_message == "All done \ufffd and tested."
    json.dumps(t.to_dict(), ensure_ascii=False).encode("utf-8")


@pytest.fixture
def hostile_claude_code(tmp_path: Path) -> Path:
    lines = seed_lines("claude-code")
    bad_type = json.loads(lines[1])
    bad_type["type"] = ["user"]
    path = tmp_path / "session.jsonl"
    body = [lines[0], *UNPARSEABLE, json.dumps(bad_type), *lines[1:]]
    path.write_text("\n".join(body) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "command",
    [
        ("trajectory", "score"),
        ("trajectory", "score", "--format", "json"),
        ("trajectory", "convert"),
        ("trajectory", "replay-gate"),
        ("trajectory", "replay-gate", "--format", "json"),
    ],
)
def test_trajectory_commands_skip_hostile_lines_and_read_the_rest(
    hostile_claude_code: Path, command: tuple[str, ...]
) -> None:
    (clean,) = read(SEEDS / "claude-code.jsonl")[0]
    proc = run_earnest(*command, str(hostile_claude_code))
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    assert "5 lines skipped" in proc.stderr, proc.stderr
    assert "1 trajectories" in proc.stderr
    if command[1] == "convert":
        (converted,) = [json.loads(x) for x in proc.stdout.splitlines() if x.strip()]
        assert converted["final_message"] == clean.final_message
        assert len(converted["tool_calls"]) == len(clean.tool_calls)


DOCUMENTS = sorted(p.name for p in SEEDS.iterdir() if p.suffix in (".json", ".traj"))


@pytest.mark.parametrize("name", DOCUMENTS)
def test_document_fields_of_the_wrong_type_never_raise(name: str, tmp_path: Path) -> None:
    """The same for whole-document formats: every field two levels deep, in turn."""
    seed = SEEDS / name
    fmt = detect_format(seed)
    assert fmt is not None and read(seed)[0]
    original = seed.read_text(encoding="utf-8")
    target = tmp_path / name
    tried = 0
    for path in _mutations(json.loads(original)):
        if len(path) > 3:
            continue
        for wrong in WRONG:
            doc = json.loads(original)
            _set(doc, path, wrong)
            target.write_text(json.dumps(doc), encoding="utf-8")
            try:
                trajectories, _ = read(target, fmt)
            except Exception as exc:
                raise AssertionError(f"{path} = {wrong!r}: {exc!r}") from exc
            for t in trajectories:
                json.dumps(t.to_dict()).encode("utf-8")
            tried += 1
    assert tried > 20


@pytest.mark.parametrize("name", DOCUMENTS)
def test_a_monstrous_document_is_skipped_with_a_warning(name: str, tmp_path: Path) -> None:
    fmt = detect_format(SEEDS / name)
    for text in ('{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}", '{"n": ' + "9" * 5000):
        target = tmp_path / name
        target.write_text(text)
        trajectories, report = read(target, fmt)
        assert trajectories == [] and report.warnings
