"""Token and cost estimates: a small built-in price table, chars/4 token counts.

Prices are USD per million tokens, matched by model family (the longest table key that the
model name contains). They are estimates to stop a surprise bill, not an invoice: override
or extend them in ``[live.prices]`` or per profile (``price = {input = .., output = ..}``).
No tokenizer is downloaded; a token is estimated as four characters.

Example:
    >>> price_for("gpt-4o-mini-2024-07-18")
    Price(input=0.15, output=0.6)
    >>> estimate_tokens("x" * 400)
    100
    >>> round(Price(3.0, 15.0).cost(1_000, 200), 6)
    0.006
"""

from __future__ import annotations

import functools
import ipaddress
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million input and output tokens."""

    input: float
    output: float

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.input + tokens_out * self.output) / 1_000_000

    def scaled(self, factor: float) -> Price:
        """This price times ``factor`` (a batch discount).

        >>> Price(3.0, 15.0).scaled(0.5)
        Price(input=1.5, output=7.5)
        """
        return Price(self.input * factor, self.output * factor)


FREE = Price(0.0, 0.0)

BATCH_DISCOUNT = 0.5
"""What a provider batch costs relative to the list price: the OpenAI Batch API and Anthropic
Message Batches both bill half (``earnest run --batch``)."""

# Public list prices per million tokens (input, output) at the time of writing; families are
# matched by substring, longest key first, so "gpt-4o-mini" wins over "gpt-4o".
BUILTIN_PRICES: dict[str, Price] = {
    "gpt-5-nano": Price(0.05, 0.40),
    "gpt-5-mini": Price(0.25, 2.00),
    "gpt-5": Price(1.25, 10.00),
    "gpt-4.1-nano": Price(0.10, 0.40),
    "gpt-4.1-mini": Price(0.40, 1.60),
    "gpt-4.1": Price(2.00, 8.00),
    "gpt-4o-mini": Price(0.15, 0.60),
    "gpt-4o": Price(2.50, 10.00),
    "o4-mini": Price(1.10, 4.40),
    "o3-mini": Price(1.10, 4.40),
    "o3": Price(2.00, 8.00),
    "o1-mini": Price(1.10, 4.40),
    "o1": Price(15.00, 60.00),
    "claude-3-5-haiku": Price(0.80, 4.00),
    "claude-3-haiku": Price(0.25, 1.25),
    "haiku": Price(1.00, 5.00),
    "sonnet": Price(3.00, 15.00),
    "claude-3-opus": Price(15.00, 75.00),
    "claude-opus-4-0": Price(15.00, 75.00),
    "claude-opus-4-1": Price(15.00, 75.00),
    "opus": Price(5.00, 25.00),
    "gemini-2.5-flash-lite": Price(0.10, 0.40),
    "gemini-2.5-flash": Price(0.30, 2.50),
    "gemini-2.5-pro": Price(1.25, 10.00),
    "gemini-2.0-flash": Price(0.10, 0.40),
}

DEFAULT_OUTPUT_TOKENS = 512
"""Output tokens per sample when the profile sets no ``max_tokens``: sent as the request's
limit, so the estimate is also the most a reply can cost."""

REASONING_OUTPUT_TOKENS = 4096
"""The same for reasoning models, which spend part of the limit on hidden reasoning."""

PROMPT_OVERHEAD_TOKENS = 64
"""Tokens a chat template may add around the system and user messages."""

_REASONING = re.compile(r"^(?:[\w.-]+/)?(?:o\d|gpt-5)", re.IGNORECASE)


def is_reasoning_model(model: str) -> bool:
    """OpenAI's reasoning families (``o1``, ``o3``, ``o4-mini``, ``gpt-5*``).

    >>> is_reasoning_model("o3-mini"), is_reasoning_model("llama3.1:8b")
    (True, False)
    """
    return bool(_REASONING.match(model))


def default_output_tokens(model: str) -> int:
    return REASONING_OUTPUT_TOKENS if is_reasoning_model(model) else DEFAULT_OUTPUT_TOKENS


def worst_case_tokens(*texts: str) -> int:
    """The most tokens ``texts`` can be sent as: byte-level tokenizers (GPT, Claude, Llama)
    never make a token of less than one byte, plus :data:`PROMPT_OVERHEAD_TOKENS`.

    >>> worst_case_tokens("abcd", "é")
    70
    """
    return sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) + PROMPT_OVERHEAD_TOKENS


def price_for(model: str, overrides: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model``: an exact override, else the longest family key it contains."""
    name = model.casefold()
    tables: list[Mapping[str, Price]] = [overrides or {}, BUILTIN_PRICES]
    for table in tables:
        lowered = {k.casefold(): v for k, v in table.items()}
        if name in lowered:
            return lowered[name]
        hits = [k for k in lowered if k in name]
        if hits:
            return lowered[max(hits, key=len)]
    return None


def estimate_tokens(text: str) -> int:
    """Tokens in ``text``, estimated as one per four characters (rounded up)."""
    return math.ceil(len(text) / 4)


@functools.lru_cache(maxsize=256)
def is_local_url(url: str | None) -> bool:
    """True for loopback, private-network and ``localhost`` endpoints: a local model server,
    which costs nothing per token. Remembered per URL: every planned sample asks (issue 27)."""
    if not url:
        return False
    host = urlsplit(url).hostname or ""
    if host in {"localhost", "host.docker.internal"} or host.endswith(".local"):
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return addr.is_loopback or addr.is_private or addr.is_link_local


def format_usd(value: float | None) -> str:
    if value is None:
        return "unknown"
    if value == 0:
        return "$0"
    return f"${value:.4f}" if value < 1 else f"${value:.2f}"


__all__ = [
    "BATCH_DISCOUNT",
    "BUILTIN_PRICES",
    "DEFAULT_OUTPUT_TOKENS",
    "FREE",
    "PROMPT_OVERHEAD_TOKENS",
    "REASONING_OUTPUT_TOKENS",
    "Price",
    "default_output_tokens",
    "estimate_tokens",
    "format_usd",
    "is_local_url",
    "is_reasoning_model",
    "price_for",
    "worst_case_tokens",
]
