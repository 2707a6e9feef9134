"""The live-run commands as a user runs them: real subprocesses against a local server."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("openai")

from live_servers import Action, FakeModelServer, Request, prompt_of
from live_suite import load_fixtures, reply_for, write_suite

from conftest import SRC, run_earnest


def scripted(fixtures: list[dict], *, fail: set[str] = frozenset(), delay: float = 0.0):  # type: ignore[no-untyped-def,type-arg,assignment]
    """Rule arm passes (except fixtures in ``fail``: non-compliant); ablated arm fails."""

    def script(req: Request) -> Action:
        system, user = prompt_of(req)
        f = next(f for f in fixtures if f"OPS-{4000 + int(f['id'].split('-')[1])}:" in user)
        if "Working Rules" not in system:
            how = "fail-choice"
        elif f["id"] in fail:
            how = "fail-unparseable" if f["id"].endswith("1") else "fail-choice"
        else:
            how = "pass"
        return Action(text=reply_for(user, system, fixtures, how), delay=delay)

    return script


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, str, str]:
    """(suite, store, base, same, worse): rule-arm runs of 3 fixtures × 2 epochs, taken in process
    (``earnest run`` itself is exercised by the tests that start it); ``worse`` answers LIVE-001
    unparseably and LIVE-002 non-compliantly."""
    from earnest.live.session import Overrides, execute, plan_new
    from earnest.live.store import RunStore

    root = tmp_path_factory.mktemp("three_runs")
    suite = write_suite(root / "suite", 3)
    db = root / "runs.db"
    fixtures = load_fixtures(suite)
    ids = []
    for fail in (set(), set(), {"LIVE-001", "LIVE-002"}):
        with FakeModelServer(scripted(fixtures, fail=fail)) as srv:
            plan = plan_new(
                suite,
                Overrides(
                    profiles=("local=openai:llama3",),
                    base_url=srv.base_url,
                    arms="rule",
                    samples=2,
                ),
            )
            with RunStore(db) as st:
                ids.append(execute(plan, st).run_id)
    return suite, db, ids[0], ids[1], ids[2]


def run_id_of(stdout: str) -> str:
    return stdout.strip().splitlines()[-1]


def start_run(suite: Path, db: Path, srv: FakeModelServer, *extra: str):  # type: ignore[no-untyped-def]
    return run_earnest(
        "run",
        "--suite",
        str(suite),
        "--profile",
        "local=openai:llama3",
        "--base-url",
        srv.base_url,
        "--store",
        str(db),
        *extra,
    )


def test_run_prints_the_id_first_on_stderr_and_last_on_stdout(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    db = tmp_path / "runs.db"
    with FakeModelServer(scripted(load_fixtures(suite))) as srv:
        proc = start_run(suite, db, srv, "--samples", "2")
    assert proc.returncode == 0, proc.stderr
    run_id = run_id_of(proc.stdout)
    assert f"run: {run_id}" in proc.stderr.splitlines()
    assert (
        "12/12 done" in proc.stderr and "pass 6" in proc.stderr and "fail-choice 6" in proc.stderr
    )
    assert "estimated" in proc.stderr and "$0" in proc.stderr
    assert "per rule: ablation delta" in proc.stdout

    shown = run_earnest("runs", "show", run_id, "--store", str(db), "--format", "json")
    assert shown.returncode == 0
    data = json.loads(shown.stdout)
    assert data["samples"] == {"total": 12, "stored": 12, "judged": 12, "void": 0}
    assert data["verdicts"]["pass"] == 6 and data["profiles"][0]["provider"] == "openai:llama3"
    assert {r["rule"] for r in data["rules"]} == {"1", "2", "3"}
    assert all(r["delta"] == 1.0 for r in data["rules"])
    junit = run_earnest("runs", "show", run_id, "--store", str(db), "--format", "junit")
    assert junit.stdout.startswith("<?xml") and 'failures="0"' in junit.stdout

    listed = run_earnest("runs", "list", "--store", str(db), "--format", "json")
    assert [r["run_id"] for r in json.loads(listed.stdout)] == [run_id]


def test_export_is_what_score_reads_with_the_same_verdicts(
    tmp_path: Path, three_runs: tuple[Path, Path, str, str, str]
) -> None:
    suite, db, _, _, run_id = three_runs
    exported = run_earnest("export", run_id, "--store", str(db))
    assert exported.returncode == 0
    lines = [json.loads(x) for x in exported.stdout.splitlines()]
    assert len(lines) == 6
    assert set(lines[0]) == {"fixture_id", "response", "model", "arm", "epoch", "order", "profile"}
    replies = tmp_path / "replies.jsonl"
    replies.write_text(exported.stdout)
    scored = run_earnest("score", str(replies), "--suite", str(suite), "--format", "jsonl")
    assert scored.returncode == 1, scored.stderr
    verdicts = [json.loads(x)["verdict"] for x in scored.stdout.splitlines()]
    shown = run_earnest("runs", "show", run_id, "--store", str(db), "--format", "json")
    assert shown.returncode == 1  # rule-arm failures
    stored: Counter[str] = Counter()
    for cell in json.loads(shown.stdout)["cells"]:
        stored.update(cell["verdicts"])
    assert (
        Counter(verdicts)
        == +stored
        == Counter({"pass": 2, "fail-unparseable": 2, "fail-choice": 2})
    )


def test_a_paid_run_without_yes_and_without_a_terminal_is_refused(tmp_path: Path) -> None:
    suite = write_suite(
        tmp_path / "suite",
        2,
        live='[live.profiles.paid]\nprovider = "openai:gpt-4o"\nprice = { input = 2.5, output = 10.0 }\n',
    )
    db = tmp_path / "runs.db"
    with FakeModelServer(scripted(load_fixtures(suite))) as srv:
        proc = run_earnest(
            "run", "--suite", str(suite), "--base-url", srv.base_url, "--store", str(db), input=""
        )
        assert srv.requests == []
    assert proc.returncode == 2
    assert "pass --yes" in proc.stderr and "estimated" in proc.stderr
    assert "run:" not in proc.stderr
    if db.exists():
        assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_kill_mid_run_then_resume_stores_every_sample_exactly_once(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 10)
    db = tmp_path / "runs.db"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    with FakeModelServer(scripted(load_fixtures(suite), delay=0.05)) as srv:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "earnest",
                "run",
                "--suite",
                str(suite),
                "--profile",
                "local=openai:llama3",
                "--base-url",
                srv.base_url,
                "--store",
                str(db),
                "--samples",
                "2",
                "--concurrency",
                "2",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert proc.stderr is not None
        run_id = ""
        while not run_id:
            line = proc.stderr.readline()
            assert line, "earnest run ended before it printed its run id"
            if line.startswith("run: "):
                run_id = line.split()[1]
        deadline = time.monotonic() + 20
        stored = 0
        while stored < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
            with sqlite3.connect(db) as conn:
                stored = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        proc.stdout.close()  # type: ignore[union-attr]
        proc.stderr.close()
        with sqlite3.connect(db) as conn:
            before = conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
        assert 10 <= before < 40, "the kill came too late to test resuming"
        requests_before_resume = len(srv.requests)

        resumed = run_earnest(
            "run", "--resume", run_id, "--store", str(db), "--base-url", srv.base_url
        )
        total_requests = len(srv.requests)
    assert resumed.returncode == 0, resumed.stderr
    assert run_id_of(resumed.stdout) == run_id
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT fixture_id, profile, arm, epoch, verdict FROM samples"
        ).fetchall()
        status = conn.execute("SELECT status FROM runs").fetchone()[0]
    assert len(rows) == 40 and len({r[:4] for r in rows}) == 40
    assert Counter((r[2], r[4]) for r in rows) == {
        ("rule", "pass"): 20,
        ("ablated", "fail-choice"): 20,
    }
    assert status == "complete"
    # resume asked only for what was missing (plus nothing already stored)
    assert total_requests - requests_before_resume == 40 - before
    assert requests_before_resume <= before + 2  # at most the two in flight were lost


def test_compare_runs_flags_flips_and_new_unparseable_replies(
    three_runs: tuple[Path, Path, str, str, str],
) -> None:
    _, db, base, same, worse = three_runs
    ok = run_earnest("compare", base, same, "--store", str(db))
    assert ok.returncode == 0 and "no regressions" in ok.stdout
    bad = run_earnest("compare", base, worse, "--store", str(db), "--format", "json")
    assert bad.returncode == 1
    data = json.loads(bad.stdout)
    assert {(f["fixture_id"], f["candidate"]) for f in data["flips"]} == {
        ("LIVE-001", "fail-unparseable"),
        ("LIVE-002", "fail-choice"),
    }
    assert len(data["flips"]) == 4 and len(data["new_unparseable"]) == 2
    assert data["paired"] == 6
    flip = next(f for f in data["flips"] if f["fixture_id"] == "LIVE-002")
    assert flip["reason"].startswith("chose ") and "non-compliant" in flip["reason"]
    assert flip["choice"] and "(compliant)" in flip["baseline_reason"]
    junit = run_earnest("compare", base, worse, "--store", str(db), "--format", "junit")
    assert junit.returncode == 1
    root = ET.fromstring(junit.stdout)
    cases = root.findall("./testsuite/testcase")
    # one case per paired sample, plus one per pass-rate drop (2/2 → 0/2 in two cells)
    assert len(cases) == data["paired"] + len(data["drops"]) == 8
    failed = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    assert len(failed) == 6 and int(root.get("failures", "")) == 6
    fail = failed["LIVE-002 [local/rule/epoch 0]"]
    assert fail is not None and fail.get("type") == "fail-choice"
    assert fail.get("message", "").startswith("pass → fail-choice: chose ")
    assert "reason: chose " in (fail.text or "") and "reply:\n" in (fail.text or "")
    assert "choice: " in (fail.text or "")
    unparseable = failed["LIVE-001 [local/rule/epoch 1]"]
    assert unparseable is not None and unparseable.get("type") == "fail-unparseable"
    passed = [c for c in cases if c.find("failure") is None]
    assert {c.get("name") for c in passed} == {
        "LIVE-000 [local/rule/epoch 0]",
        "LIVE-000 [local/rule/epoch 1]",
    }
    assert {c.get("name") for c in cases if "pass rate" in (c.get("name") or "")} == {
        "LIVE-001 [local/rule] pass rate",
        "LIVE-002 [local/rule] pass rate",
    }
    table = run_earnest("compare", base, worse, "--store", str(db))
    assert "pass → fail flips (4)" in table.stdout


def test_bless_then_compare_against_the_baseline_file(
    tmp_path: Path, three_runs: tuple[Path, Path, str, str, str]
) -> None:
    _, db, good, _, bad = three_runs
    baseline = tmp_path / "ci" / "baseline.json"
    missing = run_earnest("baseline", "bless", good, "--store", str(db), "--output", str(baseline))
    assert missing.returncode == 2 and "does not exist" in missing.stderr  # no folder made
    baseline.parent.mkdir()
    blessed = run_earnest("baseline", "bless", good, "--store", str(db), "--output", str(baseline))
    assert blessed.returncode == 0, blessed.stderr
    doc = json.loads(baseline.read_text())
    assert doc["earnest_baseline"] == 1 and doc["run_id"] == good
    assert len(doc["samples"]) == 6 and {s["verdict"] for s in doc["samples"]} == {"pass"}
    assert doc["profiles"]["local"]["model"] == "llama3" and "fixer" in doc["agent_docs"]
    assert all(s["reason"].startswith("chose ") for s in doc["samples"])
    assert all(len(s["choice"]) == 1 == len(s["displayed_choice"]) for s in doc["samples"])

    again = run_earnest("baseline", "bless", bad, "--store", str(db), "--output", str(baseline))
    assert again.returncode == 2 and "--force" in again.stderr
    assert json.loads(baseline.read_text())["run_id"] == good  # not overwritten

    assert run_earnest("compare", str(baseline), good, "--store", str(db)).returncode == 0
    regress = run_earnest("compare", str(baseline), bad, "--store", str(db))
    assert regress.returncode == 1 and "LIVE-002" in regress.stdout
    # two baseline files compare without any store
    other = tmp_path / "bad.json"
    run_earnest("baseline", "bless", bad, "--store", str(db), "--output", str(other))
    assert run_earnest("compare", str(baseline), str(other)).returncode == 1


def test_a_baseline_blessed_before_reasons_were_kept_still_compares(
    tmp_path: Path, three_runs: tuple[Path, Path, str, str, str]
) -> None:
    _, db, good, _, bad = three_runs
    baseline = tmp_path / "baseline.json"
    assert (
        run_earnest("baseline", "bless", good, "--store", str(db), "-o", str(baseline)).returncode
        == 0
    )
    doc = json.loads(baseline.read_text())
    for s in doc["samples"]:  # the shape `baseline bless` wrote before this change
        del s["reason"], s["choice"], s["displayed_choice"]
    baseline.write_text(json.dumps(doc))
    out = run_earnest("compare", str(baseline), bad, "--store", str(db), "--format", "junit")
    assert out.returncode == 1, out.stderr
    root = ET.fromstring(out.stdout)
    fail = root.find("./testsuite/testcase[@name='LIVE-002 [local/rule/epoch 1]']/failure")
    assert fail is not None and "non-compliant" in fail.get("message", "")
    assert "baseline reason" not in (fail.text or "")


def test_bad_input_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    db = tmp_path / "runs.db"
    missing = run_earnest("runs", "show", "nope", "--store", str(db))
    assert missing.returncode == 2 and "no run store here" in missing.stderr
    no_profile = run_earnest("run", "--suite", str(suite), "--store", str(db))
    assert no_profile.returncode == 2 and "no profiles" in no_profile.stderr
    bad_spec = run_earnest("run", "--suite", str(suite), "--profile", "x=gpt4", "--store", str(db))
    assert bad_spec.returncode == 2 and "unknown provider" in bad_spec.stderr
    bad_fixture = run_earnest(
        "run",
        "--suite",
        str(suite),
        "--profile",
        "x=openai:m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--fixtures",
        "NOPE",
        "--store",
        str(db),
    )
    assert bad_fixture.returncode == 2 and "NOPE" in bad_fixture.stderr
    resume_matrix = run_earnest("run", "--resume", "x", "--samples", "2", "--store", str(db))
    assert resume_matrix.returncode == 2
    assert "Traceback" not in "".join(
        p.stderr for p in (missing, no_profile, bad_spec, bad_fixture, resume_matrix)
    )


def test_a_missing_sdk_is_a_clear_exit_2(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    shadow = tmp_path / "shadow" / "openai"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('simulated: not installed')\n")
    proc = run_earnest(
        "run",
        "--suite",
        str(suite),
        "--profile",
        "x=openai:gpt-4o-mini",
        "--yes",
        "--store",
        str(tmp_path / "runs.db"),
        env={"PYTHONPATH": os.pathsep.join([str(SRC), str(shadow.parent)]), "OPENAI_API_KEY": "k"},
    )
    assert proc.returncode == 2
    assert "pip install 'earnest[openai]'" in proc.stderr and "Traceback" not in proc.stderr
    assert "from a checkout: pip install -e '.[openai]'" in proc.stderr
