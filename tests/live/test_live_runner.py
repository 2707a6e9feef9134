"""The runner, in process, against a local OpenAI-compatible server and real child processes."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("openai")

from live_servers import Action, FakeModelServer, Request, prompt_of
from live_suite import load_fixtures, reply_for, write_suite

from earnest.errors import InputError
from earnest.live.runner import Budget
from earnest.live.session import Overrides, execute, plan_new, plan_resume
from earnest.live.store import RunStore
from earnest.live.summary import summarize


def scripted(
    fixtures: list[dict], rule: str = "pass", ablated: str = "fail-choice", **faults: Action
):  # type: ignore[no-untyped-def,type-arg]
    """Answer by arm (the ablated system prompt has no Working Rules); ``faults`` by fixture id."""

    def script(req: Request) -> Action:
        system, user = prompt_of(req)
        for fid, action in faults.items():
            if f"OPS-{4000 + int(fid.split('-')[1])}:" in user:
                return action
        how = rule if "Working Rules" in system else ablated
        return Action(text=reply_for(user, system, fixtures, how))

    return script


def run(suite: Path, store: Path, **kw: object):  # type: ignore[no-untyped-def]
    plan = plan_new(suite, Overrides(**kw))  # type: ignore[arg-type]
    with RunStore(store) as st:
        result = execute(plan, st)
        return result, st.get_run(result.run_id), st.samples(result.run_id)


def test_a_run_judges_every_sample_once_with_per_epoch_shuffles(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    fixtures = load_fixtures(suite)
    with FakeModelServer(scripted(fixtures)) as srv:
        result, info, samples = run(
            suite,
            tmp_path / "runs.db",
            profiles=("local=openai:llama3",),
            base_url=srv.base_url,
            samples=4,
            concurrency=3,
            timeout=5,
        )
        requests = len(srv.requests)
    assert result.status == info.status == "complete" and info.total == 24 == len(samples)
    assert requests == 24
    assert len({s.key for s in samples}) == 24
    verdicts = Counter((s.arm, s.verdict) for s in samples)
    assert verdicts == {("rule", "pass"): 12, ("ablated", "fail-choice"): 12}
    # each fixture is shown in more than one order across epochs (the epoch is in the seed)
    for f in fixtures:
        orders = {s.displayed_order for s in samples if s.fixture_id == f["id"] and s.arm == "rule"}
        assert len(orders) > 1
    s0 = samples[0]
    assert s0.provider == "openai:llama3" and s0.model == "llama3" and s0.agent == "fixer"
    assert len(s0.prompt_hash) == 64 and len(s0.agent_doc_sha256) == 64
    assert s0.tokens_in == 50 and s0.cost == 0.0 and s0.latency is not None
    assert json.loads(s0.raw_reply or "{}")["object"] == "chat.completion"
    summary = summarize(info, samples)
    assert summary.exit_code() == 0
    assert all(r.delta == 1.0 and r.flag is None for r in summary.rules)
    failed = [c for c in summary.cells if c.arm == "ablated"]
    assert all(c.matched for c in failed)  # the recorded excuse was recognised


def test_timeouts_and_exhausted_retries_are_void_never_unparseable(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    fixtures = load_fixtures(suite)
    script = scripted(
        fixtures,
        **{"LIVE-001": Action(delay=2.0, text="late"), "LIVE-002": Action(status=503)},
    )
    with FakeModelServer(script) as srv:
        _result, info, samples = run(
            suite,
            tmp_path / "runs.db",
            profiles=("local=openai:m",),
            base_url=srv.base_url,
            arms="rule",
            timeout=0.5,
            retries=1,
            backoff=0.05,  # the retry's wait must fit in the sample's 1 s (0.5 s x 2 tries)
            samples=1,
        )
    by = {s.fixture_id: s for s in samples}
    assert by["LIVE-000"].verdict == "pass"
    slow, down = by["LIVE-001"], by["LIVE-002"]
    assert slow.void and slow.verdict is None and slow.error_kind == "timeout"
    assert slow.attempts == 2  # a timeout is retried too
    assert down.void and down.error_kind == "server_error" and down.attempts == 2
    summary = summarize(info, samples)
    assert summary.void == 2 and summary.counts["fail-unparseable"] == 0
    assert [c.rate for c in summary.cells if c.n] == [1.0]
    assert summary.exit_code() == 1


def test_rate_limits_are_retried_to_a_verdict(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    fixtures = load_fixtures(suite)
    inner = scripted(fixtures)

    def script(req: Request) -> Action:
        if req.number == 1:
            return Action(status=429, headers={"retry-after-ms": "100"})
        if req.number == 2:
            return Action(drop=True)
        return inner(req)

    with FakeModelServer(script) as srv:
        _, _, samples = run(
            suite,
            tmp_path / "runs.db",
            profiles=("local=openai:m",),
            base_url=srv.base_url,
            arms="rule",
            concurrency=1,
            backoff=0.05,
        )
    (s,) = samples
    assert (s.verdict, s.attempts, s.void) == ("pass", 3, False)


def test_max_cost_stops_cleanly_and_resume_finishes(tmp_path: Path) -> None:
    suite = write_suite(
        tmp_path / "suite",
        4,
        live=(
            "[live.profiles.paid]\n"
            'provider = "openai:m"\n'
            "price = { input = 1000.0, output = 0.0 }\n"  # $0.05 per reply of 50 tokens
        ),
    )
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeModelServer(scripted(fixtures)) as srv:
        probe = plan_new(suite, Overrides(base_url=srv.base_url, arms="rule"))
        reserves = [p.reserve for p in probe.pending]
        estimate = probe.pending[0].est_cost
        assert estimate is not None and estimate > 0.05  # the estimate is prompt-sized
        assert all(r is not None and r > estimate for r in reserves)  # the worst case is more
        reserve = max(r or 0.0 for r in reserves)
        assert reserve - min(r or 0.0 for r in reserves) < 0.02
        # Room for two samples: the 3rd would need 2 x $0.05 spent + its worst case.
        budget = reserve + 0.07
        plan = plan_new(
            suite,
            Overrides(base_url=srv.base_url, arms="rule", concurrency=1, max_cost=budget),
        )
        with RunStore(db) as st:
            result = execute(plan, st)
            stored = st.samples(result.run_id)
        assert result.status == "stopped"
        assert len(stored) == 2 and len(srv.requests) == 2
        assert sum(s.cost or 0 for s in stored) == pytest.approx(0.1)
        with RunStore(db) as st:
            again = plan_resume(
                st, result.run_id, None, Overrides(base_url=srv.base_url, max_cost=100.0)
            )
            assert len(again.pending) == 4 - len(stored)
            done = execute(again, st)
            final = st.samples(result.run_id)
    assert done.status == "complete" and len(final) == 4
    assert {s.verdict for s in final} == {"pass"}


def test_budget_counts_in_flight_estimates() -> None:
    b = Budget(1.0)
    assert b.try_start(0.4) and b.try_start(0.4)
    assert not b.try_start(0.4) and b.exhausted
    b.finish(0.4, 0.1)
    assert not b.try_start(0.01)  # once exhausted, nothing else starts
    assert Budget(None).try_start(None)


def test_resume_refuses_a_changed_fixture_and_matrix_options(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 2)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeModelServer(scripted(fixtures)) as srv:
        result, _, _ = run(suite, db, profiles=("l=openai:m",), base_url=srv.base_url, arms="rule")
    with RunStore(db) as st:
        with pytest.raises(InputError, match="cannot change the matrix"):
            plan_resume(st, result.run_id, None, Overrides(samples=3))
        path = suite / "pressure" / "LIVE-001.json"
        data = json.loads(path.read_text())
        data["scenario"] += " It is now 23:55."
        path.write_text(json.dumps(data))
        with pytest.raises(InputError, match="fixture changed since run"):
            plan_resume(st, result.run_id, None, Overrides(base_url=srv.base_url))
        with pytest.raises(InputError, match="no such run"):
            plan_resume(st, "nope", None, Overrides())


def test_export_then_replay_reproduces_every_verdict(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    fixtures = load_fixtures(suite)
    db = tmp_path / "runs.db"
    with FakeModelServer(scripted(fixtures, rule="pass", ablated="fail-citation")) as srv:
        _, _, first = run(suite, db, profiles=("l=openai:m",), base_url=srv.base_url, samples=2)
    lines = [
        json.dumps(
            {
                "fixture_id": s.fixture_id,
                "response": s.reply,
                "arm": s.arm,
                "epoch": s.epoch,
                "order": list(s.displayed_order),
                "profile": s.profile,
            }
        )
        for s in first
    ]
    recorded = tmp_path / "recorded.jsonl"
    recorded.write_text("\n".join(lines) + "\n")
    _, _, replayed = run(suite, db, profiles=(f"l=replay:{recorded}",), samples=2, seed=99)
    assert [(s.key, s.verdict, s.displayed_order) for s in replayed] == [
        (s.key, s.verdict, s.displayed_order) for s in first
    ]


CLAUDE_LIKE = """
import json, sys
prompt = sys.stdin.read()
if "OPS-4001" in prompt:
    import time; time.sleep(30)
