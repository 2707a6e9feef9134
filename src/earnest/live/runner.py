"""Run the matrix: fixtures × profiles × arms × epochs, concurrently, into the run store.

Each sample is rendered (``earnest.pressure.prompt``), sent to its profile's provider with a
timeout and retries, unwrapped, judged (``earnest.pressure.verdict``) and stored the moment it
completes. Each request may take ``timeout`` seconds; a sample, all its tries and the waits
between them, at most ``timeout * (retries + 1)`` (:func:`sample_time_limit`). A failure that
outlives its retries (timeouts included) makes the sample *void*: stored with its error, never
a verdict, excluded from pass rates.

``--max-cost`` is a hard budget: requests carry the profile's output limit (``max_tokens``,
the estimate's when the profile sets none), each try reserves its worst case (every prompt
byte a token, the whole output limit) before it is sent, and a sample starts, or retries
after a try that may have been billed, only while the cost so far plus every reservation
stays within the budget.

When the first requests to a profile are all refused (nothing listens at its URL), the run
stops early with a hint and can be resumed once the server is up.

Example:
    >>> from earnest.live.store import RunInfo
    >>> Budget(1.0, spent=0.4).try_start(0.5), Budget(1.0, spent=0.4).try_start(0.7)
    (True, False)
    >>> sample_time_limit(3.0, 4)
    15.0
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import secrets
import time
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from earnest.errors import InputError
from earnest.live.act import acts, template_of
from earnest.live.config import LiveConfig
from earnest.live.cost import (
    BATCH_DISCOUNT,
    FREE,
    Price,
    default_output_tokens,
    estimate_tokens,
    is_local_url,
    worst_case_tokens,
)
from earnest.live.cost import price_for as family_price
from earnest.live.judging import Rendered, judge_reply, render, render_in, sample_seed
from earnest.live.profiles import Profile
from earnest.live.providers.base import (
    Provider,
    ProviderError,
    ProviderReply,
    SampleKey,
    seconds_text,
)
from earnest.live.retry import RetryPolicy, call_with_retries
from earnest.live.store import RunInfo, RunStore, SampleId, SampleRecord
from earnest.pressure.acted import void_action
from earnest.pressure.evidence import Behaviour
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.suite import find_agent
from earnest.safejson import scrub

TIMEOUT_GRACE = 1.0
"""The runner's own deadline is the timeout plus this, so a provider can report its own
timeout first (an exec child's process group is killed by the provider itself)."""

REFUSED_TO_STOP = 3
"""A profile whose first this many tries were all refused is not there: the run stops."""

_TOKEN_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")


def sample_time_limit(timeout: float, retries: int) -> float:
    """The most a sample may take, every try and every wait between tries included."""
    return timeout * (max(retries, 0) + 1)


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


def run_price(profile: Profile, config: LiveConfig) -> Price | None:
    """What a profile's tokens cost in this run: a provider batch (``--batch``) bills
    :data:`~earnest.live.cost.BATCH_DISCOUNT` of the list price."""
    price = profile_price(profile, config.prices)
    if price is not None and config.batch:
        return price.scaled(BATCH_DISCOUNT)
    return price


def output_budget(profile: Profile) -> int:
    """The profile's output limit, else the default the request will carry."""
    for k in _TOKEN_KEYS:
        v = profile.params.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return default_output_tokens(profile.model)


def request_params(profile: Profile) -> dict[str, Any]:
    """What a request carries: the profile's ``params``, plus ``max_tokens`` from the estimate
    for an API profile that sets no output limit (nothing else would cap a reply's cost)."""
    params = dict(profile.params)
    if profile.kind in ("openai", "anthropic") and not any(k in params for k in _TOKEN_KEYS):
        params["max_tokens"] = output_budget(profile)
    return params


def capped(profile: Profile) -> bool:
    """Whether a reply's size is capped by the request (API profiles); an agent CLI adds its
    own prompts and turns, so its cost has no worst case earnest can know."""
    return profile.kind in ("openai", "anthropic")


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
    params: Mapping[str, Any]
    """What the requests carry (:func:`request_params`)."""
    act: Path | None = None
    """The workspace template when this sample is acted out (``--act`` / ``mode = "act"``)."""
    reserve: float | None = None
    """The worst-case cost of one try (``est_cost`` when there is none to know)."""


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
    price = run_price(planned.profile, config)
    est_cost = None if price is None else price.cost(tin, tout)
    reserve = est_cost
    if price is not None and capped(planned.profile):
        reserve = price.cost(worst_case_tokens(rendered.system, rendered.user), tout)
    return Prepared(
        planned=planned,
        rendered=rendered,
        agent_name=meta["agent"],
        agent_sha=checksums["agents"][meta["agent"]],
        fixture_sha=meta["sha256"],
        est_tokens_in=tin,
        est_tokens_out=tout,
        est_cost=est_cost,
        params=request_params(planned.profile),
        reserve=reserve,
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
    """``--max-cost``: a try starts only while spent + every reservation + its own fit."""

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

    def extend(self, reserve: float | None) -> bool:
        """Reserve one more try for a sample in flight (a retry); False when it would not fit
        (and nothing else starts after that)."""
        if self.max_cost is None:
            return True
        need = reserve or 0.0
        if self.spent + self.in_flight + need > self.max_cost:
            self.exhausted = True
            return False
        self.in_flight += need
        return True

    def finish(self, reserved: float | None, actual: float | None) -> None:
        """Release a sample's reservations and count what it cost."""
        self.in_flight = max(0.0, self.in_flight - (reserved or 0.0))
        # An unknown actual cost counts as its reservation, so the budget never under-counts.
        self.spent += actual if actual is not None else (reserved or 0.0)


@dataclass
class _Tries:
    """One sample's tries as the budget sees them."""

    reserved: float = 0.0
    billed: int = 0
    """Failed tries that may still have been billed (a timeout, a dropped connection)."""


def maybe_billed(error: ProviderError) -> bool:
    """A try that failed after the server may have generated tokens: it is charged its
    reservation. Refusals, rate limits and server errors generate nothing."""
    return error.kind == "timeout" or (error.kind == "connection" and not error.refused)


@dataclass
class _Reach:
    """Whether anything answered a profile yet, and how many tries were refused."""

    answered: bool = False
    refused: int = 0


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
    hint: str | None = None
    """Why the run stopped early when it was not the budget (nothing listening)."""
    in_batches: int = 0
    """Samples held by provider batches not yet collected (``--batch``: the run waits)."""


def default_url(profile: Profile) -> str:
    """Where an API profile's requests go (for the hint when nothing answers)."""
    if profile.base_url:
        return profile.base_url
    if profile.kind == "anthropic":
        return "https://api.anthropic.com"
    return "https://api.openai.com/v1"


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
        self._reach: dict[str, _Reach] = {}
        self._hint: str | None = None
        self._judging: ThreadPoolExecutor | None = None
        self._settling: set[asyncio.Future[None]] = set()

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
        # Replies are judged on one thread beside the event loop: a burst of replies (a
        # concurrency's worth arrive together) then no longer holds back the next requests
        # while each is judged in turn; the judging overlaps the model's latency instead
        # (issue 27: a small run's wall time beside the SDK alone, benchmarks/bench_live.py).
        # The store is written on the loop, as before.
        self._judging = ThreadPoolExecutor(1, thread_name_prefix="earnest-judge")
        try:
            await asyncio.gather(*workers)
            while self._settling:  # replies still being judged and stored (see _worker)
                await asyncio.gather(*self._settling)
        finally:
            self._judging.shutdown(wait=True)
            self._judging = None
        stored = self.store.keys(run_id)
        missing = [p for p in self.prepared if p.planned.key not in stored]
        stopped = budget.exhausted or self._hint is not None
        status = "stopped" if stopped and missing else "complete"
        if missing and not stopped:
            status = "interrupted"
        self.store.set_status(run_id, status)
        result.status = status
        if self._hint is None:
            # Too few tries to stop early, but every one was refused: say so all the same.
            for name, reach in self._reach.items():
                if reach.refused and not reach.answered:
                    profile = self.config.profile(name)
                    if profile is not None:
                        self._hint = (
                            f"nothing listens at {default_url(profile)} — is the server running?"
                        )
                    break
        result.hint = self._hint
        if self.observer:
            self.observer.on_finish(status)
        return result

    async def _worker(self, queue: deque[Prepared], budget: Budget, result: RunResult) -> None:
        # Without --max-cost a worker's next call goes out while its last reply is judged and
        # stored (a concurrency's worth of replies arrive together: judged in turn, they held
        # the next requests back ~0.6 ms each; issue 27, benchmarks/bench_live.py). With
        # --max-cost the next try waits: the budget must know a reply's cost before it starts.
        overlap = budget.max_cost is None
        while queue:
            for failed in [t for t in self._settling if t.done()]:
                failed.result()  # a judging that raised ends the run here, not at its end
            prep = queue[0]
            if self._hint is not None or not budget.try_start(prep.reserve):
                return
            queue.popleft()
            tries = _Tries(reserved=prep.reserve or 0.0)
            judging = await self._sample(prep, budget, tries, later=overlap)
            if isinstance(judging, asyncio.Future):
                task = asyncio.ensure_future(
                    self._settle_later(judging, prep, budget, tries, result)
                )
                self._settling.add(task)
                task.add_done_callback(self._settled)
                continue
            self._settle(judging, prep, budget, tries, result)

    def _settled(self, task: asyncio.Future[None]) -> None:
        """A sample's judging and storing ended: forgotten, unless it failed (then the run
        raises it, as it would have without the overlap: the workers see it first)."""
        if task.cancelled() or task.exception() is None:
            self._settling.discard(task)

    async def _settle_later(
        self,
        judging: asyncio.Future[SampleRecord],
        prep: Prepared,
        budget: Budget,
        tries: _Tries,
        result: RunResult,
    ) -> None:
        self._settle(await judging, prep, budget, tries, result)

    def _settle(
        self,
        record: SampleRecord | None,
        prep: Prepared,
        budget: Budget,
        tries: _Tries,
        result: RunResult,
    ) -> None:
        """A finished sample: its cost counted, its record stored and shown."""
        # Failed tries that may have been billed cost their worst case; a reply its
        # reported cost (unknown: its reservation).
        actual = tries.billed * (prep.reserve or 0.0)
        # A truncated reply is void but was generated (and billed) in full.
        if record is not None and (not record.void or record.error_kind == "truncated"):
            actual += record.cost if record.cost is not None else (prep.reserve or 0.0)
        budget.finish(tries.reserved, actual)
        if record is None:
            return  # not taken: the run stops (nothing listens), resume takes it
        self.store.put_sample(record)
        result.stored_now += 1
        if self.observer:
            self.observer.on_sample(record)

    def _seen(self, profile: Profile, error: ProviderError | None) -> None:
        """Note how a try to ``profile`` ended; stop the run when nothing listens there."""
        reach = self._reach.setdefault(profile.name, _Reach())
        if error is None or not error.refused:
            reach.answered = True
            return
        reach.refused += 1
        if not reach.answered and reach.refused >= REFUSED_TO_STOP and self._hint is None:
            self._hint = (
                f"nothing listens at {default_url(profile)} — is the server running? "
                f"(profile {profile.name}: the first {reach.refused} connections were refused)"
            )

    async def _sample(
        self,
        prep: Prepared,
        budget: Budget | None = None,
        tries: _Tries | None = None,
        *,
        later: bool = False,
    ) -> SampleRecord | asyncio.Future[SampleRecord] | None:
        """The sample's record, or (``later``) the judging of its reply, still running."""
        planned = prep.planned
        profile = planned.profile
        provider = self.providers[profile.name]
        key = SampleKey(planned.fixture.id, planned.arm, planned.epoch, profile.name)
        budget = budget if budget is not None else Budget(None)
        tries = tries if tries is not None else _Tries()
        timeout = self.config.timeout
        loop = asyncio.get_running_loop()
        deadline = loop.time() + sample_time_limit(timeout, self.config.retries)

        async def attempt() -> ProviderReply:
            # Each try gets the timeout, or what is left of the sample's time if less.
            limit = min(timeout, deadline - loop.time())
            if limit <= 0:
                raise ProviderError("the sample's time limit was reached", kind="timeout")
            call = (
                provider.complete(
                    prep.rendered.system,
                    prep.rendered.user,
                    params=prep.params,
                    timeout=limit,
                    key=key,
                )
                if prep.act is None
                # An acted-out sample: a fresh workspace copy per attempt (see earnest.live.act).
                else provider.act(  # type: ignore[attr-defined]
                    prep.rendered.system,
                    prep.rendered.user,
                    template=prep.act,
                    timeout=limit,
                    key=key,
                )
            )
            try:
                # asyncio.timeout, not wait_for: no task of its own for each call to schedule
                async with asyncio.timeout(limit + TIMEOUT_GRACE):
                    reply: ProviderReply = await call
            except TimeoutError:
                err = ProviderError(
                    f"no reply within {seconds_text(limit)}s", kind="timeout", retryable=True
                )
                tries.billed += 1
                self._seen(profile, err)
                raise err from None
            except ProviderError as exc:
                tries.billed += maybe_billed(exc)
                self._seen(profile, exc)
                raise
            self._seen(profile, None)
            return reply

        def may_retry(err: ProviderError) -> bool:
            if self._hint is not None:
                return False  # the run is stopping
            if maybe_billed(err):
                if not budget.extend(prep.reserve):
                    err.message += " (no retry: --max-cost has no room for another try)"
                    return False
                tries.reserved += prep.reserve or 0.0
            return True

        def on_retry(n: int, err: ProviderError, wait: float) -> None:
            if self.observer:
                self.observer.on_retry(planned.key, n, err, wait)

        started = time.perf_counter()
        try:
            reply, attempts = await call_with_retries(
                attempt,
                self.policy,
                on_retry=on_retry,
                deadline=deadline,
                clock=loop.time,
                may_retry=may_retry,
            )
        except ProviderError as exc:
            if exc.refused and self._hint is not None:
                return None
            return self.void_record(
                prep, str(exc), exc.kind, exc.attempts, exc.raw, started, did=exc.did
            )
        except Exception as exc:  # an SDK's unexpected error voids one sample, not the run
            return self.void_record(prep, f"{type(exc).__name__}: {exc}", "error", 1, "", started)
        if later:
            # Judged on the loop once the worker's next call is out (see _worker).
            return asyncio.ensure_future(self._judge_soon(prep, reply, attempts, started))
        if self._judging is None:
            return self.record_reply(prep, reply, attempts, started)
        return await loop.run_in_executor(
            self._judging, self.record_reply, prep, reply, attempts, started
        )

    async def _judge_soon(
        self, prep: Prepared, reply: ProviderReply, attempts: int, started: float
    ) -> SampleRecord:
        await asyncio.sleep(0)  # the worker's next request first
        return self.record_reply(prep, reply, attempts, started)

    def record_reply(
        self, prep: Prepared, reply: ProviderReply, attempts: int, started: float
    ) -> SampleRecord:
        """The stored sample of one reply, judged by the one verdict function: the path every
        reply takes, online or collected from a provider batch (``earnest.live.batching``)."""
        planned = prep.planned
        # A reply's JSON may decode to lone surrogates ("\ud800"): SQLite and every UTF-8
        # writer refuse them, so they become U+FFFD here, before anything stores or prints.
        reply = replace(
            reply,
            text=scrub(reply.text),
            raw=scrub(reply.raw),
            model=scrub(reply.model) if reply.model is not None else None,
        )
        order = reply.order or prep.rendered.order
        judged = judge_reply(
            self.suite, planned.fixture, reply.text, order, did=reply.did, stop=reply.stop
        )
        if judged.truncated:
            # The harness's token limit cut the reply before it decided: not the agent's answer.
            void = self.void_record(
                prep,
                "the reply was cut off at its token limit before any decision",
                "truncated",
                attempts,
                reply.raw,
                started,
            )
            return dataclasses.replace(
                void,
                reply=reply.text,
                tokens_in=reply.tokens_in,
                tokens_out=reply.tokens_out,
                cost=self._cost(prep, reply),
            )
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
            "params": dict(prep.params),
            "prompt_hash": self._answered_hash(prep, order),
            "agent_doc_sha256": prep.agent_sha,
            "fixture_sha256": prep.fixture_sha,
            "displayed_order": tuple(order),
        }

    def _answered_hash(self, prep: Prepared, order: Sequence[str]) -> str:
        """The hash of the prompt the reply answered: the one rendered, or (a replayed reply
        that records its own option order) the same prompt in that order, so export and
        report re-render the prompt the reply was given, not another order's."""
        if tuple(order) == prep.rendered.order:
            return prep.rendered.prompt_hash
        try:
            answered = render_in(
                self.suite,
                prep.planned.fixture,
                arm=prep.planned.arm,
                order=order,
                act=prep.act is not None,
            )
        except InputError:  # an order that is no permutation of the choices: none answered
            return prep.rendered.prompt_hash
        return answered.prompt_hash

    def void_record(
        self,
        prep: Prepared,
        error: str,
        kind: str,
        attempts: int,
        raw: str,
        started: float,
        *,
        did: Behaviour | None = None,
    ) -> SampleRecord:
        """A void sample: stored with its error, never judged. An acting agent that crashed
        or timed out keeps what it did so far (``judgement.action.did``, ``passed`` null)."""
        return SampleRecord(
            **self._common(prep, prep.rendered.order),
            raw_reply=scrub(raw) or None,
            void=True,
            error=scrub(error),
            error_kind=kind,
            attempts=attempts,
            latency=time.perf_counter() - started,
            cost=None,
            judgement=void_action(did) if did is not None else None,
        )

    def _cost(self, prep: Prepared, reply: ProviderReply) -> float | None:
        if reply.cost is not None:
            return reply.cost
        price = run_price(prep.planned.profile, self.config)
        if price is None:
            return None
        tin = reply.tokens_in if reply.tokens_in is not None else prep.est_tokens_in
        tout = reply.tokens_out if reply.tokens_out is not None else estimate_tokens(reply.text)
        return price.cost(tin, tout)


__all__ = [
    "REFUSED_TO_STOP",
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
    "request_params",
    "run_price",
    "sample_time_limit",
    "select_fixtures",
    "suite_checksums",
]
