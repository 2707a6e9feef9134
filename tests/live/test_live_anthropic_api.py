"""The anthropic: provider against a local messages-compatible server."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

pytest.importorskip("anthropic")

from live_servers import Action, FakeModelServer, Request

from earnest.live.profiles import parse_spec
from earnest.live.providers import ProviderError, ProviderUnavailable, make_provider
from earnest.live.providers.anthropic_api import DEFAULT_MAX_TOKENS, AnthropicProvider
from earnest.live.retry import RetryPolicy, call_with_retries


def provider(server: FakeModelServer) -> AnthropicProvider:
    p = replace(parse_spec("c", "anthropic:claude-test"), base_url=server.anthropic_url)
    prov = make_provider(p)
    assert isinstance(prov, AnthropicProvider)
    return prov


def complete(prov: AnthropicProvider, params: dict[str, Any] | None = None, timeout: float = 2.0):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        try:
            return await prov.complete("AGENT DOC", "FIXTURE", params=params or {}, timeout=timeout)
        finally:
            await prov.aclose()

    return asyncio.run(go())


def test_system_and_user_go_where_the_messages_api_wants_them() -> None:
    with FakeModelServer(lambda r: Action(text="CHOICE: A (Rule 3)", usage=(900, 12))) as srv:
        reply = complete(provider(srv), {"temperature": 1.0})
        (req,) = srv.requests
    assert req.path == "/v1/messages"
    assert req.body["system"] == "AGENT DOC"
    assert req.body["messages"] == [{"role": "user", "content": "FIXTURE"}]
    assert req.body["max_tokens"] == DEFAULT_MAX_TOKENS and req.body["temperature"] == 1.0
    assert (reply.text, reply.tokens_in, reply.tokens_out) == ("CHOICE: A (Rule 3)", 900, 12)
    assert reply.model == "claude-test"


def test_max_tokens_from_params() -> None:
    with FakeModelServer(lambda r: Action(text="x")) as srv:
        complete(provider(srv), {"max_tokens": 77})
        assert srv.requests[0].body["max_tokens"] == 77


@pytest.mark.parametrize(
    ("action", "kind", "retryable"),
    [
        (Action(status=429, headers={"retry-after": "2"}), "rate_limit", True),
        (Action(status=529), "server_error", True),
        (Action(status=400), "bad_request", False),
        (Action(drop=True), "connection", True),
        (Action(body=b"not json"), "malformed", False),
        (Action(delay=1.5, text="late"), "timeout", True),  # transient: retried
    ],
)
def test_faults(action: Action, kind: str, retryable: bool) -> None:
    with FakeModelServer(lambda r: action) as srv, pytest.raises(ProviderError) as info:
        complete(provider(srv), timeout=0.4)
    assert (info.value.kind, info.value.retryable) == (kind, retryable)


def test_retried_to_success() -> None:
    def script(req: Request) -> Action:
        return Action(status=500) if req.number < 3 else Action(text="CHOICE: B")

    with FakeModelServer(script) as srv:
        prov = provider(srv)

        async def go():  # type: ignore[no-untyped-def]
            try:
                return await call_with_retries(
                    lambda: prov.complete("s", "u", params={}, timeout=2),
                    RetryPolicy(retries=3, base=0.02),
                )
            finally:
                await prov.aclose()

        reply, attempts = asyncio.run(go())
    assert (reply.text, attempts) == ("CHOICE: B", 3)


def test_no_key_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ProviderUnavailable, match="ANTHROPIC_API_KEY"):
        make_provider(parse_spec("p", "anthropic:claude-sonnet-4-5"))
