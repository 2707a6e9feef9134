"""opencode's older JSON storage (format ``opencode``, its second source), on the storage folder
the real opencode 1.1.65 wrote (tests/data/transcripts/opencode/SOURCE.md)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from conftest import TRANSCRIPTS, run_earnest
from earnest.trajectory import ReadReport, detect_format, iter_paths, read_trajectories
from earnest.trajectory.readers.opencode_db import SCHEMA_FOR_TESTS

OPENCODE = TRANSCRIPTS / "opencode"
STORAGE = OPENCODE / "storage-1.1.65"
PROJECT = "b8f0b15e6515fd639b3072c12c9980072f285d6a"
WORKED = "ses_dae66ab66ffe5wzuTmOlxuF3w4"  # a write, a failing bash, a read, "Done"
CLAIMED = "ses_dae666ed6ffeNaF1fcDJn4uX2j"  # "Done — I fixed the bug" and nothing else
WORKED_FILE = STORAGE / "session" / PROJECT / f"{WORKED}.json"


def test_the_folder_and_a_session_file_are_detected_by_their_shape() -> None:
    assert detect_format(STORAGE) == "opencode"
    assert detect_format(WORKED_FILE) == "opencode"
    # A record file of the storage alone is no transcript, nor any other folder.
    message = next((STORAGE / "message" / WORKED).glob("*.json"))
    assert detect_format(message) is None
    assert detect_format(STORAGE / "part") is None


def test_the_folder_gives_each_session_oldest_first() -> None:
    report = ReadReport()
    worked, claimed = read_trajectories(STORAGE, report=report)
    assert report.warnings == [] and report.skipped_lines == 0
    assert (worked.id, claimed.id) == (WORKED, CLAIMED)
    assert worked.format == claimed.format == "opencode"
    assert worked.metadata["cli_version"] == "1.1.65"
    assert worked.metadata["cwd"].endswith("/project")
    assert worked.source == str(WORKED_FILE)
    # As 1.18 does, opencode stored the message with the quotes `opencode run` puts around it.
    prompt = '"write NOTES.md about the bug in app.py, then run the check"'
    assert worked.user_request.strip() == prompt
    calls = [(c.name, c.outcome, c.exit_code) for c in worked.tool_calls]
    assert calls == [("write", "success", None), ("bash", "error", 3), ("read", "success", None)]
    assert [(Path(e.path).name, e.kind) for e in worked.file_edits] == [("NOTES.md", "create")]
    assert worked.final_message == "Done — I wrote NOTES.md; the check exited 3."
    assert worked.metadata["assistant_turns"] == 4
    assert claimed.tool_calls == () and claimed.final_message.startswith("Done")


def test_a_session_file_gives_that_session_only() -> None:
    (t,) = read_trajectories(WORKED_FILE)
    assert t.id == WORKED and len(t.tool_calls) == 3
    (only,) = read_trajectories(STORAGE, session_id=CLAIMED)
    assert only.id == CLAIMED


def test_the_records_map_as_the_databases_do(tmp_path: Path) -> None:
    # The same records, put in a database of opencode 1.2's shape: the same trajectories.
    db = tmp_path / "opencode.db"
    con = sqlite3.connect(db)
    con.executescript(SCHEMA_FOR_TESTS)
    for file in sorted((STORAGE / "session").glob("*/*.json")):
        s = json.loads(file.read_text("utf-8"))
        row = (s["id"], s["directory"], s["version"], s["time"]["created"])
        con.execute("insert into session values (?, ?, ?, ?)", row)
        for mfile in sorted((STORAGE / "message" / s["id"]).glob("*.json")):
            m = json.loads(mfile.read_text("utf-8"))
            row = (m["id"], s["id"], m["time"]["created"], json.dumps(m))
            con.execute("insert into message values (?, ?, ?, ?)", row)
            for pfile in sorted((STORAGE / "part" / m["id"]).glob("*.json")):
                p = json.loads(pfile.read_text("utf-8"))
                con.execute(
                    "insert into part values (?, ?, ?, ?)",
                    (p["id"], m["id"], s["id"], pfile.read_text("utf-8")),
                )
    con.commit()
    con.close()

    def dicts(path: Path) -> list[dict[str, object]]:
        out = []
        for t in read_trajectories(path):
            d = t.to_dict()
            d.pop("source", None)
            out.append(d)
        return out

    assert dicts(db) == dicts(STORAGE)


def test_score_and_convert_read_the_folder_and_a_session_file() -> None:
    done = run_earnest("trajectory", "score", str(STORAGE), "--format", "json")
    assert done.returncode == 0, done.stderr
    outcomes = json.loads(done.stdout)["battery"]["outcomes"]
    assert outcomes["backed"] == 1 and outcomes["completion_without_effect"] == 1
    converted = run_earnest("trajectory", "convert", str(WORKED_FILE))
    assert converted.returncode == 0, converted.stderr
    (line,) = converted.stdout.splitlines()
    assert json.loads(line)["id"] == WORKED


def test_a_folder_walk_reads_the_storage_once_never_its_record_files(tmp_path: Path) -> None:
    # Found in a walk (the folder holding it), the storage is one path, its files none.
    assert list(iter_paths([OPENCODE])) == [STORAGE]
    share = tmp_path / "opencode"
    shutil.copytree(STORAGE, share / "storage")
    (share / "notes.json").write_text("{}", encoding="utf-8")
    assert list(iter_paths([share])) == [share / "notes.json", share / "storage"]
    assert list(iter_paths([share / "storage"])) == [share / "storage"]


def copy_storage(tmp_path: Path) -> Path:
    copy = tmp_path / "storage"
    shutil.copytree(STORAGE, copy)
    return copy


def test_a_damaged_record_is_skipped_with_a_warning_naming_its_file(tmp_path: Path) -> None:
    copy = copy_storage(tmp_path)
    bad = sorted((copy / "message" / WORKED).glob("*.json"))[-1]
    bad.write_text('{"id": "msg_x", "role": ', encoding="utf-8")
    report = ReadReport()
    trajectories = list(read_trajectories(copy, report=report))
    assert len(trajectories) == 2
    assert any(str(bad) in line and "not JSON" in line for line in report.lines()), report.lines()
    done = run_earnest("trajectory", "score", str(copy), "--format", "json")
    assert done.returncode == 0 and str(bad) in done.stderr, done.stderr


def test_a_damaged_session_file_given_alone_exits_2_naming_it(tmp_path: Path) -> None:
    copy = copy_storage(tmp_path)
    bad = copy / "session" / PROJECT / f"{WORKED}.json"
    bad.write_text("[1, 2", encoding="utf-8")
    done = run_earnest("trajectory", "score", str(bad))
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(bad) in done.stderr and "Traceback" not in done.stderr


def test_an_empty_storage_folder_exits_2_naming_it(tmp_path: Path) -> None:
    empty = tmp_path / "storage"
    for name in ("session", "message", "part"):
        (empty / name).mkdir(parents=True)
    done = run_earnest("trajectory", "convert", str(empty))
    assert done.returncode == 2, done.stdout + done.stderr
    assert str(empty) in done.stderr and "Traceback" not in done.stderr


def test_an_id_that_is_not_a_plain_name_is_never_followed(tmp_path: Path) -> None:
    copy = copy_storage(tmp_path)
    session = copy / "session" / PROJECT / f"{WORKED}.json"
    data = json.loads(session.read_text("utf-8"))
    data["id"] = "../../outside"
    session.write_text(json.dumps(data), encoding="utf-8")
    report = ReadReport()
    (t,) = read_trajectories(copy, report=report)
    assert t.id == CLAIMED
    assert any("not a plain name" in line and str(session) in line for line in report.lines())
