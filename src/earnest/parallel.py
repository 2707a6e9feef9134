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

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


def default_jobs() -> int:
    """The cores this process may run on (``--jobs`` default)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


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
    limit = window or 4 * jobs
    # fork where there is one: workers start in milliseconds with earnest already imported.
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=initializer, initargs=initargs)

    def submit(item: T) -> Future[R]:
        return pool.submit(fn, item)

    try:
        yield from ordered_results(submit, items, limit)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


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


__all__ = ["Pending", "default_jobs", "ordered_map", "ordered_results"]
