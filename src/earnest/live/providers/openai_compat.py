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

import time
from collections.abc import Mapping
from typing import Any

from earnest.live.cost import is_reasoning_model
from earnest.live.profiles import Profile
from earnest.live.providers.base import (
    ProviderError,
    ProviderReply,
    SampleKey,
    StopReason,
)
from earnest.live.providers.sdk import (
    LOCAL_API_KEY,
    api_key,
    malformed_body,
    missing_sdk,
    raw_json,
    sdk_error,
)

_TOKEN_KEYS = ("max_tokens", "max_completion_tokens")


def initial_token_param(model: str) -> str:
    return "max_completion_tokens" if is_reasoning_model(model) else "max_tokens"


class OpenAIProvider:
    """Chat completions: system + user messages in, the first choice's content out."""

    def __init__(self, profile: Profile) -> None:
        try:
            import openai
        except ImportError:
            raise missing_sdk(profile, "openai") from None
        self._openai = openai
        self.name = profile.spec
        self.model = profile.model
        key = api_key(
            profile,
            "OPENAI_API_KEY",
            " (or pass --base-url for a local OpenAI-compatible server)",
        )
        self._client = openai.AsyncOpenAI(api_key=key, base_url=profile.base_url, max_retries=0)
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
                raise sdk_error(self._openai, exc) from None
            except self._openai.OpenAIError as exc:
                raise sdk_error(self._openai, exc) from None
            except ValueError as exc:
                raise malformed_body(exc) from None
        latency = time.perf_counter() - started
        return self._reply(resp, latency)

    def _reply(self, resp: Any, latency: float) -> ProviderReply:
        raw = raw_json(resp)
        choices = getattr(resp, "choices", None)
        if not choices:
            raise ProviderError("the response has no choices", kind="malformed", raw=raw[:2000])
        message = getattr(choices[0], "message", None)
        content = getattr(message, "content", None)
        if content is not None and not isinstance(content, str):
            raise ProviderError("the message content is not text", kind="malformed", raw=raw[:2000])
        usage = getattr(resp, "usage", None)
        stop: StopReason | None = None
        refusal = getattr(message, "refusal", None)
        if not content and isinstance(refusal, str) and refusal:
            content, stop = refusal, "refusal"
        elif getattr(choices[0], "finish_reason", None) == "length":
            stop = "truncated"
        return ProviderReply(
            stop=stop,
            text=content or "",
            raw=raw,
            tokens_in=getattr(usage, "prompt_tokens", None),
            tokens_out=getattr(usage, "completion_tokens", None),
            latency=latency,
            model=getattr(resp, "model", None),
        )

    async def aclose(self) -> None:
        await self._client.close()


__all__ = ["LOCAL_API_KEY", "OpenAIProvider", "initial_token_param"]
