"""``earnest run --batch``: take a run's samples through the providers' batch APIs.

Every sample still to take (fixtures × arms × epochs, the ablated arm included) goes into one
batch per profile (several when a profile's samples pass the API's size limits), each request
named by :func:`custom_id` — derived from the sample's key (fixture, profile, arm, epoch), so
the same sample always has the same id. The moment a batch is created, its id and the sample
each ``custom_id`` stands for are stored in the run store (:meth:`RunStore.add_batch`). Then
the batches are polled every ``batch_poll`` seconds until they end, or until ``wait`` seconds
passed (``--batch-wait``; ``--no-wait``: each batch is checked once). A run left with open
batches has the status ``waiting``; ``earnest run --resume`` polls those batches — it never
submits a sample again that an open batch holds.

When a batch ends, each request's outcome becomes a sample through the runner's own
:meth:`Runner.record_reply` (the same unwrapping, the one verdict function, the same
truncation rule as an online reply) or :meth:`Runner.void_record` (an errored request,
expired, canceled: void with its reason and kind). A resumed run takes void samples again, as
it does online, in a new batch.

Costs: batch tokens bill at :data:`~earnest.live.cost.BATCH_DISCOUNT` of the list price, in
the estimate and in each sample's cost. ``--max-cost`` reserves each sample's worst case as
online; the samples that do not fit are not submitted (the run is ``stopped``).

Example:
    >>> custom_id(("PRS-R08", "mini", "ablated", 2))
    'PRS-R08_ablated_e2_4720fe0c461c'
    >>> [len(c) for c in chunks([1, 2, 3, 4, 5], max_requests=2, max_bytes=100, size=lambda x: 1)]
    [2, 2, 1]
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from earnest.live.providers.base import ProviderError, ProviderReply
from earnest.live.providers.batch import BatchClient, BatchRequest, BatchStatus, Submitted
from earnest.live.retry import call_with_retries
from earnest.live.runner import Budget, Prepared, Runner, RunResult, default_url
from earnest.live.store import SampleId, SampleRecord, StoredBatch

T = TypeVar("T")

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def custom_id(key: SampleId) -> str:
    """A sample's request id in a batch: readable, stable, and within what both APIs accept
    (Anthropic: ``^[a-zA-Z0-9_-]{1,64}$``). The hash covers the whole key, so two fixtures whose
    ids differ only in characters replaced here still get distinct ids."""
    fixture, profile, arm, epoch = key
    digest = hashlib.sha256(json.dumps([fixture, profile, arm, epoch]).encode()).hexdigest()[:12]
    tail = f"_{_UNSAFE.sub('-', arm)[:8]}_e{epoch}_{digest}"
    return _UNSAFE.sub("-", fixture)[: 64 - len(tail)] + tail


def chunks(
    items: Sequence[T], *, max_requests: int, max_bytes: int, size: Callable[[T], int]
) -> list[list[T]]:
    """``items`` split in order into batches of at most ``max_requests`` and ``max_bytes``."""
    out: list[list[T]] = []
    current: list[T] = []
    used = 0
    for item in items:
        n = size(item)
        if current and (len(current) >= max_requests or used + n > max_bytes):
            out.append(current)
            current, used = [], 0
        current.append(item)
        used += n
    if current:
        out.append(current)
    return out


class BatchRunner:
    """Submit, poll and collect a run's samples; stores through the wrapped :class:`Runner`."""

    def __init__(
        self,
        runner: Runner,
        clients: Mapping[str, BatchClient],
        *,
        wait: float | None,
        poll: float,
    ) -> None:
        self.runner = runner
        self.clients = clients
        self.wait = wait
        self.poll = poll

    def _note(self, text: str) -> None:
        note = getattr(self.runner.observer, "on_note", None)
        if note is not None:
            note(text)

    def _store(self, record: SampleRecord) -> None:
        self.runner.store.put_sample(record)
        if self.runner.observer:
            self.runner.observer.on_sample(record)

    async def run(self) -> RunResult:
        r = self.runner
        run_id = r.run_info.run_id
        store = r.store
        existing = store.samples(run_id)
        judged = {x.key for x in existing if not x.void}
        open_batches = []
        for b in store.batches(run_id, open_only=True):
            if set(b.requests.values()) <= judged:
                # Killed after its last sample was stored but before it was marked: done.
                store.set_batch_status(run_id, b.batch_id, b.status, collected=True)
            else:
                open_batches.append(b)
        covered = {key for b in open_batches for key in b.requests.values()}
        todo = [p for p in r.prepared if p.planned.key not in judged | covered]
        budget = Budget(r.config.max_cost, spent=sum(x.cost or 0.0 for x in existing))
        take: list[Prepared] = []
        for p in todo:
            if not budget.try_start(p.reserve):
                break
            take.append(p)
        if r.observer:
            r.observer.on_start(r.run_info.total, [x for x in existing if not x.void])
        if open_batches:
            self._note(
                f"{len(open_batches)} batch(es) of this run still open, holding "
                f"{len(covered)} sample(s): polling them, not submitting them again"
            )
        store.set_status(run_id, "running")
        result = RunResult(run_id=run_id, status="running", total=r.run_info.total)
        fresh = await self._submit(take, result)
        # --no-wait: a batch just created has not ended; check only those submitted before.
        await self._wait(open_batches + ([] if self.wait == 0 else fresh), result)
        stored = {x.key for x in store.samples(run_id)}
        missing = [p for p in r.prepared if p.planned.key not in stored]
        still_open = store.batches(run_id, open_only=True)
        result.in_batches = len({k for b in still_open for k in b.requests.values()})
        if still_open:
            # Before "complete": a void sample stored earlier may wait for its retry here.
            status = "waiting"
        elif not missing:
            status = "complete"
        elif budget.exhausted or result.hint is not None:
            status = "stopped"
        else:
            status = "interrupted"
        store.set_status(run_id, status)
        result.status = status
        if r.observer:
            r.observer.on_finish(status)
        return result

    async def _submit(self, take: Sequence[Prepared], result: RunResult) -> list[StoredBatch]:
        """One batch per profile and chunk; each stored as soon as it exists."""
        r = self.runner
        by_profile: dict[str, list[Prepared]] = {}
        for p in take:
            by_profile.setdefault(p.planned.profile.name, []).append(p)
        created: list[StoredBatch] = []
        for name, preps in by_profile.items():
            client = self.clients[name]
            requests = {
                p.planned.key: BatchRequest(
                    custom_id(p.planned.key),
                    client.body(p.rendered.system, p.rendered.user, p.params),
                )
                for p in preps
            }
            sizes = {k: len(json.dumps(q.body)) + 128 for k, q in requests.items()}
            for chunk in chunks(
                preps,
                max_requests=client.max_requests,
                max_bytes=client.max_bytes,
                size=lambda p, sizes=sizes: sizes[p.planned.key],  # type: ignore[misc]
            ):
                started = time.perf_counter()
                batch_requests = [requests[p.planned.key] for p in chunk]

                async def submit(
                    c: BatchClient = client, reqs: list[BatchRequest] = batch_requests
                ) -> Submitted:
                    return await c.submit(reqs)

                try:
                    submitted, _ = await call_with_retries(submit, r.policy)
                except ProviderError as exc:
                    if exc.refused:
                        # Nothing listens there: as online, the samples are not taken (no
                        # void), the run stops with a hint, and resume submits them.
                        result.hint = (
                            f"nothing listens at {default_url(chunk[0].planned.profile)} — "
                            f"is the server running? (profile {name}: the batch could not be "
                            "submitted)"
                        )
                        break
                    # Nothing was created: each sample is void with why, and resume retries it.
                    for p in chunk:
                        self._store(
                            r.void_record(p, str(exc), exc.kind, exc.attempts, exc.raw, started)
                        )
                        result.stored_now += 1
                    continue
                batch = StoredBatch(
                    run_id=r.run_info.run_id,
                    batch_id=submitted.batch_id,
                    profile=name,
                    provider=chunk[0].planned.profile.kind,
                    requests={requests[p.planned.key].custom_id: p.planned.key for p in chunk},
                    input_file_id=submitted.input_file_id,
                )
                r.store.add_batch(batch)
                created.append(batch)
                self._note(
                    f"batch {submitted.batch_id}: {len(chunk)} request(s) submitted "
                    f"({name}, {client.name})"
                )
        return created

    async def _wait(self, batches: list[StoredBatch], result: RunResult) -> None:
        """Poll until every batch is collected or the wait is over (``wait == 0``: each batch
        is checked once)."""
        loop = asyncio.get_running_loop()
        deadline = None if self.wait is None else loop.time() + self.wait
        pending = list(batches)
        while pending:
            for b in list(pending):
                try:
                    status = await self.clients[b.profile].poll(b.batch_id)
                except ProviderError as exc:
                    self._note(f"batch {b.batch_id}: poll failed: {exc}")
                    if not exc.retryable:
                        return  # auth, a gone batch: polling again would not help; resume can
                    continue
                self.runner.store.set_batch_status(
                    self.runner.run_info.run_id, b.batch_id, status.status
                )
                self._note(
                    f"batch {b.batch_id}: {status.status}, {status.done}/{status.total} done"
                )
                if status.ended:
                    try:
                        await self._collect(b, status, result)
                    except ProviderError as exc:
                        self._note(f"batch {b.batch_id}: results not read: {exc}")
                        if not exc.retryable:
                            return
                        continue
                    pending.remove(b)
            if not pending:
                return
            if deadline is None:
                await asyncio.sleep(self.poll)
                continue
            left = deadline - loop.time()
            if left <= 0:
                return
            await asyncio.sleep(min(self.poll, left))

    async def _collect(self, b: StoredBatch, status: BatchStatus, result: RunResult) -> None:
        """Store every request's outcome as a sample, then mark the batch collected (a process
        killed in between collects it again: a judged sample is never overwritten)."""
        r = self.runner
        results = await self.clients[b.profile].results(status)
        by_key = {p.planned.key: p for p in r.prepared}
        started = time.perf_counter()
        for cid, key in b.requests.items():
            prep = by_key.get(key)
            if prep is None or custom_id(key) != cid:
                continue  # not a sample of this run as planned (check_resumable refuses that)
            outcome = results.outcome(cid)
            if isinstance(outcome, ProviderReply):
                record = r.record_reply(prep, outcome, 1, started)
            else:
                record = r.void_record(prep, str(outcome), outcome.kind, 1, outcome.raw, started)
            self._store(record)
            result.stored_now += 1
        r.store.set_batch_status(r.run_info.run_id, b.batch_id, status.status, collected=True)


__all__ = ["BatchRunner", "chunks", "custom_id"]
