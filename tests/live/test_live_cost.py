"""Price table, token estimate, local endpoints."""

from __future__ import annotations

import pytest

from earnest.live.cost import (
    Price,
    estimate_tokens,
    format_usd,
    is_local_url,
    price_for,
)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-mini", Price(0.15, 0.60)),
        ("gpt-4o-2024-08-06", Price(2.50, 10.00)),
        ("claude-3-5-haiku-latest", Price(0.80, 4.00)),
        ("claude-sonnet-4-5", Price(3.00, 15.00)),
        ("sonnet", Price(3.00, 15.00)),
        ("gemini-2.5-flash-lite", Price(0.10, 0.40)),
        ("o4-mini", Price(1.10, 4.40)),
    ],
)
def test_family_prices_prefer_the_longest_key(model: str, expected: Price) -> None:
    assert price_for(model) == expected


def test_overrides_win_and_unknown_models_have_no_price() -> None:
    assert price_for("my-finetune") is None
    assert price_for("my-finetune", {"my-finetune": Price(1, 2)}) == Price(1, 2)
    assert price_for("gpt-4o-mini", {"gpt-4o": Price(9, 9)}) == Price(9, 9)


def test_estimates() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcde") == 2
    assert Price(2.0, 10.0).cost(1_000_000, 100_000) == pytest.approx(3.0)
    assert format_usd(None) == "unknown" and format_usd(0) == "$0"
    assert format_usd(0.01234) == "$0.0123" and format_usd(12.5) == "$12.50"


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:11434/v1", True),
        ("http://localhost:8000/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://[::1]:8080/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://8.8.8.8/v1", False),
        (None, False),
    ],
)
def test_local_urls(url: str | None, local: bool) -> None:
    assert is_local_url(url) is local
