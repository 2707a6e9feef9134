"""Retries with exponential backoff and jitter, honouring the server's ``retry-after``, within
the sample's time.

Only :class:`ProviderError` with ``retryable=True`` is retried: rate limits (429), server
errors (5xx), dropped connections and timeouts (a reply that hangs once usually comes the
next time). A sample has a deadline: no wait is longer than what is left of it, and when the
wait the server asks for (or the backoff) would pass it, the sample stops retrying at once
with the last error instead of sleeping into a reply it could no longer wait for.

Example:
    >>> policy = RetryPolicy(retries=3, base=0.5, cap=8.0)
    >>> policy.delay(0, retry_after=2.0, rand=0.0)
    2.0
    >>> policy.delay(3, retry_after=None, rand=1.0)
    4.0
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from earnest.live.providers.base import ProviderError

T = TypeVar("T")

MAX_RETRY_AFTER = 300.0
"""A server asking for a longer wait than this is treated as asking for this long."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``retries`` further attempts after the first; delays grow as ``base * 2**attempt``,
    capped at ``cap``, with jitter drawn from the upper half (so concurrent samples spread)."""

    retries: int = 4
    base: float = 1.0
    cap: float = 60.0

    def delay(self, attempt: int, retry_after: float | None, rand: float | None = None) -> float:
        r = random.random() if rand is None else rand
        if retry_after is not None:
            # The server said when; add a little jitter so a burst does not return in lockstep.
            return min(max(retry_after, 0.0), MAX_RETRY_AFTER) + r * min(self.base, 1.0) * 0.1
        ceiling = min(self.cap, self.base * float(2**attempt))
        return ceiling * (0.5 + 0.5 * r)


def parse_retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            return max(float(ms) / 1000.0, 0.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    on_retry: Callable[[int, ProviderError, float], None] | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    may_retry: Callable[[ProviderError], bool] | None = None,
) -> tuple[T, int]:
    """Await ``call()`` until it succeeds or fails for good; return (result, attempts made).

    ``deadline`` (on ``clock``) bounds every wait: a retry whose wait would reach it is not
    made. ``may_retry`` may veto a retry (the budget has no room, the run is stopping).
    The last :class:`ProviderError` is re-raised with ``attempts`` recorded on it."""
    attempt = 0
    while True:
        try:
            return await call(), attempt + 1
        except ProviderError as exc:
            if not exc.retryable or attempt >= policy.retries:
                exc.attempts = attempt + 1
                raise
            wait = policy.delay(attempt, exc.retry_after)
            if deadline is not None:
                left = deadline - clock()
                if wait >= left:
                    exc.attempts = attempt + 1
                    exc.message += (
                        f" (no retry: waiting {wait:.3g}s would pass the sample's time limit, "
                        f"{max(left, 0.0):.3g}s left)"
                    )
                    raise
            if may_retry is not None and not may_retry(exc):
                exc.attempts = attempt + 1
                raise
            if on_retry is not None:
                on_retry(attempt + 1, exc, wait)
            await sleep(wait)
            attempt += 1


__all__ = ["MAX_RETRY_AFTER", "RetryPolicy", "call_with_retries", "parse_retry_after"]
