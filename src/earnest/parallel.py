"""``--jobs N``: an ordered, bounded map over worker processes.

:func:`ordered_map` runs ``fn`` on each item in ``jobs`` processes and yields the results
**in input order**, each as soon as it and every one before it are done; at most
``window`` items are in flight, so memory holds a few batches, not every result. With
``jobs == 1`` it runs in this process, through the same ``fn``: one code path, so
``--jobs N`` output is byte-identical to ``--jobs 1``.

The standard library's :class:`concurrent.futures.ProcessPoolExecutor` does the work
(process start, pickling, error propagation); this module only keeps order and bounds.

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
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


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
    pending: deque[Future[R]] = deque()
    try:
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= limit:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["default_jobs", "ordered_map"]
