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
import time
from collections.abc import Mapping
from typing import Any

from earnest.live.profiles import Profile
from earnest.live.providers.base import (
    ProviderError,
    ProviderReply,
    SampleKey,
    StopReason,
)
from earnest.live.providers.sdk import (
    api_key,
    malformed_body,
    missing_sdk,
    raw_json,
    sdk_error,
)

DEFAULT_MAX_TOKENS = 1024
"""The messages API requires ``max_tokens``; this is used when the profile sets none."""


class AnthropicProvider:
    """Messages API: ``system`` + one user turn in, the text blocks out."""

    def __init__(self, profile: Profile) -> None:
        try:
            import anthropic
        except ImportError:
            raise missing_sdk(profile, "anthropic") from None
        self._anthropic = anthropic
        self.name = profile.spec
        self.model = profile.model
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key(profile, "ANTHROPIC_API_KEY"), base_url=profile.base_url, max_retries=0
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
            raise sdk_error(self._anthropic, exc) from None
        except ValueError as exc:
            raise malformed_body(exc) from None
        return self._reply(resp, time.perf_counter() - started)

    def _reply(self, resp: Any, latency: float) -> ProviderReply:
        """A ``Message`` as a reply: what an online call returns and what a batch's succeeded
        line carries (``earnest.live.providers.anthropic_batch``)."""
        raw = raw_json(resp)
        content = getattr(resp, "content", None)
        if not isinstance(content, list):
            raise ProviderError("the response has no content", kind="malformed", raw=raw[:2000])
        text = "".join(
            getattr(b, "text", "") or "" for b in content if getattr(b, "type", "") == "text"
        )
        usage = getattr(resp, "usage", None)
        stop_reason = getattr(resp, "stop_reason", None)
        stop: StopReason | None = (
            "truncated"
            if stop_reason == "max_tokens"
            else "refusal"
            if stop_reason == "refusal"
            else None
        )
        return ProviderReply(
            stop=stop,
            text=text,
            raw=raw,
            tokens_in=getattr(usage, "input_tokens", None),
            tokens_out=getattr(usage, "output_tokens", None),
            latency=latency,
            model=getattr(resp, "model", None),
        )

    async def aclose(self) -> None:
        await self._client.close()


__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicProvider"]
