"""The run store: WAL, one row per sample key, void replaced, judged kept, bad files named."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.live.store import RunInfo, RunStore, SampleRecord


def record(**kw: object) -> SampleRecord:
    base = SampleRecord(
        run_id="r1",
        fixture_id="F1",
        profile="p",
        arm="rule",
        epoch=0,
        rule_id="8",
        agent="fixer",
        provider="openai:m",
        model="m",
        params={"temperature": 0},
        prompt_hash="h",
        agent_doc_sha256="a" * 64,
        fixture_sha256="f" * 64,
        displayed_order=("C", "A", "B", "D"),
        raw_reply='{"x": 1}',
        reply="CHOICE: A",
        verdict="pass",
        reason="",
        chosen=("C",),
        rationalizations=("excuse one",),
        judgement={"verdict": "pass"},
        latency=0.25,
        tokens_in=100,
        tokens_out=5,
        cost=0.001,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def run_info(**kw: object) -> RunInfo:
    return replace(
        RunInfo(
            run_id="r1",
            suite_root="/s",
            config={"profiles": [], "samples": 1},
            checksums={"fixtures": {}},
            total=4,
        ),
        **kw,  # type: ignore[arg-type]
    )


def test_round_trip_and_wal(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "runs.db"
    with RunStore(db) as st:
        st.create_run(run_info())
        assert st.put_sample(record())
        got = st.samples("r1")
    assert got == [record(finished_at=got[0].finished_at)]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    with RunStore(db, create=False) as st:
        info = st.get_run("r1")
        assert (info.total, info.status, info.config["samples"]) == (4, "running", 1)
        st.set_status("r1", "complete")
        assert st.get_run("r1").status == "complete"
        assert [r.run_id for r in st.list_runs()] == ["r1"]


def test_a_sample_key_is_stored_once(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.db") as st:
        st.create_run(run_info())
        assert st.put_sample(record())
        assert not st.put_sample(record(verdict="fail-choice"))
        assert st.put_sample(record(epoch=1))
        assert st.count("r1") == 2
        assert st.samples("r1")[0].verdict == "pass"


def test_a_void_sample_is_replaced_by_a_later_attempt_but_not_the_reverse(tmp_path: Path) -> None:
    void = record(verdict=None, reply=None, void=True, error="timeout: slow", error_kind="timeout")
    with RunStore(tmp_path / "runs.db") as st:
        st.create_run(run_info())
        assert st.put_sample(void)
        assert set(st.iter_keys("r1")) == set()
        assert set(st.iter_keys("r1", judged_only=False)) == {("F1", "p", "rule", 0)}
        assert st.put_sample(record(verdict="fail-hybrid"))
        assert not st.put_sample(void)
        (only,) = st.samples("r1")
        assert (only.verdict, only.void, only.error) == ("fail-hybrid", False, None)


def test_duplicate_and_unknown_runs(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.db") as st:
        st.create_run(run_info())
        with pytest.raises(InputError, match="already exists"):
            st.create_run(run_info())
        with pytest.raises(InputError, match=r"no such run \(recent: r1\)"):
            st.get_run("nope")


def test_missing_and_foreign_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no run store here"):
        RunStore(tmp_path / "absent.db", create=False)
    junk = tmp_path / "junk.db"
    junk.write_text("this is not sqlite" * 100)
    with pytest.raises(InputError, match="not an earnest run store"):
        RunStore(junk)
    assert junk.read_text().startswith("this is not sqlite")
