"""``openai:MODEL`` — any OpenAI-compatible chat-completions endpoint, through the official SDK.

Reaches OpenAI itself, or a local server (vLLM, Ollama, llama.cpp server, LM Studio) through
``base_url``. The SDK's own retries are switched off: the runner retries, once, with its policy.
The request goes through the SDK's generic ``post`` (its documented way to send a body as-is):
the profile's ``params`` reach the server untouched, server-specific ones included (Ollama's
``num_ctx``, vLLM's ``top_k``), and the SDK's per-call parameter transformation — most of its
client-side cost — is skipped. The reply is still parsed into the SDK's ``ChatCompletion``.

Reasoning models want ``max_completion_tokens`` and reject ``max_tokens``; some local servers
reject ``max_completion_tokens``. A profile's ``token_param`` picks one; ``auto`` (the default)
starts from the model family and, when the server rejects the parameter by name, switches to
the other and remembers it for the rest of the run.

Example:
    >>> initial_token_param("o3-mini"), initial_token_param("llama3.1:8b")
    ('max_completion_tokens', 'max_tokens')
"""

from __future__ import annotations

import json
import os
import re
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

_REASONING = re.compile(r"^(?:[\w.-]+/)?(?:o\d|gpt-5)", re.IGNORECASE)
_TOKEN_KEYS = ("max_tokens", "max_completion_tokens")
LOCAL_API_KEY = "earnest-local"
"""Sent to a local server that needs no key (the SDK refuses to start without one)."""


def initial_token_param(model: str) -> str:
    return "max_completion_tokens" if _REASONING.match(model) else "max_tokens"


class OpenAIProvider:
    """Chat completions: system + user messages in, the first choice's content out."""

    def __init__(self, profile: Profile) -> None:
        try:
            import openai
        except ImportError:
            raise ProviderUnavailable(
                f"profile {profile.name}: the openai provider needs the openai package: "
                "pip install 'earnest[openai]'"
            ) from None
        self._openai = openai
        self.name = profile.spec
        self.model = profile.model
        env_name = profile.api_key_env or "OPENAI_API_KEY"
        api_key = os.environ.get(env_name)
        if not api_key:
            if profile.base_url is None:
                raise ProviderUnavailable(
                    f"profile {profile.name}: {env_name} is not set "
                    "(or pass --base-url for a local OpenAI-compatible server)"
                )
            api_key = LOCAL_API_KEY
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=profile.base_url, max_retries=0)
        self._fixed_token_param = profile.token_param != "auto"
        self._token_param = (
            profile.token_param if self._fixed_token_param else initial_token_param(profile.model)
        )
        from openai.types.chat import ChatCompletion

        self._cast_to = ChatCompletion

    def _request(self, system: str, user: str, params: Mapping[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        }
        for key, value in params.items():
            body[self._token_param if key in _TOKEN_KEYS else key] = value
        return body

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
        switched = False
        while True:
            body = self._request(system, user, params)
            try:
                resp = await self._client.post(
                    "/chat/completions",
                    cast_to=self._cast_to,
                    body=body,
                    options={"timeout": timeout},
                )
                break
            except self._openai.BadRequestError as exc:
                if (
                    not switched
                    and not self._fixed_token_param
                    and any(k in params for k in _TOKEN_KEYS)
                    and self._token_param in str(exc)
                ):
                    self._token_param = (
                        "max_tokens"
                        if self._token_param == "max_completion_tokens"
                        else "max_completion_tokens"
                    )
                    switched = True
                    continue
                raise self._error(exc) from None
            except self._openai.OpenAIError as exc:
                raise self._error(exc) from None
            except ValueError as exc:
                # A 200 whose body is not JSON: the SDK surfaces the decoder's error.
                raise ProviderError(f"malformed response body: {exc}", kind="malformed") from None
        latency = time.perf_counter() - started
        return self._reply(resp, latency)

    def _reply(self, resp: Any, latency: float) -> ProviderReply:
        try:
            raw = resp.model_dump_json()
        except AttributeError:
            raw = str(resp)
        choices = getattr(resp, "choices", None)
        if not choices:
            raise ProviderError("the response has no choices", kind="malformed", raw=raw[:2000])
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if content is not None and not isinstance(content, str):
            raise ProviderError("the message content is not text", kind="malformed", raw=raw[:2000])
        usage = getattr(resp, "usage", None)
        return ProviderReply(
            text=content or "",
            raw=raw,
            tokens_in=getattr(usage, "prompt_tokens", None),
            tokens_out=getattr(usage, "completion_tokens", None),
            latency=latency,
            model=getattr(resp, "model", None),
        )

    def _error(self, exc: Exception) -> ProviderError:
        oa = self._openai
        if isinstance(exc, oa.APITimeoutError):
            return ProviderError("the request timed out", kind="timeout")
        if isinstance(exc, oa.APIConnectionError):
            return ProviderError(f"connection failed: {exc}", kind="connection", retryable=True)
        if isinstance(exc, oa.APIStatusError):
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
            if status >= 500:
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
        if isinstance(exc, oa.APIResponseValidationError):
            return ProviderError(f"malformed response: {exc}", kind="malformed")
        return ProviderError(f"{type(exc).__name__}: {exc}", kind="error")

    async def aclose(self) -> None:
        await self._client.close()


def _short(value: object, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


__all__ = ["LOCAL_API_KEY", "OpenAIProvider", "initial_token_param"]
