"""``openai:`` profiles through the OpenAI Batch API, with the official SDK.

The requests go as one JSONL file uploaded to ``/v1/files`` (``purpose=batch``), one line per
request: ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}`` — the body
:class:`~earnest.live.providers.openai_compat.OpenAIProvider` would post online. A batch is
created on ``/v1/batches`` for that file (endpoint ``/v1/chat/completions``, the one the
online provider uses; window ``24h``), polled with ``GET /v1/batches/ID``, and, once it ended,
its ``output_file_id`` (the replies) and ``error_file_id`` (the requests that failed or
expired) are downloaded. A line's ``response.body`` is parsed into the SDK's
``ChatCompletion`` and read by the online provider's own ``_reply``; an error line becomes
the :class:`ProviderError` its status would be online (429 ``rate_limit``, 5xx
``server_error``, ...), ``batch_expired`` the kind ``expired``.

Example:
    >>> status_of("finalizing"), status_of("expired")
    ('in_progress', 'ended')
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from earnest.live.profiles import Profile
from earnest.live.providers.base import ProviderError
from earnest.live.providers.batch import (
    BatchRequest,
    BatchResults,
    BatchState,
    BatchStatus,
    Outcome,
    Submitted,
)
from earnest.live.providers.openai_compat import OpenAIProvider
from earnest.live.providers.sdk import malformed_body, sdk_error, short, status_error

ENDPOINT: Final = "/v1/chat/completions"
ENDED = ("completed", "expired", "cancelled", "failed")
"""Batch statuses after which no request changes any more."""


def status_of(status: str) -> BatchState:
    return "ended" if status in ENDED else "in_progress"


class OpenAIBatchClient:
    """Upload, create, poll, download: one batch per call of :meth:`submit`."""

    max_requests = 50_000
    max_bytes = 190 * 1024 * 1024
    """The API takes 200 MB per input file; the margin covers each line's envelope."""

    def __init__(self, profile: Profile) -> None:
        self._provider = OpenAIProvider(profile)
        self._openai = self._provider._openai
        self._client = self._provider._client
        self.name = profile.spec

    def body(self, system: str, user: str, params: Mapping[str, Any]) -> dict[str, Any]:
        return self._provider._request(system, user, params)

    async def submit(self, requests: Sequence[BatchRequest]) -> Submitted:
        # ASCII JSON, as the SDK sends a body online: a lone surrogate in a prompt is escaped,
        # never written as bytes that are not UTF-8.
        data = "".join(
            json.dumps(
                {"custom_id": r.custom_id, "method": "POST", "url": ENDPOINT, "body": r.body}
            )
            + "\n"
            for r in requests
        ).encode("ascii")
        try:
            upload = await self._client.files.create(
                file=("earnest-batch.jsonl", data, "application/jsonl"), purpose="batch"
            )
            batch = await self._client.batches.create(
                input_file_id=upload.id,
                endpoint=ENDPOINT,
                completion_window="24h",
                metadata={"created_by": "earnest run --batch"},
            )
        except self._openai.OpenAIError as exc:
            raise sdk_error(self._openai, exc) from None
        return Submitted(batch_id=batch.id, input_file_id=upload.id)

    async def _retrieve(self, batch_id: str) -> Any:
        try:
            return await self._client.batches.retrieve(batch_id)
        except self._openai.OpenAIError as exc:
            raise sdk_error(self._openai, exc) from None
        except ValueError as exc:
            raise malformed_body(exc) from None

    async def poll(self, batch_id: str) -> BatchStatus:
        batch = await self._retrieve(batch_id)
        counts = getattr(batch, "request_counts", None)
        done = (getattr(counts, "completed", 0) or 0) + (getattr(counts, "failed", 0) or 0)
        status = str(batch.status)
        return BatchStatus(
            batch_id,
            status_of(status),
            status,
            done=done,
            total=getattr(counts, "total", 0) or 0,
            detail=batch,
        )

    async def _download(self, file_id: str) -> str:
        try:
            content = await self._client.files.content(file_id)
        except self._openai.OpenAIError as exc:
            raise sdk_error(self._openai, exc) from None
        return str(content.text)

    async def results(self, status: BatchStatus) -> BatchResults:
        batch = (
            status.detail if status.detail is not None else await self._retrieve(status.batch_id)
        )
        ended = next(
            (
                getattr(batch, f"{s}_at", None)
                for s in ("completed", "expired", "cancelled", "failed")
                if getattr(batch, f"{s}_at", None)
            ),
            None,
        )
        created = getattr(batch, "created_at", None)
        latency = float(ended - created) if ended and created else 0.0
        outcomes: dict[str, Outcome] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            for line in (await self._download(file_id)).splitlines():
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue  # an unreadable line: its request has no outcome (missing_reply)
                if isinstance(obj, dict) and isinstance(obj.get("custom_id"), str):
                    outcomes[obj["custom_id"]] = self._outcome(obj, latency)
        return BatchResults(outcomes, missing=missing_error(batch))

    def _outcome(self, line: Mapping[str, Any], latency: float) -> Outcome:
        error = line.get("error")
        response = line.get("response")
        if isinstance(error, dict) and error:
            code = str(error.get("code") or "error")
            message = str(error.get("message") or "")
            if code == "batch_expired":
                return ProviderError(
                    f"the batch expired before this request ran: {message}".rstrip(": "),
                    kind="expired",
                )
            if code == "batch_cancelled":
                return ProviderError(
                    "the batch was canceled before this request ran", kind="canceled"
                )
            return ProviderError(f"{code}: {message}", kind="error", raw=short(line, 2000))
        if not isinstance(response, dict):
            return ProviderError(
                "the result line has no response", kind="malformed", raw=short(line, 2000)
            )
        status = response.get("status_code")
        body = response.get("body")
        if status != 200:
            return status_error(int(status) if isinstance(status, int) else 0, body)
        if not isinstance(body, dict):
            return ProviderError(
                "the response body is not an object", kind="malformed", raw=short(line, 2000)
            )
        from openai.types.chat import ChatCompletion

        try:
            return self._provider._reply(ChatCompletion.construct(**body), latency)
        except ProviderError as exc:
            return exc

    async def aclose(self) -> None:
        await self._provider.aclose()


def missing_error(batch: Any) -> ProviderError:
    """The outcome of a request that has no line in the batch's output or error file."""
    status = getattr(batch, "status", "")
    if status == "expired":
        return ProviderError("the batch expired before this request ran", kind="expired")
    if status == "cancelled":
        return ProviderError("the batch was canceled before this request ran", kind="canceled")
    if status == "failed":
        errors = getattr(getattr(batch, "errors", None), "data", None) or []
        why = "; ".join(
            f"{getattr(e, 'code', '')}: {getattr(e, 'message', '')}".strip(": ") for e in errors
        )
        return ProviderError(f"the batch failed: {why or 'no reason given'}", kind="bad_request")
    return ProviderError("the batch's results have no line for this request", kind="missing_reply")


__all__ = ["ENDED", "ENDPOINT", "OpenAIBatchClient", "missing_error", "status_of"]
