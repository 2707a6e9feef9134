"""`--output` never destroys the user's files: it refuses the suite's and the command's own
files, gives new files the user's umask, and a full disk or a folder it may not write ends in
exit 2 with the old file kept (items 1-3 of issue 12)."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conftest import EXAMPLES, run_earnest
from diskkit import can_drop_privileges, fill, run_unprivileged, small_disk

REPLIES = "recorded/replies.jsonl"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    dest = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "suite", dest)
    return dest


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


SUITE_TARGETS = [
    REPLIES,
    "earnest.toml",
    "doctrine.md",
    "pressure/IMPL-R1-FLAKY-RETRY.json",
    "agents/implementer.md",
]


@pytest.mark.parametrize("target", SUITE_TARGETS)
@pytest.mark.parametrize(
    "command",
    [
        ("check", "--format", "junit"),
        ("check", "--format", "json"),
        ("report",),
        ("score", REPLIES, "--format", "jsonl"),
    ],
    ids=["check-junit", "check-json", "report", "score"],
)
def test_output_never_replaces_a_file_of_the_suite(
    suite: Path, target: str, command: tuple[str, ...]
) -> None:
    before = _snapshot(suite)
    args = [*command, "--suite", str(suite), "-o", str(suite / target)]
    proc = run_earnest(*args, cwd=suite)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "refusing to overwrite" in proc.stderr and "Traceback" not in proc.stderr
    assert target.split("/")[-1] in proc.stderr
    assert _snapshot(suite) == before


def test_output_through_another_name_is_still_refused(suite: Path, tmp_path: Path) -> None:
    """A hard link, a symlink and a `..` detour all name the doctrine."""
    before = _snapshot(suite)
    hard = tmp_path / "hard.md"
    os.link(suite / "doctrine.md", hard)
    soft = tmp_path / "soft.md"
    soft.symlink_to(suite / "earnest.toml")
    detour = suite / "agents" / ".." / REPLIES
    for out in (hard, soft, detour):
        proc = run_earnest("check", "--suite", str(suite), "--format", "json", "-o", str(out))
        assert proc.returncode == 2 and "refusing to overwrite a file of the suite" in proc.stderr
    assert _snapshot(suite) == before


def test_a_pyproject_suite_keeps_its_pyproject(tmp_path: Path) -> None:
    suite = tmp_path / "proj"
    shutil.copytree(EXAMPLES / "suite", suite)
    toml = (suite / "earnest.toml").read_text()
    (suite / "earnest.toml").unlink()
    py = suite / "pyproject.toml"
    py.write_text('[project]\nname = "x"\n\n' + toml.replace("[suite", "[tool.earnest.suite"))
    before = py.read_bytes()
    proc = run_earnest("check", "--suite", str(suite), "--format", "junit", "-o", str(py))
    assert proc.returncode == 2 and "refusing to overwrite a file of the suite" in proc.stderr
    assert py.read_bytes() == before


def test_a_new_file_beside_the_suite_is_written(suite: Path) -> None:
    out = suite / "recorded" / "check.xml"
    proc = run_earnest("check", "--suite", str(suite), "--format", "junit", "-o", str(out))
    assert proc.returncode in (0, 1), proc.stderr
    assert out.read_text().startswith("<?xml")


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_output_files_get_the_users_umask(suite: Path, tmp_path: Path, umask: int) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type":"thread.started","thread_id":"t"}\n{"type":"turn.completed"}\n')
    outs = {
        "check": ("check", "--suite", str(suite), "--format", "json"),
        "score": ("score", str(suite / REPLIES), "--suite", str(suite)),
        "report": ("report", "--suite", str(suite)),
        "convert": ("trajectory", "convert", str(transcript)),
        "tscore": ("trajectory", "score", str(transcript)),
    }
    old = os.umask(umask)
    try:
        for name, args in outs.items():
            out = tmp_path / f"{name}.out"
            proc = run_earnest(*args, "-o", str(out))
            assert proc.returncode in (0, 1), (name, proc.stderr)
            assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask, name
    finally:
        os.umask(old)


def test_a_replaced_output_keeps_its_mode(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "check.json"
    out.write_text("old")
    out.chmod(0o640)
    proc = run_earnest("check", "--suite", str(suite), "--format", "json", "-o", str(out))
    assert proc.returncode in (0, 1) and out.read_text() != "old"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_convert_onto_a_folder_is_bad_input(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type":"thread.started","thread_id":"t"}\n')
    folder = tmp_path / "outdir"
    folder.mkdir()
    proc = run_earnest("trajectory", "convert", str(transcript), "-o", str(folder))
    assert proc.returncode == 2 and "is a folder" in proc.stderr
    assert "Traceback" not in proc.stderr and list(folder.iterdir()) == []


def _big_transcript(path: Path, lines: int = 400) -> Path:
    import json

    events = [{"type": "thread.started", "thread_id": "t"}]
    events += [
        {
            "type": "item.completed",
            "item": {"id": f"i{n}", "type": "agent_message", "text": "x" * 400 + str(n)},
        }
        for n in range(lines)
    ]
    events.append({"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}})
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_full_disk_keeps_the_old_file(suite: Path, tmp_path: Path) -> None:
    transcript = _big_transcript(tmp_path / "big.jsonl")
    with small_disk() as disk:
        if disk is None:
            pytest.skip("cannot mount a tmpfs here (the in-process ENOSPC test covers it)")
        outs = {
            "convert": ("trajectory", "convert", str(transcript)),
            "report": ("report", "--suite", str(suite)),
            "check": ("check", "--suite", str(suite), "--format", "json"),
        }
        for name in outs:
            (disk / f"{name}.out").write_text(f"old {name}\n")
        fill(disk)
        for name, args in outs.items():
            out = disk / f"{name}.out"
            proc = run_earnest(*args, "-o", str(out))
            assert proc.returncode == 2, (name, proc.stderr)
            assert "No space left on device" in proc.stderr and str(out) in proc.stderr
            assert "the old file is kept" in proc.stderr and "Traceback" not in proc.stderr
            assert out.read_text() == f"old {name}\n"
        assert sorted(p.name for p in disk.iterdir()) == [
            "check.out",
            "convert.out",
            "filler",
            "report.out",
        ]


def test_enospc_in_process_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same promise without a mount: the write itself fails with ENOSPC."""
    from earnest.errors import InputError
    from earnest.files import write_text_atomic

    out = tmp_path / "out.txt"
    out.write_text("old")
    real = os.replace

    def full(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(InputError, match="No space left on device"):
        write_text_atomic(out, "new")
    monkeypatch.setattr(os, "replace", real)
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["out.txt"]


@pytest.mark.skipif(not can_drop_privileges(), reason="no setpriv to drop root's overrides")
def test_a_folder_it_may_not_write_is_exit_2(tmp_path: Path) -> None:
    transcript = _big_transcript(tmp_path / "t.jsonl", lines=3)
    locked = tmp_path / "locked"
    locked.mkdir()
    out = locked / "out.jsonl"
    out.write_text("old\n")
    locked.chmod(0o555)  # the file itself is writable; its folder is not
    try:
        proc = run_unprivileged("trajectory", "convert", str(transcript), "-o", str(out))
        assert proc.returncode == 2, proc.stderr
        assert "Permission denied" in proc.stderr and "Traceback" not in proc.stderr
        assert str(out) in proc.stderr and out.read_text() == "old\n"
        report = run_unprivileged("report", "--suite", str(EXAMPLES / "suite"), "-o", str(out))
        assert report.returncode == 2 and "Permission denied" in report.stderr
        assert out.read_text() == "old\n"
    finally:
        locked.chmod(0o755)