print(json.dumps({"type": "result", "subtype": "success", "is_error": False,
                  "result": "Rule 1 settles it.\\n\\n**CHOICE: %s**" % sys.argv[1],
                  "total_cost_usd": 0.002}))
"""


def test_an_exec_agent_run_unwraps_envelopes_and_voids_a_hang(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 2)
    agent = tmp_path / "agent.py"
    agent.write_text(CLAUDE_LIKE)
    # LIVE-000's compliant option is A; with no shuffle it is displayed as A
    _, _info, samples = run(
        suite,
        tmp_path / "runs.db",
        profiles=(f"cli=exec:cmd:{sys.executable} {agent} A",),
        arms="rule",
        shuffle=False,
        timeout=1.0,
        retries=1,  # a hang is retried once (timeouts are transient), then void
        backoff=0.05,
    )
    by = {s.fixture_id: s for s in samples}
    ok, hung = by["LIVE-000"], by["LIVE-001"]
    assert ok.verdict == "pass" and ok.raw_reply and ok.raw_reply.startswith('{"type"')
    assert ok.reply and ok.reply.endswith("**CHOICE: A**") and ok.cost == 0.002
    assert hung.void and hung.error_kind == "timeout"


def test_replaying_the_example_recordings_matches_offline_scoring(tmp_path: Path) -> None:
    """Recorded lines without an ``order`` were shown the fixture's own order: a shuffled
    replay run must judge them against that order, exactly as ``earnest score`` does."""
    from conftest import EXAMPLES
    from earnest.pressure.replies import read_replies
    from earnest.pressure.suite import load_suite
    from earnest.pressure.verdict import judge

    suite_dir = EXAMPLES / "suite"
    recorded = suite_dir / "recorded" / "replies.jsonl"
    suite = load_suite(suite_dir)
    fixtures = {f.id: f for f in suite.fixtures}
    expected: dict[tuple[str, str], str] = {}
    for r in read_replies(recorded, fixtures):
        if (r.epoch or 0) == 0:
            key = (r.fixture_id, r.arm or "rule")
            if key not in expected:
                expected[key] = judge(
                    fixtures[r.fixture_id], suite.rules, r.response, r.order
                ).verdict
    _, _, samples = run(
        suite_dir, tmp_path / "runs.db", profiles=(f"rec=replay:{recorded}",), seed=7
    )
    got = {(s.fixture_id, s.arm): s.verdict for s in samples if not s.void}
    assert got == expected
    assert len(set(expected.values())) > 1  # the recordings hold failures as well as passes
    missing = [s for s in samples if s.void]
    assert all(s.error_kind == "missing_reply" for s in missing)
    assert {(s.fixture_id, s.arm) for s in missing}.isdisjoint(expected)
