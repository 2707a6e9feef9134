"""A damaged run store is bad input naming the store and the damage, never a traceback; and
`earnest runs check` says which runs can still be read (item 4 of issue 12). A full disk under
a live run is exit 2 with what was stored kept, and the run resumes (item 3)."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("openai")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from conftest import EXAMPLES, run_earnest
from diskkit import small_disk
from runkit import FakeModelServer, example_agent, live_run


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, str]:
    """(suite, store, run A, run B): two complete runs of the example suite."""
    root = tmp_path_factory.mktemp("store")
    suite = root / "suite"
    shutil.copytree(EXAMPLES / "suite", suite)
    store = root / "runs.db"
    with FakeModelServer(example_agent(suite)) as srv:
        a = live_run(suite, store, srv)
        b = live_run(suite, store, srv)
        BASE_URL[0] = srv.base_url  # a resume is given it again (the store is not trusted)
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")  # one file holds everything
    return suite, store, a, b


BASE_URL = [""]


def _copy(pristine: tuple[Path, Path, str, str], tmp_path: Path) -> Path:
    store = tmp_path / "runs.db"
    shutil.copy(pristine[1], store)
    return store


def _page_of(store: Path, table: str) -> tuple[int, int]:
    """(offset, page size) of ``table``'s root page."""
    with sqlite3.connect(store) as db:
        size = db.execute("PRAGMA page_size").fetchone()[0]
        root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    return (root[0] - 1) * size, size


def zero_page(store: Path, table: str) -> None:
    offset, size = _page_of(store, table)
    with open(store, "r+b") as fh:
        fh.seek(offset)
        fh.write(b"\0" * size)


