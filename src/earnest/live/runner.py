"""Run the matrix: fixtures × profiles × arms × epochs, concurrently, into the run store.

Each sample is rendered (``earnest.pressure.prompt``), sent to its profile's provider with a
timeout and retries, unwrapped, judged (``earnest.pressure.verdict``) and stored the moment it
completes. A timeout or a provider failure that outlives its retries makes the sample *void*:
stored with its error, never a verdict, excluded from pass rates. ``--max-cost`` is a budget:
a sample starts only while the cost so far plus the estimates of the samples in flight and its
own stay within it; in-flight samples always finish.

Example:
    >>> from earnest.live.store import RunInfo
    >>> Budget(1.0, spent=0.4).try_start(0.5), Budget(1.0, spent=0.4).try_start(0.7)
    (True, False)
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from earnest.errors import InputError
from earnest.live.act import acts, template_of
from earnest.live.config import LiveConfig
from earnest.live.cost import DEFAULT_OUTPUT_TOKENS, FREE, Price, estimate_tokens, is_local_url
from earnest.live.cost import price_for as family_price
from earnest.live.judging import Rendered, judge_reply, render, sample_seed
from earnest.live.profiles import Profile
from earnest.live.providers.base import Provider, ProviderError, ProviderReply, SampleKey
from earnest.live.retry import RetryPolicy, call_with_retries
from earnest.live.store import RunInfo, RunStore, SampleId, SampleRecord
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.suite import find_agent

TIMEOUT_GRACE = 1.0
"""The runner's own deadline is the timeout plus this, so a provider can report its own
timeout first (an exec child's process group is killed by the provider itself)."""


def new_run_id() -> str:
    """Sortable and unique: ``20250301-142233-9f3a1c``."""
    return f"{datetime.now():%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


@dataclass(frozen=True, slots=True)
class PlannedSample:
    fixture: Fixture
    profile: Profile
    arm: str
    epoch: int

    @property
    def key(self) -> SampleId:
        return (self.fixture.id, self.profile.name, self.arm, self.epoch)


def select_fixtures(suite: Suite, wanted: Sequence[str]) -> list[Fixture]:
    fixtures = list(suite.fixtures)
    if not wanted:
        return fixtures
    known = {f.id: f for f in fixtures}
    missing = [w for w in wanted if w not in known]
    if missing:
        raise InputError(
            suite.config.fixtures, missing[0], "no fixture with this id in the suite (--fixtures)"
        )
    return [known[w] for w in dict.fromkeys(wanted)]


def plan_samples(suite: Suite, config: LiveConfig) -> list[PlannedSample]:
    """Every sample of the run, epoch-major: a run stopped early has whole lower epochs."""
    fixtures = select_fixtures(suite, config.fixtures)
    return [
        PlannedSample(fixture, profile, arm, epoch)
        for epoch in range(config.samples)
        for fixture in fixtures
        for profile in config.profiles
        for arm in config.arms
    ]


def sha256_file(path: Path | None) -> str:
    if path is None:
        return ""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def workspace_checksum(suite: Suite, fixture: Fixture) -> str:
    """One hash over an agentic fixture's workspace template: every file's path and content
    (``""`` when the folder is not a suite folder: lint says why)."""
    from earnest.pressure.workspaces import resolve_workspace, snapshot

    assert fixture.workspace is not None
    try:
        folder = resolve_workspace(suite.config.root, fixture.workspace)
    except ValueError:
        return ""
    digest = hashlib.sha256()
    for path, sha in sorted(snapshot(folder).items()):
        digest.update(f"{path}\0{sha}\n".encode())
    return digest.hexdigest()


def suite_checksums(suite: Suite, fixtures: Sequence[Fixture]) -> dict[str, Any]:
    """What a run measured: each fixture's file and metadata, each agent doc, the doctrine."""
    fx: dict[str, Any] = {}
    agents: dict[str, str] = {}
    for f in fixtures:
        doc = find_agent(suite, f.agent)
        if doc is None:
            raise InputError(
                f.path,
                "agent",
                f"agent doc {f.agent!r} not found in the suite "
                "(run `earnest lint`, or leave the fixture out with --fixtures)",
            )
        agents[doc.name] = sha256_file(doc.path)
        fx[f.id] = {
            "sha256": sha256_file(f.path),
            "rule": f.rule,
            "agent": doc.name,
            "path": str(f.path) if f.path else None,
            "rationalizations": [r.excuse for r in f.rationalizations],
        }
        if f.workspace is not None:
            fx[f.id]["workspace_sha256"] = workspace_checksum(suite, f)
    return {
        "fixtures": fx,
        "agents": agents,
        "doctrine": sha256_file(suite.config.doctrine),
    }


def check_resumable(stored: Mapping[str, Any], current: Mapping[str, Any], run_id: str) -> None:
    """A resumed run must measure the suite it started with: refuse if a fixture, agent doc
    or the doctrine changed since (mixing the two would measure neither)."""
    for fid, meta in stored.get("fixtures", {}).items():
        now = current.get("fixtures", {}).get(fid)
        if now is None:
            raise InputError(meta.get("path"), fid, f"fixture gone since run {run_id} started")
        if now["sha256"] != meta["sha256"]:
            raise InputError(
                meta.get("path"),
                fid,
                f"fixture changed since run {run_id} started; start a new run instead of resuming",
            )
        if now.get("workspace_sha256") != meta.get("workspace_sha256"):
            raise InputError(
                meta.get("path"),
                fid,
                f"the fixture's workspace changed since run {run_id} started; start a new run",
            )
    for name, sha in stored.get("agents", {}).items():
        if current.get("agents", {}).get(name) != sha:
            raise InputError(
                None,
                f"agent {name}",
                f"agent doc changed since run {run_id} started; start a new run instead",
            )
    if stored.get("doctrine") != current.get("doctrine"):
        raise InputError(
            None, "doctrine", f"doctrine changed since run {run_id} started; start a new run"
        )


def profile_price(profile: Profile, prices: Mapping[str, Price]) -> Price | None:
    """What a profile's tokens cost; ``None`` when unknown (a paid run with an unknown price)."""
    if profile.price is not None:
        return profile.price
    if profile.kind == "replay" or (profile.kind == "exec" and profile.preset == "cmd"):
        return FREE
    if profile.kind in ("openai", "anthropic") and is_local_url(profile.base_url):
        return FREE
    return family_price(profile.model, prices)


def output_budget(profile: Profile) -> int:
    for k in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
        v = profile.params.get(k)
        if isinstance(v, int) and v > 0:
            return v
    return DEFAULT_OUTPUT_TOKENS


@dataclass(frozen=True, slots=True)
class Prepared:
    planned: PlannedSample
    rendered: Rendered
    agent_name: str
    agent_sha: str
    fixture_sha: str
    est_tokens_in: int
    est_tokens_out: int
    est_cost: float | None
    act: Path | None = None
    """The workspace template when this sample is acted out (``--act`` / ``mode = "act"``)."""


def prepare(
    suite: Suite,
    planned: PlannedSample,
    config: LiveConfig,
    checksums: Mapping[str, Any],
) -> Prepared:
    f = planned.fixture
    seed = sample_seed(config.seed, f.id, planned.epoch, planned.arm) if config.shuffle else None
    template: Path | None = None
    if acts(f, config.act):
        try:
            template = template_of(suite, f)
        except ValueError as exc:
            raise InputError(f.path, "workspace", str(exc)) from None
    rendered = render(suite, f, arm=planned.arm, seed=seed, act=template is not None)
    meta = checksums["fixtures"][f.id]
    tin = estimate_tokens(rendered.system) + estimate_tokens(rendered.user)
    tout = output_budget(planned.profile)
    price = profile_price(planned.profile, config.prices)
    return Prepared(
        planned=planned,
        rendered=rendered,
        agent_name=meta["agent"],
        agent_sha=checksums["agents"][meta["agent"]],
        fixture_sha=meta["sha256"],
        est_tokens_in=tin,
        est_tokens_out=tout,
        est_cost=None if price is None else price.cost(tin, tout),
        act=template,
    )


@dataclass(frozen=True, slots=True)
class Estimate:
    """The pre-run estimate over the samples still to do."""

    samples: int
    tokens_in: int
    tokens_out: int
    cost: float
    unpriced: tuple[str, ...]
    """Profiles whose price is unknown: the cost above leaves them out."""

    @property
    def paid(self) -> bool:
        return self.cost > 0 or bool(self.unpriced)


def estimate(prepared: Sequence[Prepared]) -> Estimate:
    unpriced = sorted({p.planned.profile.name for p in prepared if p.est_cost is None})
    return Estimate(
        samples=len(prepared),
        tokens_in=sum(p.est_tokens_in for p in prepared),
        tokens_out=sum(p.est_tokens_out for p in prepared),
        cost=sum(p.est_cost or 0.0 for p in prepared),
        unpriced=tuple(unpriced),
    )


class Budget:
    """``--max-cost``: start a sample only while spent + in flight + its estimate fit."""

    def __init__(self, max_cost: float | None, spent: float = 0.0) -> None:
        self.max_cost = max_cost
        self.spent = spent
        self.in_flight = 0.0
        self.exhausted = False

    def try_start(self, estimate: float | None) -> bool:
        if self.exhausted:
            return False
        if self.max_cost is None:
            return True
        need = estimate or 0.0
        if self.spent + self.in_flight + need > self.max_cost:
            self.exhausted = True
            return False
        self.in_flight += need
        return True

    def finish(self, estimate: float | None, actual: float | None) -> None:
        self.in_flight = max(0.0, self.in_flight - (estimate or 0.0))
        # An unknown actual cost counts as its estimate, so the budget never under-counts.
        self.spent += actual if actual is not None else (estimate or 0.0)


class Observer(Protocol):
    def on_start(self, total: int, done: Sequence[SampleRecord]) -> None: ...

    def on_sample(self, record: SampleRecord) -> None: ...

    def on_retry(self, key: SampleId, attempt: int, error: ProviderError, wait: float) -> None: ...

    def on_finish(self, status: str) -> None: ...


@dataclass
class RunResult:
    run_id: str
    status: str
    total: int
    stored_now: int = 0


class Runner:
    """Executes one run (new or resumed) against ready providers; writes through ``store``."""

    def __init__(
        self,
        *,
        suite: Suite,
        run: RunInfo,
        config: LiveConfig,
        store: RunStore,
        providers: Mapping[str, Provider],
        prepared: Sequence[Prepared],
        observer: Observer | None = None,
    ) -> None:
        self.suite = suite
        self.run_info = run
        self.config = config
        self.store = store
        self.providers = providers
        self.prepared = list(prepared)
        self.observer = observer
        self.policy = RetryPolicy(retries=config.retries, base=config.backoff)

    async def run(self) -> RunResult:
        run_id = self.run_info.run_id
        existing = self.store.samples(run_id)
        judged = {r.key for r in existing if not r.void}
        todo = [p for p in self.prepared if p.planned.key not in judged]
        spent = sum(r.cost or 0.0 for r in existing)
        budget = Budget(self.config.max_cost, spent=spent)
        if self.observer:
            self.observer.on_start(self.run_info.total, [r for r in existing if not r.void])
        queues: dict[str, deque[Prepared]] = {}
        for p in todo:
            queues.setdefault(p.planned.profile.name, deque()).append(p)
        result = RunResult(run_id=run_id, status="running", total=self.run_info.total)
        workers = []
        for name, queue in queues.items():
            profile = self.config.profile(name)
            k = (profile.concurrency if profile else None) or self.config.concurrency
            workers += [self._worker(queue, budget, result) for _ in range(min(k, len(queue)))]
        self.store.set_status(run_id, "running")
        await asyncio.gather(*workers)
        stored = {r.key for r in self.store.samples(run_id)}
        missing = [p for p in self.prepared if p.planned.key not in stored]
        status = "stopped" if budget.exhausted and missing else "complete"
        if missing and not budget.exhausted:
            status = "interrupted"
        self.store.set_status(run_id, status)
        result.status = status
        if self.observer:
            self.observer.on_finish(status)
        return result

    async def _worker(self, queue: deque[Prepared], budget: Budget, result: RunResult) -> None:
        while queue:
            prep = queue[0]
            if not budget.try_start(prep.est_cost):
                return
            queue.popleft()
            record = await self._sample(prep)
            actual = record.cost
            if record.void and record.error_kind != "timeout":
                actual = 0.0  # refused or dropped before any tokens were generated
            budget.finish(prep.est_cost, actual)
            self.store.put_sample(record)
            result.stored_now += 1
            if self.observer:
                self.observer.on_sample(record)

    async def _sample(self, prep: Prepared) -> SampleRecord:
        planned = prep.planned
        profile = planned.profile
        provider = self.providers[profile.name]
        key = SampleKey(planned.fixture.id, planned.arm, planned.epoch, profile.name)
        timeout = self.config.timeout

        async def attempt() -> ProviderReply:
            call = (
                provider.complete(
                    prep.rendered.system,
                    prep.rendered.user,
                    params=profile.params,
                    timeout=timeout,
                    key=key,
                )
                if prep.act is None
                # An acted-out sample: a fresh workspace copy per attempt (see earnest.live.act).
                else provider.act(  # type: ignore[attr-defined]
                    prep.rendered.system,
                    prep.rendered.user,
                    template=prep.act,
                    timeout=timeout,
                    key=key,
                )
            )
            try:
                return await asyncio.wait_for(call, timeout + TIMEOUT_GRACE)
            except TimeoutError:
                raise ProviderError(f"no reply within {timeout:g}s", kind="timeout") from None

        def on_retry(n: int, err: ProviderError, wait: float) -> None:
            if self.observer:
                self.observer.on_retry(planned.key, n, err, wait)

        started = time.perf_counter()
        try:
            reply, attempts = await call_with_retries(attempt, self.policy, on_retry=on_retry)
        except ProviderError as exc:
            return self._void(prep, str(exc), exc.kind, exc.attempts, exc.raw, started)
        except Exception as exc:  # an SDK's unexpected error voids one sample, not the run
            return self._void(prep, f"{type(exc).__name__}: {exc}", "error", 1, "", started)
        order = reply.order or prep.rendered.order
        judged = judge_reply(self.suite, planned.fixture, reply.text, order, did=reply.did)
        return SampleRecord(
            **self._common(prep, order),
            raw_reply=reply.raw,
            reply=reply.text,
            verdict=judged.verdict,
            reason=judged.reason,
            chosen=judged.chosen,
            rationalizations=judged.rationalizations,
            unmatched_failure=judged.unmatched_failure,
            judgement=judged.judgement,
            attempts=attempts,
            latency=reply.latency,
            tokens_in=reply.tokens_in,
            tokens_out=reply.tokens_out,
            cost=self._cost(prep, reply),
            reply_model=reply.model,
        )

    def _common(self, prep: Prepared, order: Sequence[str]) -> dict[str, Any]:
        planned = prep.planned
        profile = planned.profile
        return {
            "run_id": self.run_info.run_id,
            "fixture_id": planned.fixture.id,
            "profile": profile.name,
            "arm": planned.arm,
            "epoch": planned.epoch,
            "rule_id": planned.fixture.rule,
            "agent": prep.agent_name,
            "provider": profile.spec,
            "model": profile.model,
            "params": dict(profile.params),
            "prompt_hash": prep.rendered.prompt_hash,
            "agent_doc_sha256": prep.agent_sha,
            "fixture_sha256": prep.fixture_sha,
            "displayed_order": tuple(order),
        }

    def _void(
        self, prep: Prepared, error: str, kind: str, attempts: int, raw: str, started: float
    ) -> SampleRecord:
        return SampleRecord(
            **self._common(prep, prep.rendered.order),
            raw_reply=raw or None,
            void=True,
            error=error,
            error_kind=kind,
            attempts=attempts,
            latency=time.perf_counter() - started,
            cost=None,
        )

    def _cost(self, prep: Prepared, reply: ProviderReply) -> float | None:
        if reply.cost is not None:
            return reply.cost
        price = profile_price(prep.planned.profile, self.config.prices)
        if price is None:
            return None
        tin = reply.tokens_in if reply.tokens_in is not None else prep.est_tokens_in
        tout = reply.tokens_out if reply.tokens_out is not None else estimate_tokens(reply.text)
        return price.cost(tin, tout)


__all__ = [
    "TIMEOUT_GRACE",
    "Budget",
    "Estimate",
    "Observer",
    "PlannedSample",
    "Prepared",
    "RunResult",
    "Runner",
    "check_resumable",
    "estimate",
    "new_run_id",
    "plan_samples",
    "prepare",
    "profile_price",
    "select_fixtures",
    "suite_checksums",
]
