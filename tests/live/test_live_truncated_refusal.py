"""Issue 10, item 4 in a live run: a reply cut off at the token limit before any decision is
void (the harness cut it); a refusal is the model's answer (``fail-unparseable``, reason
``refusal``). Real SDKs against a local server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from live_servers import Action, FakeModelServer, Request
from live_suite import write_suite


def chat_body(message: dict[str, Any], finish: str) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "created": 0,
            "model": "llama3",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 64, "total_tokens": 114},
        }
    ).encode()


def messages_body(text: str, stop: str) -> bytes:
    return json.dumps(
        {
            "id": "msg_local",
            "type": "message",
            "role": "assistant",
            "model": "claude-test",
            "content": [{"type": "text", "text": text}] if text else [],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 50, "output_tokens": 64},
        }
    ).encode()


def run(tmp_path: Path, spec: str, script: Any, *, anthropic: bool = False) -> list[Any]:
    from earnest.live.session import Overrides, execute, plan_new
    from earnest.live.store import RunStore

    suite = write_suite(tmp_path / "suite", 1)
    with FakeModelServer(script) as srv:
        plan = plan_new(
            suite,
            Overrides(
                profiles=(spec,),
                base_url=srv.anthropic_url if anthropic else srv.base_url,
                arms="rule",
                samples=1,
                retries=0,
            ),
        )
        with RunStore(tmp_path / "runs.db") as st:
            run_id = execute(plan, st).run_id
            return list(st.samples(run_id))


def test_openai_truncated_reply_is_void(tmp_path: Path) -> None:
    def script(req: Request) -> Action:
        cut = {"role": "assistant", "content": "Let me weigh the options. First, the"}
        return Action(body=chat_body(cut, "length"))

    (sample,) = run(tmp_path, "local=openai:llama3", script)
    assert sample.void and sample.verdict is None
    assert sample.error_kind == "truncated"
    assert "token limit" in (sample.error or "")


def test_openai_refusal_is_a_verdict(tmp_path: Path) -> None:
    def script(req: Request) -> Action:
        refused = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
        return Action(body=chat_body(refused, "stop"))

    (sample,) = run(tmp_path, "local=openai:llama3", script)
    assert not sample.void
    assert sample.verdict == "fail-unparseable"
    assert sample.judgement["unparseable_reason"] == "refusal"
    assert sample.reply == "I can't help with that."


def test_anthropic_max_tokens_is_void_and_refusal_a_verdict(tmp_path: Path) -> None:
    pytest.importorskip("anthropic")

    (cut,) = run(
        tmp_path / "a",
        "c=anthropic:claude-test",
        lambda req: Action(body=messages_body("Weighing the", "max_tokens")),
        anthropic=True,
    )
    assert cut.void and cut.error_kind == "truncated"
    (refused,) = run(
        tmp_path / "b",
        "c=anthropic:claude-test",
        lambda req: Action(body=messages_body("", "refusal")),
        anthropic=True,
    )
    assert refused.verdict == "fail-unparseable"
    assert refused.judgement["unparseable_reason"] == "refusal"
