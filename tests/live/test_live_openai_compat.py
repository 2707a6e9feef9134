"""The openai: provider against a local OpenAI-compatible server with injected faults."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

pytest.importorskip("openai")

from live_servers import Action, FakeModelServer, Request, prompt_of

from earnest.live.profiles import parse_spec
from earnest.live.providers import ProviderError, ProviderUnavailable, make_provider
from earnest.live.providers.openai_compat import OpenAIProvider, initial_token_param
from earnest.live.retry import RetryPolicy, call_with_retries


def provider(server: FakeModelServer, model: str = "llama3", **kw: Any) -> OpenAIProvider:
    p = replace(parse_spec("local", f"openai:{model}"), base_url=server.base_url, **kw)
    prov = make_provider(p)
    assert isinstance(prov, OpenAIProvider)
    return prov


def complete(prov: OpenAIProvider, params: dict[str, Any] | None = None, timeout: float = 2.0):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        try:
            return await prov.complete(
                "SYSTEM DOC", "USER PROMPT", params=params or {}, timeout=timeout
            )
        finally:
            await prov.aclose()

    return asyncio.run(go())


def test_reply_usage_and_request_shape() -> None:
    with FakeModelServer(lambda r: Action(text="CHOICE: B\nper Rule 8", usage=(120, 7))) as srv:
        reply = complete(provider(srv), {"temperature": 0.2, "max_tokens": 64, "num_ctx": 4096})
        (req,) = srv.requests
    assert reply.text == "CHOICE: B\nper Rule 8"
    assert (reply.tokens_in, reply.tokens_out, reply.cost) == (120, 7, None)
    assert reply.model == "llama3" and '"chatcmpl-local"' in reply.raw and reply.latency > 0
    assert req.path == "/v1/chat/completions"
    assert prompt_of(req) == ("SYSTEM DOC", "USER PROMPT")
    assert req.body["max_tokens"] == 64 and req.body["temperature"] == 0.2
    assert req.body["num_ctx"] == 4096  # unknown parameters still reach the server


def test_reasoning_models_start_with_max_completion_tokens() -> None:
    assert initial_token_param("o3-mini") == "max_completion_tokens"
    assert initial_token_param("gpt-5-mini") == "max_completion_tokens"
    assert initial_token_param("openai/o4-mini") == "max_completion_tokens"
    assert initial_token_param("qwen2.5:7b") == "max_tokens"
    with FakeModelServer(lambda r: Action(text="CHOICE: A")) as srv:
        complete(provider(srv, "o3-mini"), {"max_tokens": 50})
        assert srv.requests[0].body.get("max_completion_tokens") == 50
        assert "max_tokens" not in srv.requests[0].body


def test_a_server_that_rejects_the_token_parameter_gets_the_other_one() -> None:
    def script(req: Request) -> Action:
        if "max_completion_tokens" in req.body:
            return Action(
                status=400,
                body=b'{"error": {"message": "Unrecognized request argument supplied: max_completion_tokens"}}',
            )
        return Action(text="CHOICE: C")

    with FakeModelServer(script) as srv:
        prov = provider(srv, "gpt-5-nano")

        async def twice() -> list[str]:
            out = [
                (await prov.complete("s", "u", params={"max_tokens": 9}, timeout=2)).text
                for _ in range(2)
            ]
            await prov.aclose()
            return out

        assert asyncio.run(twice()) == ["CHOICE: C", "CHOICE: C"]
        bodies = [r.body for r in srv.requests]
    # first call: rejected, switched; second call: remembered, no rejected round trip
    assert [("max_tokens" in b, "max_completion_tokens" in b) for b in bodies] == [
        (False, True),
        (True, False),
        (True, False),
    ]


def test_a_fixed_token_parameter_is_not_switched() -> None:
    def script(req: Request) -> Action:
        return Action(status=400, body=b'{"error": {"message": "unsupported max_tokens"}}')

    with FakeModelServer(script) as srv:
        with pytest.raises(ProviderError) as info:
            complete(provider(srv, token_param="max_tokens"), {"max_tokens": 5})
        assert len(srv.requests) == 1
    assert info.value.kind == "bad_request" and not info.value.retryable


@pytest.mark.parametrize(
    ("action", "kind", "retryable"),
    [
        (Action(status=429, headers={"retry-after": "7"}), "rate_limit", True),
        (Action(status=500), "server_error", True),
        (Action(status=503), "server_error", True),
        (Action(status=401), "auth", False),
        (Action(drop=True), "connection", True),
        (Action(body=b"<html>bad gateway</html>"), "malformed", False),
        (Action(body=b'{"object": "chat.completion"}'), "malformed", False),
        (Action(delay=1.5, text="late"), "timeout", True),  # transient: retried
    ],
)
def test_faults_become_provider_errors(action: Action, kind: str, retryable: bool) -> None:
    with FakeModelServer(lambda r: action) as srv, pytest.raises(ProviderError) as info:
        complete(provider(srv), timeout=0.4)
    assert (info.value.kind, info.value.retryable) == (kind, retryable)
    if kind == "rate_limit":
        assert info.value.retry_after == 7.0


def test_the_runner_policy_waits_for_retry_after_then_succeeds() -> None:
    def script(req: Request) -> Action:
        if req.number == 1:
            return Action(status=429, headers={"retry-after": "1"})
        if req.number == 2:
            return Action(status=502)
        if req.number == 3:
            return Action(drop=True)
        return Action(text="CHOICE: D")

    with FakeModelServer(script) as srv:
        prov = provider(srv)

        async def go():  # type: ignore[no-untyped-def]
            try:
                return await call_with_retries(
                    lambda: prov.complete("s", "u", params={}, timeout=2),
                    RetryPolicy(retries=4, base=0.05),
                )
            finally:
                await prov.aclose()

        reply, attempts = asyncio.run(go())
        times = [r.at for r in srv.requests]
    assert reply.text == "CHOICE: D" and attempts == 4
    assert times[1] - times[0] >= 1.0  # retry-after honoured
    assert times[2] - times[1] < 1.0


def test_no_key_and_no_base_url_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderUnavailable, match="OPENAI_API_KEY is not set"):
        make_provider(parse_spec("p", "openai:gpt-4o-mini"))
    monkeypatch.delenv("MY_KEY", raising=False)
    with pytest.raises(ProviderUnavailable, match="MY_KEY"):
        make_provider(replace(parse_spec("p", "openai:gpt-4o-mini"), api_key_env="MY_KEY"))
