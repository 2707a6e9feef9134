"""What a live run promises about time, retries, money and a server that is not there: real
runs against local fake servers (and a port nothing listens on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from live_servers import Action, FakeModelServer, Request, closed_port, prompt_of
from live_suite import load_fixtures, reply_for, write_suite

from conftest import run_earnest
from earnest.live.cost import DEFAULT_OUTPUT_TOKENS
from earnest.live.runner import RunResult
from earnest.live.session import Overrides, execute, plan_new, plan_resume
from earnest.live.store import RunStore, SampleRecord


def passing(fixtures: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    def script(req: Request) -> Action:
        system, user = prompt_of(req)
        return Action(text=reply_for(user, system, fixtures, "pass"))

    return script


def run(suite: Path, db: Path, **kw: Any) -> tuple[RunResult, list[SampleRecord]]:
    plan = plan_new(suite, Overrides(arms="rule", **kw))
    with RunStore(db) as st:
        result = execute(plan, st)
        return result, st.samples(result.run_id)


# -- 6. --timeout bounds every wait ------------------------------------------------------------


def test_a_retry_after_longer_than_the_samples_time_is_not_slept(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    # --timeout 0.5 and 1 retry: the sample has 1 s in all; the server asks for 99999999 s.
    with FakeModelServer(lambda r: Action(status=429, headers={"retry-after": "99999999"})) as srv:
        result, samples = run(
            suite, tmp_path / "runs.db", profiles=("l=openai:m",), base_url=srv.base_url,
            timeout=0.5, retries=1,
        )  # fmt: skip
        requests = len(srv.requests)
    (s,) = samples
    assert s.void and s.error_kind == "rate_limit" and s.attempts == 1 and requests == 1
    assert s.error is not None and "time limit" in s.error
    assert result.status == "complete"


def test_a_retry_after_that_would_pass_the_limit_is_not_slept_either(tmp_path: Path) -> None:
    """Retry-After: 2 with a 1 s sample: before, the sample slept 2 s and asked again."""
    suite = write_suite(tmp_path / "suite", 1)
    with FakeModelServer(lambda r: Action(status=503, headers={"retry-after": "2"})) as srv:
        _, samples = run(
            suite, tmp_path / "runs.db", profiles=("l=openai:m",), base_url=srv.base_url,
            timeout=0.5, retries=1,
        )  # fmt: skip
        requests = len(srv.requests)
    (s,) = samples
    assert (s.void, s.error_kind, s.attempts, requests) == (True, "server_error", 1, 1)


# -- 7. a timeout is transient -----------------------------------------------------------------


def test_a_reply_that_hangs_once_is_retried_to_a_verdict(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    fixtures = load_fixtures(suite)
    inner = passing(fixtures)
    hung: set[str] = set()

    def script(req: Request) -> Action:
        _, user = prompt_of(req)
        fid = next(f["id"] for f in fixtures if f"OPS-{4000 + int(f['id'][5:])}:" in user)
        if fid == "LIVE-001" and fid not in hung:
            hung.add(fid)
            return Action(delay=1.5, text="late")  # the first try of LIVE-001 stalls
        return inner(req)

    with FakeModelServer(script) as srv:
        _, samples = run(
            suite, tmp_path / "runs.db", profiles=("l=openai:m",), base_url=srv.base_url,
            timeout=0.4, retries=2, backoff=0.05,
        )  # fmt: skip
    by = {s.fixture_id: s for s in samples}
    assert {s.verdict for s in samples} == {"pass"} and not any(s.void for s in samples)
    assert by["LIVE-001"].attempts == 2 and by["LIVE-000"].attempts == 1


def test_a_reply_that_always_hangs_is_void_after_its_retries(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    with FakeModelServer(lambda r: Action(delay=1.0, text="late")) as srv:
        _, samples = run(
            suite, tmp_path / "runs.db", profiles=("l=openai:m",), base_url=srv.base_url,
            timeout=0.3, retries=1, backoff=0.01,
        )  # fmt: skip
        requests = len(srv.requests)
    (s,) = samples
    assert s.void and s.error_kind == "timeout" and s.attempts == 2 and requests == 2


# -- 8. --max-cost is a hard budget ------------------------------------------------------------


def greedy(fixtures: list[dict[str, Any]], unbounded: int = 4000):  # type: ignore[no-untyped-def]
    """A model that writes as much as it is allowed: the request's max_tokens, or a long
    essay when the request sets no limit."""
    inner = passing(fixtures)

    def script(req: Request) -> Action:
        action = inner(req)
        limit = req.body.get("max_tokens") or req.body.get("max_completion_tokens")
        action.usage = (10, int(limit) if isinstance(limit, int) else unbounded)
        return action

    return script


def test_requests_carry_the_estimates_output_limit_unless_the_profile_sets_one(
    tmp_path: Path,
) -> None:
    suite = write_suite(
        tmp_path / "suite",
        1,
        live='[live.profiles.capped]\nprovider = "openai:m"\nparams = { max_tokens = 77 }\n',
    )
    with FakeModelServer(passing(load_fixtures(suite))) as srv:
        run(suite, tmp_path / "a.db", profiles=("plain=openai:llama3",), base_url=srv.base_url)
        run(suite, tmp_path / "b.db", profiles=("capped",), base_url=srv.base_url)
        run(suite, tmp_path / "c.db", profiles=("r=openai:o3-mini",), base_url=srv.base_url)
        run(suite, tmp_path / "d.db", profiles=("a=anthropic:claude-x",), base_url=srv.base_url)
        bodies = [r.body for r in srv.requests]
    assert bodies[0]["max_tokens"] == DEFAULT_OUTPUT_TOKENS
    assert bodies[1]["max_tokens"] == 77
    assert bodies[2]["max_completion_tokens"] >= DEFAULT_OUTPUT_TOKENS  # a reasoning model
    assert "max_tokens" not in bodies[2]
    assert bodies[3]["max_tokens"] == DEFAULT_OUTPUT_TOKENS
    with RunStore(tmp_path / "a.db") as st:
        (info,) = st.list_runs()
        (s,) = st.samples(info.run_id)
    assert s.params["max_tokens"] == DEFAULT_OUTPUT_TOKENS  # what was sent is stored


def test_max_cost_is_never_passed_with_samples_in_flight(tmp_path: Path) -> None:
    # $0.30 per reply that uses all of its 512 output tokens; input is free.
    per_token = 0.30 / DEFAULT_OUTPUT_TOKENS * 1_000_000
    suite = write_suite(
        tmp_path / "suite",
        8,
        live=(
            f'[live.profiles.paid]\nprovider = "openai:m"\n'
            f"price = {{ input = 0.0, output = {per_token} }}\n"
        ),
    )
    fixtures = load_fixtures(suite)
    with FakeModelServer(greedy(fixtures)) as srv:
        result, samples = run(
            suite, tmp_path / "runs.db", profiles=("paid",), base_url=srv.base_url,
            concurrency=4, max_cost=1.0,
        )  # fmt: skip
        requests = len(srv.requests)
    spent = sum(s.cost or 0.0 for s in samples)
    assert result.status == "stopped" and requests == len(samples) == 3
    assert spent == pytest.approx(0.9) and spent <= 1.0


def test_a_timed_out_try_counts_its_worst_case_before_a_retry(tmp_path: Path) -> None:
    """A try that timed out may have been billed: a retry needs room for another worst case."""
    per_token = 0.30 / DEFAULT_OUTPUT_TOKENS * 1_000_000
    suite = write_suite(
        tmp_path / "suite",
        1,
        live=(
            f'[live.profiles.paid]\nprovider = "openai:m"\n'
            f"price = {{ input = 0.0, output = {per_token} }}\n"
        ),
    )
    with FakeModelServer(lambda r: Action(delay=1.0, text="late")) as srv:
        _, samples = run(
            suite, tmp_path / "runs.db", profiles=("paid",), base_url=srv.base_url,
            timeout=0.3, retries=4, backoff=0.01, max_cost=0.5,
        )  # fmt: skip
        requests = len(srv.requests)
    (s,) = samples
    # one try of $0.30 fits in $0.50; a second would need $0.60
    assert s.void and s.error_kind == "timeout" and requests == 1 and s.attempts == 1
    assert s.error is not None and "--max-cost" in s.error


# -- 9. nothing listening ----------------------------------------------------------------------


def test_a_server_that_is_not_there_stops_the_run_early_and_resume_finishes(
    tmp_path: Path,
) -> None:
    suite = write_suite(tmp_path / "suite", 4)
    port = closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    db = tmp_path / "runs.db"
    result, samples = run(
        suite, db, profiles=("l=openai:m",), base_url=url, samples=2, concurrency=1,
        retries=4, backoff=0.05,
    )  # fmt: skip
    assert result.status == "stopped" and samples == []
    assert result.hint is not None
    assert f"nothing listens at {url} — is the server running?" in result.hint
    with FakeModelServer(passing(load_fixtures(suite)), port=port) as srv:
        with RunStore(db) as st:
            again = plan_resume(st, result.run_id, None, Overrides(base_url=url))
            assert len(again.pending) == 8
            done = execute(again, st)
            final = st.samples(result.run_id)
        assert len(srv.requests) == 8
    assert done.status == "complete" and done.hint is None
    assert len(final) == 8 and {s.verdict for s in final} == {"pass"}


def test_earnest_run_says_nothing_listens_and_how_to_resume(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 3)
    port = closed_port()
    db = tmp_path / "runs.db"
    proc = run_earnest(
        "run", "--suite", str(suite), "--profile", "l=openai:m",
        "--base-url", f"http://127.0.0.1:{port}/v1", "--store", str(db), "--arms", "rule",
        "--progress-interval", "60",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert f"nothing listens at http://127.0.0.1:{port}/v1 — is the server running?" in proc.stderr
    assert "earnest run --resume" in proc.stderr and "Traceback" not in proc.stderr
    assert f"--base-url http://127.0.0.1:{port}/v1" in proc.stderr  # the store is not trusted
    # default retries (4) and backoff (1 s) would take > 10 s per sample: the hint comes
    # after the first few refusals, and no sample is stored as void
    with RunStore(db) as st:
        (info,) = st.list_runs()
        assert info.status == "stopped" and st.samples(info.run_id) == []


# -- 11. lone surrogates in a reply and a model name ------------------------------------------


def test_lone_surrogates_in_a_reply_and_its_model_name_are_stored_and_reported(
    tmp_path: Path,
) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    fixtures = load_fixtures(suite)

    def script(req: Request) -> Action:
        system, user = prompt_of(req)
        return Action(text=reply_for(user, system, fixtures, "pass") + " \ud800 \udfff")

    db = tmp_path / "runs.db"
    with FakeModelServer(script) as srv:
        result, samples = run(suite, db, profiles=("l=openai:m\udc80x",), base_url=srv.base_url)
    (s,) = samples
    assert s.verdict == "pass" and "\ufffd \ufffd" in (s.reply or "")
    assert s.reply_model is not None and "\ufffd" in s.reply_model
    for fmt in ("table", "json", "junit"):
        shown = run_earnest("runs", "show", result.run_id, "--store", str(db), "--format", fmt)
        assert shown.returncode == 0, shown.stderr
        assert "Traceback" not in shown.stderr
    exported = run_earnest("export", result.run_id, "--store", str(db))
    assert exported.returncode == 0 and "\ufffd" in exported.stdout, exported.stderr
