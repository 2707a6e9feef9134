"""The provider contract: one async call turns (system, user) into a :class:`ProviderReply`.

Every provider (OpenAI-compatible, Anthropic, headless agent CLI, recorded replies) answers
``await provider.complete(system, user, params=..., timeout=...)``. Failures are raised as
:class:`ProviderError`; ``retryable`` says whether the runner may try again (rate limits,
5xx, dropped connections, timeouts), ``retry_after`` carries the server's own wait hint and
``refused`` marks a connection nobody accepted.

Example:
    >>> err = ProviderError("HTTP 429", kind="rate_limit", retryable=True, retry_after=2.0)
    >>> err.retryable, err.retry_after
    (True, 2.0)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from earnest.pressure.envelopes import StopReason
from earnest.pressure.evidence import Behaviour

ErrorKind = Literal[
    "rate_limit",
    "server_error",
    "connection",
    "timeout",
    "bad_request",
    "auth",
    "malformed",
    "process",
    "missing_reply",
    "agent_error",
    "expired",
    "canceled",
    "error",
]


@dataclass(frozen=True, slots=True)
class SampleKey:
    """Which sample a call belongs to; only the replay provider needs it."""

    fixture_id: str
    arm: str
    epoch: int
    profile: str = ""


@dataclass(frozen=True, slots=True)
class ProviderReply:
    """One reply. ``text`` is what gets scored (already unwrapped from any agent-CLI envelope);
    ``raw`` is what the provider returned verbatim. ``cost`` is in USD (``None``: unknown);
    ``latency`` in seconds. ``order`` overrides the displayed order (recorded replies only)."""

    text: str
    raw: str
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    latency: float = 0.0
    order: tuple[str, ...] | None = None
    model: str | None = None
    did: Behaviour | None = None
    """What the agent did in its workspace copy (acted-out samples only)."""
    stop: StopReason | None = None
    """``refusal`` (the model refused) or ``truncated`` (cut at the token limit), when the
    provider said so; ``None`` otherwise."""


class ProviderError(Exception):
    """A call that produced no reply. The runner retries it when ``retryable`` and otherwise
    records the sample as void with this message."""

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind = "error",
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
        raw: str = "",
        refused: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind: ErrorKind = kind
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.raw = raw
        self.refused = refused
        """The connection was refused: nothing listens there, no request reached a server."""
        self.attempts = 1
        self.did: Behaviour | None = None
        """What an acting agent did before it failed (crashed, timed out): kept with the
        void sample, never judged."""

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}"


def seconds_text(seconds: float) -> str:
    """A time limit as people write it: ``8`` for 8 or 7.99999, ``0.5`` for 0.5.

    Example:
        >>> seconds_text(7.99999), seconds_text(0.5), seconds_text(120.0)
        ('8', '0.5', '120')
    """
    return f"{round(seconds, 1):g}"


class ProviderUnavailable(Exception):
    """The provider cannot be used at all (SDK not installed, unknown preset, bad profile).
    The CLI turns it into exit 2 before any sample starts."""


@runtime_checkable
class Provider(Protocol):
    """What the runner calls. ``name`` is ``kind:model`` as the user wrote it."""

    name: str
    model: str

    async def complete(
        self,
        system: str,
        user: str,
        *,
        params: Mapping[str, Any],
        timeout: float,
        key: SampleKey | None = None,
    ) -> ProviderReply: ...

    async def aclose(self) -> None: ...


__all__ = [
    "ErrorKind",
    "Provider",
    "ProviderError",
    "ProviderReply",
    "ProviderUnavailable",
    "SampleKey",
    "StopReason",
    "seconds_text",
]
