"""``anthropic:`` profiles through Anthropic Message Batches, with the official SDK.

One ``POST /v1/messages/batches`` carries every request as ``{"custom_id", "params"}``, where
``params`` is what :class:`~earnest.live.providers.anthropic_api.AnthropicProvider` would send
online (unknown request parameters merged in, as ``extra_body`` merges them online). The
batch is polled with ``GET /v1/messages/batches/ID`` until ``processing_status`` is
``ended``; then its ``results_url`` is streamed as JSONL (the SDK's ``batches.results``), one
line per request: ``result.type`` ``succeeded`` carries the ``Message``, read by the online
provider's own ``_reply``; ``errored`` the error (mapped as its HTTP status would be online:
``rate_limit_error`` → ``rate_limit``, ``overloaded_error``/``api_error`` → ``server_error``,
``invalid_request_error`` → ``bad_request``); ``canceled`` and ``expired`` their own kinds.

Example:
    >>> error_of("overloaded_error", "busy").kind, error_of("overloaded_error", "busy").retryable
    ('server_error', True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from earnest.live.profiles import Profile
from earnest.live.providers.anthropic_api import AnthropicProvider
from earnest.live.providers.base import ProviderError, ProviderUnavailable
from earnest.live.providers.batch import BatchRequest, BatchResults, BatchStatus, Outcome, Submitted
from earnest.live.providers.sdk import malformed_body, sdk_error, status_error

_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
"""An errored request's ``error.type`` and the HTTP status it stands for (Anthropic's docs)."""


def error_of(error_type: str, message: str) -> ProviderError:
    """An errored request's error as the :class:`ProviderError` its status would be online."""
    status = _ERROR_STATUS.get(error_type)
    if status is None:
        return ProviderError(f"{error_type}: {message}", kind="error")
    return status_error(status, f"{error_type}: {message}")


class AnthropicBatchClient:
    """Create, poll, stream the results: one Message Batch per call of :meth:`submit`."""

    max_requests = 100_000
    max_bytes = 250 * 1024 * 1024
    """The API takes 256 MB per batch; the margin covers each request's envelope."""

    def __init__(self, profile: Profile) -> None:
        self._provider = AnthropicProvider(profile)
        self._anthropic = self._provider._anthropic
        batches = getattr(self._provider._client.messages, "batches", None)
        if batches is None:
            raise ProviderUnavailable(
                f"profile {profile.name}: --batch needs Message Batches in the anthropic "
                "package (client.messages.batches): pip install -U anthropic"
            )
        self._batches = batches
        self.name = profile.spec

    def body(self, system: str, user: str, params: Mapping[str, Any]) -> dict[str, Any]:
        kwargs = self._provider._request(system, user, params)
        extra = kwargs.pop("extra_body", {})
        return {**kwargs, **extra}

    async def submit(self, requests: Sequence[BatchRequest]) -> Submitted:
        try:
            batch = await self._batches.create(
                requests=[{"custom_id": r.custom_id, "params": dict(r.body)} for r in requests]
            )
        except self._anthropic.AnthropicError as exc:
            raise sdk_error(self._anthropic, exc) from None
        return Submitted(batch_id=str(batch.id))

    async def _retrieve(self, batch_id: str) -> Any:
        try:
            return await self._batches.retrieve(batch_id)
        except self._anthropic.AnthropicError as exc:
            raise sdk_error(self._anthropic, exc) from None
        except ValueError as exc:
            raise malformed_body(exc) from None

    async def poll(self, batch_id: str) -> BatchStatus:
        batch = await self._retrieve(batch_id)
        counts = batch.request_counts
        done = sum(
            getattr(counts, k, 0) or 0 for k in ("succeeded", "errored", "canceled", "expired")
        )
        status = str(batch.processing_status)
        return BatchStatus(
            batch_id,
            "ended" if status == "ended" else "in_progress",
            status,
            done=done,
            total=done + (getattr(counts, "processing", 0) or 0),
            detail=batch,
        )

    async def results(self, status: BatchStatus) -> BatchResults:
        batch_id = status.batch_id
        batch = status.detail if status.detail is not None else await self._retrieve(batch_id)
        created, ended = getattr(batch, "created_at", None), getattr(batch, "ended_at", None)
        latency = (ended - created).total_seconds() if created and ended else 0.0
        outcomes: dict[str, Outcome] = {}
        try:
            lines = await self._batches.results(batch_id)
            async for item in lines:
                outcomes[str(item.custom_id)] = self._outcome(item.result, latency)
        except self._anthropic.AnthropicError as exc:
            raise sdk_error(self._anthropic, exc) from None
        except ValueError as exc:
            raise malformed_body(exc) from None
        return BatchResults(outcomes)

    def _outcome(self, result: Any, latency: float) -> Outcome:
        kind = getattr(result, "type", None)
        if kind == "succeeded":
            try:
                return self._provider._reply(result.message, latency)
            except ProviderError as exc:
                return exc
        if kind == "errored":
            error = getattr(getattr(result, "error", None), "error", None)
            return error_of(
                str(getattr(error, "type", "error")), str(getattr(error, "message", ""))
            )
        if kind == "expired":
            return ProviderError("the batch expired before this request ran", kind="expired")
        if kind == "canceled":
            return ProviderError("the batch was canceled before this request ran", kind="canceled")
        return ProviderError(f"unknown result type {kind!r}", kind="malformed")

    async def aclose(self) -> None:
        await self._provider.aclose()


__all__ = ["AnthropicBatchClient", "error_of"]
