"""Retry policy: backoff growth, jitter bounds, retry-after, which errors are retried."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from earnest.live.providers.base import ProviderError
from earnest.live.retry import MAX_RETRY_AFTER, RetryPolicy, call_with_retries, parse_retry_after


def test_backoff_doubles_caps_and_jitters_within_upper_half() -> None:
    p = RetryPolicy(retries=5, base=0.5, cap=3.0)
    assert [p.delay(a, None, rand=1.0) for a in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert [p.delay(a, None, rand=0.0) for a in range(3)] == [0.25, 0.5, 1.0]
    for a in range(5):
        d = p.delay(a, None)
        assert min(3.0, 0.5 * 2**a) / 2 <= d <= min(3.0, 0.5 * 2**a)


def test_retry_after_is_honoured_and_bounded() -> None:
    p = RetryPolicy(base=0.5)
    assert p.delay(0, 2.0, rand=0.0) == 2.0
    assert 2.0 <= p.delay(3, 2.0) <= 2.05
    assert p.delay(0, 10_000.0, rand=0.0) == MAX_RETRY_AFTER


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "-4"}) == 0.0
    assert parse_retry_after({"x": "1"}) is None
    assert parse_retry_after(None) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    now = datetime(2030, 1, 1, tzinfo=UTC)
    when = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after({"retry-after": when}, now=now.timestamp()) == pytest.approx(30.0)


def _scripted(errors: list[ProviderError | None]):  # type: ignore[no-untyped-def]
    calls = []

    async def call() -> str:
        calls.append(1)
        err = errors[len(calls) - 1]
        if err is not None:
            raise err
        return "ok"

    return call, calls


def test_retries_retryable_errors_then_succeeds_with_the_servers_wait() -> None:
    waits: list[float] = []

    async def fake_sleep(s: float) -> None:
        waits.append(s)

    call, calls = _scripted(
        [
            ProviderError("429", kind="rate_limit", retryable=True, retry_after=1.5),
            ProviderError("502", kind="server_error", retryable=True),
            ProviderError("reset", kind="connection", retryable=True),
            None,
        ]
    )
    seen: list[int] = []
    result, attempts = asyncio.run(
        call_with_retries(
            call,
            RetryPolicy(retries=4, base=0.1, cap=1.0),
            sleep=fake_sleep,
            on_retry=lambda n, e, w: seen.append(n),
        )
    )
    assert (result, attempts, len(calls), seen) == ("ok", 4, 4, [1, 2, 3])
    assert 1.5 <= waits[0] <= 1.51
    assert 0.05 <= waits[1] <= 0.2 and 0.1 <= waits[2] <= 0.4


def test_non_retryable_and_exhausted_errors_are_raised_with_attempts() -> None:
    async def no_sleep(s: float) -> None:
        pass

    call, calls = _scripted([ProviderError("too slow", kind="timeout")])
    with pytest.raises(ProviderError) as info:
        asyncio.run(call_with_retries(call, RetryPolicy(retries=3), sleep=no_sleep))
    assert info.value.attempts == 1 and len(calls) == 1

    errs: list[ProviderError | None] = [
        ProviderError("500", kind="server_error", retryable=True) for _ in range(3)
    ]
    call, calls = _scripted(errs)
    with pytest.raises(ProviderError) as info:
        asyncio.run(call_with_retries(call, RetryPolicy(retries=2), sleep=no_sleep))
    assert info.value.attempts == 3 and len(calls) == 3


def test_no_wait_passes_the_samples_deadline() -> None:
    """A server asking for 99999999 s, or a backoff longer than what is left, ends the retries
    at once with the last error instead of sleeping (the sleep is never even started)."""
    now = [100.0]
    waits: list[float] = []

    async def fake_sleep(s: float) -> None:
        waits.append(s)
        now[0] += s

    huge = ProviderError("429", kind="rate_limit", retryable=True, retry_after=99999999.0)
    call, calls = _scripted([huge, None])
    with pytest.raises(ProviderError) as info:
        asyncio.run(
            call_with_retries(
                call, RetryPolicy(retries=4), sleep=fake_sleep, deadline=103.0, clock=lambda: now[0]
            )
        )
    assert waits == [] and len(calls) == 1 and info.value.attempts == 1
    assert "time limit" in info.value.message and info.value.kind == "rate_limit"

    # backoff: 1, 2, 4 ... with 5 s left the first two waits fit, the third would not
    now[0] = 0.0
    errs: list[ProviderError | None] = [
        ProviderError("503", kind="server_error", retryable=True) for _ in range(5)
    ]
    call, calls = _scripted(errs)
    with pytest.raises(ProviderError) as info:
        asyncio.run(
            call_with_retries(
                call,
                RetryPolicy(retries=4, base=1.0, cap=60.0),
                sleep=fake_sleep,
                deadline=5.0,
                clock=lambda: now[0],
            )
        )
    assert sum(waits) < 5.0 and now[0] < 5.0
    assert info.value.attempts == len(calls) < 5


def test_timeouts_are_retried_and_a_veto_stops_retries() -> None:
    async def no_sleep(s: float) -> None:
        pass

    call, calls = _scripted([ProviderError("slow", kind="timeout", retryable=True), None])
    assert asyncio.run(call_with_retries(call, RetryPolicy(retries=2), sleep=no_sleep)) == (
        "ok",
        2,
    )
    call, calls = _scripted([ProviderError("slow", kind="timeout", retryable=True), None])
    with pytest.raises(ProviderError) as info:
        asyncio.run(
            call_with_retries(
                call, RetryPolicy(retries=2), sleep=no_sleep, may_retry=lambda e: False
            )
        )
    assert info.value.attempts == 1 and len(calls) == 1
