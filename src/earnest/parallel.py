"""``--jobs N``: an ordered, bounded map over worker processes.

:func:`ordered_map` runs ``fn`` on each item in ``jobs`` processes and yields the results
**in input order**, each as soon as it and every one before it are done; at most
``window`` items are in flight, so memory holds a few batches, not every result. With
``jobs == 1`` it runs in this process, through the same ``fn``: one code path, so
``--jobs N`` output is byte-identical to ``--jobs 1``.

The standard library's :class:`concurrent.futures.ProcessPoolExecutor` does the work
(process start, pickling, error propagation); this module only keeps order and bounds
(:func:`ordered_results`, which a Dask cluster's futures go through too:
:mod:`earnest.trajectory.distributed`).

Example:
    >>> list(ordered_map(abs, [-3, 2, -1], jobs=1))
    [3, 2, 1]
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


def default_jobs() -> int:
    """The cores this process may run on (``--jobs`` default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


PARALLEL_MIN_CORES = 4
"""``earnest score`` goes parallel by default only with at least this many cores: the reading,
checking, hand-over and writing stay in the main process (about half of a reply's cost,
``benchmarks/bench_score_jobs.py``), so with two cores the workers only add the hand-over's
CPU; a main process and at least three workers is where dividing the judging can pay."""

PARALLEL_MIN_BYTES = 32 * 1024 * 1024
"""... and only for at least this much input (some 15,000 replies of ~2 KB): below it the pool's
start and the pickling take most of what the workers would save."""


def score_jobs(input_bytes: int, cores: int | None = None) -> int:
    """``earnest score``'s default ``--jobs``: ``1`` unless parallel pays here.

    Parallel pays only with many cores and much input (:data:`PARALLEL_MIN_CORES`,
    :data:`PARALLEL_MIN_BYTES`); then one worker per core but the main process's.

    Example:
        >>> score_jobs(10_000_000, cores=8), score_jobs(100_000_000, cores=2)
        (1, 1)
        >>> score_jobs(100_000_000, cores=8)
        7
    """
    have = default_jobs() if cores is None else cores
    if have < PARALLEL_MIN_CORES or input_bytes < PARALLEL_MIN_BYTES:
        return 1
    return have - 1


OVERCOMMIT_ENV = "EARNEST_OVERCOMMIT"
"""``EARNEST_OVERCOMMIT=1``: start as many worker processes as asked (``--jobs N``,
``--dask local:N``) even beyond the cores this process may use."""


def capped_workers(
    asked: int, what: str, *, cores: int | None = None, env: Mapping[str, str] | None = None
) -> tuple[int, str | None]:
    """``asked`` worker processes, capped at the cores this process may use unless the user
    insists (:data:`OVERCOMMIT_ENV`), and the note saying so (``None`` when not capped).

    More processes than cores only share the same cores, each with its own memory (and a
    thousand of them can exhaust the machine): the cap is what the machine has.

    Example:
        >>> capped_workers(1000, "--jobs", cores=2, env={})[0]
        2
        >>> capped_workers(1000, "--jobs", cores=2, env={"EARNEST_OVERCOMMIT": "1"})
        (1000, None)
    """
    available = default_jobs() if cores is None else cores
    environ = os.environ if env is None else env
    if asked <= available or environ.get(OVERCOMMIT_ENV, "") in ("1", "true", "yes"):
        return asked, None
    return available, (
        f"{what} {asked} capped at {available}, the cores this process may use "
        f"(set {OVERCOMMIT_ENV}=1 to start {asked} processes anyway)"
    )


def ordered_map(
    fn: Callable[[T], R],
    items: Iterable[T],
    jobs: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    window: int | None = None,
) -> Iterator[R]:
    """``fn(item)`` for every item, in input order, computed by ``jobs`` processes.

    ``initializer(*initargs)`` runs once per worker (once here when ``jobs == 1``);
    ``window`` (default ``4 * jobs``) bounds the items submitted and not yet yielded. A
    worker's exception is raised here, at that item's place.
    """
    if jobs <= 1:
        if initializer is not None:
            initializer(*initargs)
        yield from map(fn, items)
        return
    import multiprocessing

    limit = window or 4 * jobs
    # fork where there is one: workers start in milliseconds with earnest already imported.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = _pool_class()(jobs, mp_context=context, initializer=initializer, initargs=initargs)

    def submit(item: T) -> Future[R]:
        return pool.submit(fn, item)

    try:
        yield from ordered_results(submit, items, limit)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _pool_class() -> type[ProcessPoolExecutor]:
    """:class:`concurrent.futures.ProcessPoolExecutor`, imported when a pool is started: with
    ``multiprocessing`` it is a fifth of a small command's start-up (issue 27)."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor


class Pending(Protocol[R_co]):
    """A submitted computation: a :class:`concurrent.futures.Future` or a Dask future."""

    def result(self) -> R_co: ...

    def cancel(self) -> object: ...


def ordered_results(
    submit: Callable[[T], Pending[R]], items: Iterable[T], window: int
) -> Iterator[R]:
    """``submit(item).result()`` for every item, in input order, with at most ``window``
    submitted and not yet yielded; each is yielded as soon as it and those before it are
    done. The executor is the caller's (worker processes, a Dask cluster); the futures
    still pending when the caller stops are cancelled.

    Example:
        >>> from concurrent.futures import ThreadPoolExecutor
        >>> with ThreadPoolExecutor(2) as pool:
        ...     list(ordered_results(lambda n: pool.submit(abs, n), [-3, 2, -1], window=2))
        [3, 2, 1]
    """
    pending: deque[Pending[R]] = deque()
    try:
        for item in items:
            pending.append(submit(item))
            if len(pending) >= max(1, window):
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


__all__ = [
    "OVERCOMMIT_ENV",
    "PARALLEL_MIN_BYTES",
    "PARALLEL_MIN_CORES",
    "Pending",
    "capped_workers",
    "default_jobs",
    "ordered_map",
    "ordered_results",
    "score_jobs",
]
