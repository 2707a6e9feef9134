"""``read_trajectories`` and ``iter_paths``: never a crash, always a count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.trajectory import ReadReport, iter_paths, read_trajectories
from earnest.trajectory.readers import READERS, reader_for
from earnest.trajectory.report import MAX_WARNINGS_PER_FILE


def test_missing_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(iter_paths([tmp_path / "nope"]))


def test_walk_is_recursive_sorted_and_skips_hidden(tmp_path: Path) -> None:
    (tmp_path / "b" / "subagents").mkdir(parents=True)
    (tmp_path / ".hidden").mkdir()
    for name in (
        "b/subagents/agent-1.jsonl",
        "a.json",
        "b/run.traj",
        "notes.md",
        "x.diff",
        ".hidden/c.jsonl",
    ):
        (tmp_path / name).write_text("{}")
    got = [p.relative_to(tmp_path).as_posix() for p in iter_paths([tmp_path])]
    assert got == ["a.json", "b/run.traj", "b/subagents/agent-1.jsonl"]
    assert list(iter_paths([tmp_path / "notes.md"])) == [tmp_path / "notes.md"]


def test_forced_format_on_the_wrong_file_does_not_crash(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    report = ReadReport()
    for name in READERS:
        list(read_trajectories(path, report=report, format=name))
    assert report.files_read == len(READERS)


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_reader_survives_garbage(tmp_path: Path, name: str) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_bytes(
        b'{"type": 3}\n[1,2]\n\xff\xfe\x00garbage\n{"role": {"x": 1}, "content": 5}\n{'
    )
    report = ReadReport()
    list(reader_for(name)(path, report))
    # no exception escaped, and the damage was reported
    assert report.warnings


def test_warnings_are_bounded_per_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"user","sessionId":"s","message":{"content":"hi"}}\n' + "not json\n" * 50
    )
    report = ReadReport()
    list(read_trajectories(path, report=report))
    assert report.skipped_lines == 50
    assert len(report.warnings) == MAX_WARNINGS_PER_FILE
    assert report.lines()[-1].endswith("30 more warning(s) not shown")


def test_report_counts_formats(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_text(
        json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}])
    )
    report = ReadReport()
    list(read_trajectories(path, report=report))
    assert (report.files_read, report.trajectories, dict(report.formats)) == (
        1,
        1,
        {"openai-chat": 1},
    )