def random_bytes(store: Path, table: str) -> None:
    offset, size = _page_of(store, table)
    noise = random.Random(12).randbytes(size // 2)
    with open(store, "r+b") as fh:
        fh.seek(offset + 4)  # keep the page type, garble its cells
        fh.write(noise)


def bad_json_row(run: str) -> Callable[[Path, str], None]:
    def damage(store: Path, table: str) -> None:
        with sqlite3.connect(store) as db:
            key = db.execute(
                "SELECT fixture_id FROM samples WHERE run_id = ? ORDER BY fixture_id LIMIT 1",
                (run,),
            ).fetchone()[0]
            db.execute(
                "UPDATE samples SET params_json = '{\"temperature\": 0.' WHERE run_id = ? AND fixture_id = ?",
                (run, key),
            )

    return damage


def _commands(suite: Path, store: Path, run: str, other: str, out: Path) -> list[list[str]]:
    s = ["--store", str(store)]
    return [
        ["runs", "show", run, *s],
        ["export", run, *s],
        ["report", "--run", run, *s, "-o", str(out)],
        ["compare", other, run, *s],
        ["run", "--resume", run, *s, "--suite", str(suite), "--yes", "--base-url", BASE_URL[0]],
    ]


@pytest.mark.parametrize(
    ("damage", "table", "says"),
    [
        (zero_page, "samples", "the run store is damaged"),
        (random_bytes, "samples", "the run store is damaged"),
        (zero_page, "runs", "the run store is damaged"),
    ],
    ids=["zeroed-samples-page", "random-bytes-samples-page", "zeroed-runs-page"],
)
def test_a_damaged_page_is_exit_2_naming_the_store(
    pristine: tuple[Path, Path, str, str],
    tmp_path: Path,
    damage: Callable[[Path, str], None],
    table: str,
    says: str,
) -> None:
    suite, _, a, b = pristine
    store = _copy(pristine, tmp_path)
    damage(store, table)
    for args in _commands(suite, store, b, a, tmp_path / "r.html"):
        proc = run_earnest(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        assert str(store) in proc.stderr and says in proc.stderr, (args, proc.stderr)
        assert "runs check" in proc.stderr
    check = run_earnest("runs", "check", "--store", str(store))
    assert check.returncode == 1, check.stdout + check.stderr
    assert "DAMAGED" in check.stdout and "Traceback" not in check.stderr


def test_bad_json_in_a_row_names_the_sample_and_column(
    pristine: tuple[Path, Path, str, str], tmp_path: Path
) -> None:
    suite, _, a, b = pristine
    store = _copy(pristine, tmp_path)
    bad_json_row(b)(store, "samples")
    for args in _commands(suite, store, b, a, tmp_path / "r.html"):
        proc = run_earnest(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert f"{store}: run {b}: sample " in proc.stderr, (args, proc.stderr)
        assert "params_json: the run store is damaged: bad JSON" in proc.stderr
    # the other run is untouched and still reads
    assert run_earnest("runs", "show", a, "--store", str(store)).returncode == 0

    check = run_earnest("runs", "check", "--store", str(store), "--format", "json")
    assert check.returncode == 1
    doc = json.loads(check.stdout)
    runs = {r["run_id"]: r for r in doc["runs"]}
    assert doc["integrity_check"] == ["ok"] and doc["ok"] is False
    assert runs[a]["ok"] is True and runs[a]["readable_samples"] == runs[a]["total"] == 24
    assert runs[b]["ok"] is False and runs[b]["readable_samples"] == 22  # both arms of one fixture
    assert "params_json" in runs[b]["problems"][0]


def test_runs_check_on_a_sound_store_and_on_no_store(
    pristine: tuple[Path, Path, str, str], tmp_path: Path
) -> None:
    store = _copy(pristine, tmp_path)
    check = run_earnest("runs", "check", "--store", str(store))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "integrity_check ok" in check.stdout and "2 of 2 run(s) fully readable" in check.stdout
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all" * 100)
    bad = run_earnest("runs", "check", "--store", str(junk))
    assert bad.returncode == 2 and str(junk) in bad.stderr and "Traceback" not in bad.stderr


def test_a_zeroed_page_is_found_by_runs_check(
    pristine: tuple[Path, Path, str, str], tmp_path: Path
) -> None:
    store = _copy(pristine, tmp_path)
    zero_page(store, "samples")
    check = run_earnest("runs", "check", "--store", str(store), "--format", "json")
    assert check.returncode == 1
    doc = json.loads(check.stdout)
    assert doc["integrity_check"] != ["ok"] or any(not r["ok"] for r in doc["runs"])
    assert all(r["readable_samples"] == 0 for r in doc["runs"])


def test_a_full_disk_under_a_run_is_exit_2_and_the_run_resumes(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "suite", suite)
    agent = example_agent(suite)
    padded = [True]

    def verbose(req):  # type: ignore[no-untyped-def]
        act = agent(req)
        if padded[0]:  # ~16 KB per reply: the disk fills within a few samples
            act.text = "padding " * 2000 + "\n" + act.text
        return act

    with FakeModelServer(verbose) as srv, small_disk(size_kib=160) as disk:
        if disk is None:
            pytest.skip("cannot mount a tmpfs here")
        store = disk / "runs.db"
        proc = run_earnest(
            "run", "--suite", str(suite), "--profile", "local=openai:llama3.1:8b",
            "--base-url", srv.base_url, "--store", str(store), "--samples", "2",
            "--concurrency", "1",
        )  # fmt: skip
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
        assert str(store) in proc.stderr and "cannot write the run store" in proc.stderr
        assert "what was stored before is kept" in proc.stderr and "--resume" in proc.stderr
        run_id = proc.stderr.split("run: ", 1)[1].split()[0]
        moved = tmp_path / "runs.db"
        for p in (q for q in disk.glob("runs.db*") if q.is_file()):
            shutil.copy(p, tmp_path / p.name)
        with sqlite3.connect(moved) as db:
            kept = db.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        assert 0 < kept < 48
        padded[0] = False
        again = run_earnest(
            "run", "--resume", run_id, "--store", str(moved), "--suite", str(suite),
            "--base-url", srv.base_url,
        )  # fmt: skip
        assert again.returncode == 0, again.stderr
    with sqlite3.connect(moved) as db:
        assert db.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 48
