"""The batch contract: submit many requests at once, poll, collect each request's outcome.

``earnest run --batch`` sends a run's samples through a provider's batch API instead of one
call each: the OpenAI Batch API (``openai:`` profiles, :mod:`.openai_batch`) or Anthropic
Message Batches (``anthropic:`` profiles, :mod:`.anthropic_batch`). Both bill half the list
price and answer within 24 hours. A :class:`BatchClient` builds each request's body exactly as
its online provider would (the same ``_request``), and turns each result line into the same
:class:`ProviderReply` the online call returns (the same ``_reply``), or a
:class:`ProviderError` for an errored, expired or canceled request. The runner
(``earnest.live.batching``) then judges them as it judges online replies.

Example:
    >>> BatchStatus("b1", "in_progress", "validating", done=0, total=3).ended
    False
    >>> BatchResults({}, missing=ProviderError("x", kind="expired")).outcome("c1").kind
    'expired'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from earnest.live.providers.base import ProviderError, ProviderReply

BatchState = Literal["in_progress", "ended"]


@dataclass(frozen=True, slots=True)
class BatchRequest:
    """One request of a batch: its ``custom_id`` (see ``earnest.live.batching.custom_id``) and
    the body the online call would send."""

    custom_id: str
    body: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Submitted:
    """A created batch: the provider's id, and the uploaded input file's (OpenAI)."""

    batch_id: str
    input_file_id: str | None = None


@dataclass(frozen=True, slots=True)
class BatchStatus:
    """A poll's answer. ``ended``: every request has its outcome and the results can be read
    (OpenAI ``completed``/``expired``/``cancelled``/``failed``, Anthropic ``ended``)."""

    batch_id: str
    state: BatchState
    status: str
    """The provider's own status word (``in_progress``, ``finalizing``, ``ended``, ...)."""
    done: int = 0
    total: int = 0
    detail: Any = field(default=None, compare=False, repr=False)
    """The provider's batch object as polled (its result file ids, its times)."""

    @property
    def ended(self) -> bool:
        return self.state == "ended"


Outcome = ProviderReply | ProviderError


@dataclass(frozen=True, slots=True)
class BatchResults:
    """Each request's outcome by ``custom_id``; a request with no result line gets ``missing``
    (the batch expired or was canceled before it ran, or the provider lost it)."""

    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    missing: ProviderError = field(
        default_factory=lambda: ProviderError(
            "the batch's results have no line for this request", kind="missing_reply"
        )
    )

    def outcome(self, custom_id: str) -> Outcome:
        return self.outcomes.get(custom_id, self.missing)


class BatchClient(Protocol):
    """What the batch runner calls; SDK failures are raised as :class:`ProviderError`."""

    name: str
    max_requests: int
    """The most requests one batch may hold (larger runs are split into several)."""
    max_bytes: int
    """The most bytes of request bodies one batch may hold."""

    def body(self, system: str, user: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """The request body the online provider would send for this prompt."""
        ...

    async def submit(self, requests: Sequence[BatchRequest]) -> Submitted: ...

    async def poll(self, batch_id: str) -> BatchStatus: ...

    async def results(self, status: BatchStatus) -> BatchResults:
        """Every request's outcome, once ``status`` (the last poll) says the batch ended."""
        ...

    async def aclose(self) -> None: ...


__all__ = [
    "BatchClient",
    "BatchRequest",
    "BatchResults",
    "BatchState",
    "BatchStatus",
    "Outcome",
    "Submitted",
]
