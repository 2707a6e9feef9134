"""``anthropic:MODEL`` — the Anthropic messages API, through the official SDK.

The agent doc goes in ``system``, the rendered fixture as the one user message; the reply is
the concatenated text blocks. ``base_url`` points the SDK at another messages-compatible
endpoint (a proxy, a gateway, the tests' local server). The SDK's own retries are off.

Example:
    >>> DEFAULT_MAX_TOKENS
    1024
"""

from __future__ import annotations

import inspect
import json
import os
import time
from collections.abc import Mapping
from typing import Any

from earnest.live.profiles import Profile
from earnest.live.providers.base import (
    ProviderError,
    ProviderReply,
    ProviderUnavailable,
    SampleKey,
)
from earnest.live.retry import parse_retry_after

DEFAULT_MAX_TOKENS = 1024
"""The messages API requires ``max_tokens``; this is used when the profile sets none."""


class AnthropicProvider:
    """Messages API: ``system`` + one user turn in, the text blocks out."""

    def __init__(self, profile: Profile) -> None:
        try:
            import anthropic
        except ImportError:
            raise ProviderUnavailable(
                f"profile {profile.name}: the anthropic provider needs the anthropic package: "
                "pip install 'earnest[anthropic]'"
            ) from None
        self._anthropic = anthropic
        self.name = profile.spec
        self.model = profile.model
        env_name = profile.api_key_env or "ANTHROPIC_API_KEY"
        api_key = os.environ.get(env_name)
        if not api_key:
            if profile.base_url is None:
                raise ProviderUnavailable(f"profile {profile.name}: {env_name} is not set")
            api_key = "earnest-local"
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=profile.base_url, max_retries=0
        )
        self._known_kwargs = set(inspect.signature(self._client.messages.create).parameters)

    def _request(self, system: str, user: str, params: Mapping[str, Any]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "max_tokens": DEFAULT_MAX_TOKENS,
        }
        extra: dict[str, Any] = {}
        for key, value in params.items():
            if key in ("max_tokens", "max_completion_tokens", "max_output_tokens"):
                kwargs["max_tokens"] = value
            elif key in self._known_kwargs:
                kwargs[key] = value
            else:
                extra[key] = value
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    async def complete(
        self,
        system: str,
        user: str,
        *,
        params: Mapping[str, Any],
        timeout: float,
        key: SampleKey | None = None,
    ) -> ProviderReply:
        started = time.perf_counter()
        try:
            resp = await self._client.messages.create(
                **self._request(system, user, params), timeout=timeout
            )
        except self._anthropic.AnthropicError as exc:
            raise self._error(exc) from None
        except ValueError as exc:
            raise ProviderError(f"malformed response body: {exc}", kind="malformed") from None
        latency = time.perf_counter() - started
        try:
            raw = resp.model_dump_json()
        except AttributeError:
            raw = str(resp)
        content = getattr(resp, "content", None)
        if not isinstance(content, list):
            raise ProviderError("the response has no content", kind="malformed", raw=raw[:2000])
        text = "".join(
            getattr(b, "text", "") or "" for b in content if getattr(b, "type", "") == "text"
        )
        usage = getattr(resp, "usage", None)
        return ProviderReply(
            text=text,
            raw=raw,
            tokens_in=getattr(usage, "input_tokens", None),
            tokens_out=getattr(usage, "output_tokens", None),
            latency=latency,
            model=getattr(resp, "model", None),
        )

    def _error(self, exc: Exception) -> ProviderError:
        an = self._anthropic
        if isinstance(exc, an.APITimeoutError):
            return ProviderError("the request timed out", kind="timeout")
        if isinstance(exc, an.APIConnectionError):
            return ProviderError(f"connection failed: {exc}", kind="connection", retryable=True)
        if isinstance(exc, an.APIStatusError):
            status = exc.status_code
            headers = dict(exc.response.headers) if exc.response is not None else {}
            retry_after = parse_retry_after(headers)
            body = _short(exc.body if exc.body is not None else exc.message)
            if status == 429:
                return ProviderError(
                    f"HTTP 429 rate limited: {body}",
                    kind="rate_limit",
                    retryable=True,
                    retry_after=retry_after,
                    status=status,
                )
            if status >= 500:  # includes 529 overloaded
                return ProviderError(
                    f"HTTP {status}: {body}",
                    kind="server_error",
                    retryable=True,
                    retry_after=retry_after,
                    status=status,
                )
            if status in (401, 403):
                return ProviderError(f"HTTP {status}: {body}", kind="auth", status=status)
            return ProviderError(f"HTTP {status}: {body}", kind="bad_request", status=status)
        if isinstance(exc, an.APIResponseValidationError):
            return ProviderError(f"malformed response: {exc}", kind="malformed")
        return ProviderError(f"{type(exc).__name__}: {exc}", kind="error")

    async def aclose(self) -> None:
        await self._client.close()


def _short(value: object, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicProvider"]
