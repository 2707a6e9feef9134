"""``earnest run --batch``: the OpenAI Batch API and Anthropic Message Batches, against a local
batch server speaking real HTTP to the real SDKs (tests/live/batch_servers.py).

Each test compares with what the online path does against ``FakeModelServer`` and the same
script: the same request bodies, the same stored verdicts.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")
pytest.importorskip("anthropic")

from batch_servers import FakeBatchServer
from hypothesis import given
from hypothesis import strategies as st
from live_servers import Action, FakeModelServer, Request, prompt_of
from live_suite import fixture_of, load_fixtures, reply_for, write_suite

from conftest import SRC, run_earnest
from earnest.live.batching import chunks, custom_id

PRICED = """
[live.profiles.mini]
provider = "openai:gpt-4o-mini"
price = {input = 2.0, output = 8.0}

[live.profiles.claude]
provider = "anthropic:claude-test"
price = {input = 3.0, output = 15.0}
"""


def agent(fixtures: list[dict[str, Any]], *, fail: dict[str, Action] | None = None):  # type: ignore[no-untyped-def]
    """Rule arm passes, ablated arm fails; a fixture in ``fail`` gets that action instead."""

    def script(req: Request) -> Action:
        system, user = prompt_of(req)
        f = fixture_of(user, fixtures)
        if fail and f["id"] in fail:
            return fail[f["id"]]
        how = "pass" if "Working Rules" in system else "fail-choice"
        return Action(text=reply_for(user, system, fixtures, how), usage=(400, 30))

    return script


def run(suite: Path, db: Path, profile: str, url: str, *extra: str):  # type: ignore[no-untyped-def]
    return run_earnest(
        "run",
        "--suite",
        str(suite),
        "--profile",
        profile,
        "--base-url",
        url,
        "--store",
        str(db),
        "--yes",
        *extra,
    )


def stored(db: Path, run_id: str) -> dict[tuple[str, str, str, int], dict[str, Any]]:
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    rows = con.execute("SELECT * FROM samples WHERE run_id = ?", (run_id,)).fetchall()
    con.close()
    return {(r["fixture_id"], r["profile"], r["arm"], r["epoch"]): dict(r) for r in rows}


def run_id_of(stdout: str) -> str:
    return stdout.strip().splitlines()[-1]


JUDGED = ("verdict", "reason", "reply", "chosen", "judgement_json", "displayed_order")
SAME = (*JUDGED, "prompt_hash", "params_json", "rule_id", "tokens_in", "tokens_out")


@pytest.mark.parametrize(
    ("profile", "endpoint"),
    [("mini", "/v1/chat/completions"), ("claude", "/v1/messages")],
)
def test_batch_run_stores_what_the_online_run_stores_at_half_the_cost(
    tmp_path: Path, profile: str, endpoint: str
) -> None:
    suite = write_suite(tmp_path / "suite", 3, live=PRICED)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeModelServer(agent(fixtures)) as online_srv:
        url = online_srv.base_url if profile == "mini" else online_srv.anthropic_url
        online = run(suite, db, profile, url, "--samples", "2")
    assert online.returncode == 0, online.stderr
    # a store without batch runs keeps its old schema (and size): the tables come with a batch
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert "samples" in tables and "batches" not in tables
    with FakeBatchServer(agent(fixtures), polls_before_done=2) as srv:
        url = srv.base_url if profile == "mini" else srv.anthropic_url
        batch = run(suite, db, profile, url, "--samples", "2", "--batch", "--batch-poll", "0.01")
        assert batch.returncode == 0, batch.stderr
        # one batch, created once, polled while in progress, then downloaded
        assert srv.creates == 1 and len(srv.batches) == 1
        (b,) = srv.batches.values()
        # three polls (in_progress, in_progress, ended); the Anthropic SDK's `results` looks
        # the batch up once more for its results_url
        assert b.polls == srv.polls == (3 if profile == "mini" else 4)
        assert srv.downloads, "the results were never downloaded"
        # every request of the online run went into the batch, with the same body
        assert len(b.lines) == 12 == len(online_srv.requests)
        bodies = [line.get("body", line.get("params")) for line in b.lines]
        canon = sorted(json.dumps(x, sort_keys=True) for x in bodies)
        assert canon == sorted(json.dumps(r.body, sort_keys=True) for r in online_srv.requests)
        assert all(r.path == endpoint for r in srv.answered)
        if profile == "mini":
            assert b.endpoint == "/v1/chat/completions"
            assert all(x["method"] == "POST" and x["url"] == endpoint for x in b.lines)
            assert set(srv.file_purposes.values()) >= {"batch", "batch_output"}
        ids = [line["custom_id"] for line in b.lines]
        assert len(set(ids)) == 12 and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    assert (
        "batch " in batch.stderr and "submitted" in batch.stderr and "in_progress" in batch.stderr
    )
    a, c = stored(db, run_id_of(online.stdout)), stored(db, run_id_of(batch.stdout))
    assert a.keys() == c.keys() and len(a) == 12
    for key in a:
        assert {k: a[key][k] for k in SAME} == {k: c[key][k] for k in SAME}, key
        assert c[key]["cost"] == pytest.approx(a[key]["cost"] / 2) and c[key]["cost"] > 0
    assert {r["verdict"] for r in c.values()} == {"pass", "fail-choice"}
    shown = run_earnest(
        "runs", "show", run_id_of(batch.stdout), "--store", str(db), "--format", "json"
    )
    data = json.loads(shown.stdout)
    assert data["status"] == "complete" and data["samples"]["judged"] == 12
    assert "batch: half price" in batch.stderr


def test_openai_partial_failures_and_expiry_are_void_with_their_reason(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3, live=PRICED)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    broken = {"LIVE-001": Action(status=500)}

    def expire(req: Request) -> bool:
        return fixture_of(prompt_of(req)[1], fixtures)["id"] == "LIVE-002"

    with FakeBatchServer(agent(fixtures, fail=broken), expire=expire) as srv:
        proc = run(suite, db, "mini", srv.base_url, "--batch", "--batch-poll", "0.01")
        (b,) = srv.batches.values()
        assert b.status == "expired" and b.output_file_id and b.error_file_id
        assert {b.output_file_id, b.error_file_id} <= set(srv.downloads)
    assert proc.returncode == 1, proc.stderr
    rows = stored(db, run_id_of(proc.stdout))
    assert len(rows) == 6
    by_fixture = {(k[0], k[2]): r for k, r in rows.items()}
    for arm in ("rule", "ablated"):
        err = by_fixture[("LIVE-001", arm)]
        assert (
            err["void"] == 1 and err["error_kind"] == "server_error" and "HTTP 500" in err["error"]
        )
        gone = by_fixture[("LIVE-002", arm)]
        assert gone["void"] == 1 and gone["error_kind"] == "expired" and "expired" in gone["error"]
        assert gone["verdict"] is None and err["verdict"] is None
    assert by_fixture[("LIVE-000", "rule")]["verdict"] == "pass"
    shown = json.loads(
        run_earnest(
            "runs", "show", run_id_of(proc.stdout), "--store", str(db), "--format", "json"
        ).stdout
    )
    # as online: every sample stored (void ones too) is a complete run; exit 1 for the voids
    assert shown["status"] == "complete" and shown["samples"]["void"] == 4
    assert sorted(v["error_kind"] for v in shown["voids"]) == ["expired"] * 2 + ["server_error"] * 2


def test_a_batch_that_fails_validation_voids_its_samples_with_the_reason(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    db = tmp_path / "runs.db"
    with FakeBatchServer(reject="model llama3 is not available in the Batch API") as srv:
        proc = run(
            suite, db, "local=openai:llama3", srv.base_url, "--batch", "--batch-poll", "0.01"
        )
        assert srv.creates == 1 and not srv.answered
    assert proc.returncode == 1, proc.stderr
    rows = stored(db, run_id_of(proc.stdout))
    assert len(rows) == 2
    for r in rows.values():
        assert r["void"] == 1 and r["error_kind"] == "bad_request"
        assert "the batch failed: invalid_request: model llama3 is not available" in r["error"]


def test_nothing_listening_stops_the_run_with_a_hint_and_takes_nothing(tmp_path: Path) -> None:
    from live_servers import closed_port

    suite = write_suite(tmp_path / "suite", 1)
    db = tmp_path / "runs.db"
    url = f"http://127.0.0.1:{closed_port()}/v1"
    proc = run(suite, db, "local=openai:llama3", url, "--batch", "--retries", "0")
    assert proc.returncode == 1, proc.stderr
    assert f"nothing listens at {url}" in proc.stderr and "Traceback" not in proc.stderr
    assert "2 sample(s) not taken" in proc.stderr
    assert stored(db, run_id_of(proc.stdout)) == {}
    shown = json.loads(
        run_earnest("runs", "show", "latest", "--store", str(db), "--format", "json").stdout
    )
    assert shown["status"] == "stopped"


def test_anthropic_errored_expired_and_lost_requests_then_resume_retakes_only_those(
    tmp_path: Path,
) -> None:
    suite = write_suite(tmp_path / "suite", 4, live=PRICED)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    broken = {"LIVE-001": Action(status=529), "LIVE-003": Action(status=400)}

    def which(req: Request) -> str:
        return str(fixture_of(prompt_of(req)[1], fixtures)["id"])

    srv = FakeBatchServer(
        agent(fixtures, fail=broken),
        expire=lambda r: which(r) == "LIVE-002",
        lose=lambda r: which(r) == "LIVE-000" and "Working Rules" not in prompt_of(r)[0],
    )
    with srv:
        first = run(suite, db, "claude", srv.anthropic_url, "--batch", "--batch-poll", "0.01")
        assert first.returncode == 1, first.stderr
        run_id = run_id_of(first.stdout)
        rows = stored(db, run_id)
        kinds = {(k[0], k[2]): r["error_kind"] for k, r in rows.items() if r["void"]}
        assert kinds == {
            ("LIVE-001", "rule"): "server_error",
            ("LIVE-001", "ablated"): "server_error",
            ("LIVE-002", "rule"): "expired",
            ("LIVE-002", "ablated"): "expired",
            ("LIVE-003", "rule"): "bad_request",
            ("LIVE-003", "ablated"): "bad_request",
            ("LIVE-000", "ablated"): "missing_reply",
        }
        assert "overloaded_error" in rows[("LIVE-001", "claude", "rule", 0)]["error"]
        judged_before = {k: r for k, r in rows.items() if not r["void"]}
        assert len(judged_before) == 1
        # the provider recovers: resume submits a new batch of exactly the void samples
        srv.script = agent(fixtures)
        srv.expire = srv.lose = lambda r: False
        vouch = ("--base-url", srv.anthropic_url)  # a resume takes no base URL from the store
        answered = len(srv.answered)
        # --no-wait: the void samples go into a second batch; nothing is polled yet
        sent = run_earnest(
            "run", "--resume", run_id, "--store", str(db), "--no-wait", "--yes", *vouch
        )
        assert sent.returncode == 1, sent.stderr
        assert srv.creates == 2 and "7 sample(s) wait in provider batches" in sent.stderr
        shown = json.loads(
            run_earnest("runs", "show", run_id, "--store", str(db), "--format", "json").stdout
        )
        assert shown["status"] == "waiting" and shown["samples"]["void"] == 7
        again = run_earnest(
            "run", "--resume", run_id, "--store", str(db), "--batch-poll", "0.01", "--yes", *vouch
        )
        assert again.returncode == 0, again.stderr
        assert srv.creates == 2
        second = srv.batches["msgbatch_2"]
        assert len(second.lines) == 7 == len(srv.answered) - answered
    rows = stored(db, run_id)
    assert all(not r["void"] for r in rows.values()) and len(rows) == 8
    for k, r in judged_before.items():
        assert rows[k]["finished_at"] == r["finished_at"]  # a judged sample is never redone


def test_no_wait_then_resume_collects_without_creating_again(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 2)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeBatchServer(agent(fixtures), polls_before_done=1) as srv:
        sent = run(
            suite, db, "local=openai:llama3", srv.base_url, "--batch", "--no-wait", "--samples", "2"
        )
        assert sent.returncode == 1, sent.stderr
        run_id = run_id_of(sent.stdout)
        assert srv.creates == 1 and srv.polls == 0
        assert (
            f"earnest run --resume {run_id}" in sent.stderr
            and "wait in provider batches" in sent.stderr
        )
        # the hint repeats the base URL: a resume takes none from the store
        assert f"--store {db} --base-url {srv.base_url}" in sent.stderr, sent.stderr
        con = sqlite3.connect(db)
        assert con.execute("SELECT status FROM runs").fetchone() == ("waiting",)
        assert con.execute("SELECT count(*) FROM samples").fetchone() == (0,)
        (batch_id, collected) = con.execute("SELECT batch_id, collected FROM batches").fetchone()
        assert batch_id == "batch_1" and collected == 0
        assert con.execute("SELECT count(*) FROM batch_requests").fetchone() == (8,)
        con.close()
        # a check that finds it still running: nothing collected, nothing created
        vouch = ("--base-url", srv.base_url)  # a resume takes no base URL from the store
        check = run_earnest("run", "--resume", run_id, "--store", str(db), "--no-wait", *vouch)
        assert check.returncode == 1 and srv.creates == 1 and srv.polls == 1
        assert (
            "in_progress" in check.stderr
            and "8 sample(s) are in batches submitted before" in check.stderr
        )
        done = run_earnest(
            "run", "--resume", "latest", "--store", str(db), "--batch-poll", "0.01",
            "--base-url", srv.base_url,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert srv.creates == 1 and srv.polls == 2
    rows = stored(db, run_id)
    assert len(rows) == 8 and {r["verdict"] for r in rows.values()} == {"pass", "fail-choice"}
    con = sqlite3.connect(db)
    assert con.execute("SELECT status, collected FROM batches").fetchone() == ("completed", 1)
    assert con.execute("SELECT status FROM runs").fetchone() == ("complete",)
    con.close()
    # a resume of a complete run submits and polls nothing
    with FakeBatchServer(agent(fixtures)) as other:
        idle = run_earnest("run", "--resume", run_id, "--store", str(db), *vouch)
        assert idle.returncode == 0 and other.creates == 0


def test_killed_between_submit_and_completion_resume_polls_the_same_batch(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeBatchServer(agent(fixtures), polls_before_done=None) as srv:
        env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")
        proc = subprocess.Popen(
            [sys.executable, "-m", "earnest", "run", "--suite", str(suite), "--profile",
             "local=openai:llama3", "--base-url", srv.base_url, "--store", str(db),
             "--batch", "--batch-poll", "0.02"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while srv.polls < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert srv.polls >= 3 and proc.poll() is None, "the run never waited on its batch"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()  # type: ignore[union-attr]
        assert srv.creates == 1
        srv.polls_before_done = 0  # the batch ends while nobody waits
        resumed = run_earnest(
            "run", "--resume", "latest", "--store", str(db), "--batch-poll", "0.01",
            "--base-url", srv.base_url,
        )  # fmt: skip
        assert resumed.returncode == 0, resumed.stderr
        assert srv.creates == 1 and len(srv.answered) == 6
    rows = stored(db, run_id_of(resumed.stdout))
    assert len(rows) == 6 and all(r["verdict"] for r in rows.values())


def test_batch_wait_gives_up_waiting_and_resume_collects(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeBatchServer(agent(fixtures), polls_before_done=None) as srv:
        proc = run(
            suite, db, "local=openai:llama3", srv.base_url, "--batch",
            "--batch-wait", "0.3", "--batch-poll", "0.05",
        )  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        assert srv.polls >= 2 and srv.creates == 1
        shown = json.loads(
            run_earnest("runs", "show", "latest", "--store", str(db), "--format", "json").stdout
        )
        assert shown["status"] == "waiting" and shown["samples"]["stored"] == 0
        srv.polls_before_done = 0
        done = run_earnest(
            "run", "--resume", "latest", "--store", str(db), "--batch-poll", "0.01",
            "--base-url", srv.base_url,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr and srv.creates == 1


def test_a_large_run_is_split_into_batches_that_map_back_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from earnest.live.providers.openai_batch import OpenAIBatchClient
    from earnest.live.session import Overrides, execute, plan_new
    from earnest.live.store import RunStore

    monkeypatch.setattr(OpenAIBatchClient, "max_requests", 5)
    suite = write_suite(tmp_path / "suite", 3)
    fixtures = load_fixtures(suite)
    with FakeBatchServer(agent(fixtures)) as srv:
        plan = plan_new(
            suite,
            Overrides(
                profiles=("a=openai:llama3", "b=openai:qwen"),
                base_url=srv.base_url,
                samples=2,
                batch=True,
                batch_poll=0.01,
            ),
        )
        with RunStore(tmp_path / "runs.db") as store:
            result = execute(plan, store)
            samples = store.samples(result.run_id)
            batches = store.batches(result.run_id)
        # 24 samples: per profile 12 = 5 + 5 + 2
        assert srv.creates == 6 and [len(b.requests) for b in batches] == [5, 5, 2] * 2
        for b in batches:
            fake = srv.batches[b.batch_id]
            assert {line["body"]["model"] for line in fake.lines} == {
                "llama3" if b.profile == "a" else "qwen"
            }
    assert result.status == "complete" and len(samples) == 24
    keys = [k for b in batches for k in b.requests.values()]
    assert sorted(keys) == sorted(s.key for s in samples) and len(set(keys)) == 24
    assert all(custom_id(k) == c for b in batches for c, k in b.requests.items())
    for s in samples:
        expect = "pass" if s.arm == "rule" else "fail-choice"
        assert s.verdict == expect, (s.key, s.reason)


def test_max_cost_submits_only_what_fits(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3, live=PRICED)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeBatchServer(agent(fixtures)) as srv:
        proc = run(
            suite,
            db,
            "mini",
            srv.base_url,
            "--batch",
            "--batch-poll",
            "0.01",
            "--max-cost",
            "0.006",
        )
        assert srv.creates == 1
        (b,) = srv.batches.values()
        submitted = len(b.lines)
    assert 0 < submitted < 6, submitted
    assert proc.returncode == 1
    rows = stored(db, run_id_of(proc.stdout))
    assert len(rows) == submitted and sum(r["cost"] for r in rows.values()) <= 0.006
    shown = json.loads(
        run_earnest("runs", "show", "latest", "--store", str(db), "--format", "json").stdout
    )
    assert shown["status"] == "stopped"


def test_bad_batch_input_is_exit_2_with_a_clear_message(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    db = tmp_path / "runs.db"
    exec_profile = run_earnest(
        "run", "--suite", str(suite), "--profile", "x=exec:cmd:python3 -c pass",
        "--store", str(db), "--batch",
    )  # fmt: skip
    assert exec_profile.returncode == 2
    assert "only openai: and anthropic: profiles" in exec_profile.stderr
    assert "Traceback" not in exec_profile.stderr
    both = run_earnest(
        "run", "--suite", str(suite), "--profile", "x=openai:m", "--base-url", "http://127.0.0.1:9/v1",
        "--store", str(db), "--batch", "--no-wait", "--batch-wait", "5",
    )  # fmt: skip
    assert both.returncode == 2 and "--no-wait" in both.stderr and "Traceback" not in both.stderr
    online = run_earnest(
        "run", "--suite", str(suite), "--profile", "x=openai:m", "--base-url", "http://127.0.0.1:9/v1",
        "--store", str(db), "--no-wait",
    )  # fmt: skip
    assert online.returncode == 2 and "--no-wait: applies to --batch runs only" in online.stderr
    assert not db.exists() or sqlite3.connect(db).execute(
        "SELECT count(*) FROM runs"
    ).fetchone() == (0,)


@given(
    st.tuples(
        st.text(min_size=1, max_size=120),
        st.text(min_size=1, max_size=40),
        st.sampled_from(["rule", "ablated"]),
        st.integers(min_value=0, max_value=10**9),
    )
)
def test_custom_ids_are_valid_for_both_apis_and_stable(key: tuple[str, str, str, int]) -> None:
    cid = custom_id(key)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", cid)
    assert custom_id(key) == cid
    f, p, a, e = key
    assert custom_id((f, p, a, e + 1)) != cid and custom_id((f, p + "x", a, e)) != cid


def test_chunks_keep_order_and_limits() -> None:
    items = list(range(10))
    out = chunks(items, max_requests=4, max_bytes=5, size=lambda x: 2)
    assert [x for c in out for x in c] == items and all(len(c) <= 2 for c in out)
    assert chunks([9], max_requests=1, max_bytes=1, size=lambda x: 100) == [[9]]


@pytest.mark.parametrize(
    "name",
    [
        "earnest.live.batching",
        "earnest.live.providers.batch",
        "earnest.live.providers.openai_batch",
        "earnest.live.providers.anthropic_batch",
        "earnest.live.providers.sdk",
        "earnest.live.cost",
    ],
)
def test_doc_examples(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted and not result.failed
