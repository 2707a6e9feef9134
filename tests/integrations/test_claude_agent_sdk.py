"""earnest's gate as an in-process Stop hook of the Claude Agent SDK, run for real: the SDK
starts the Claude Code it bundles, which talks to a fake Anthropic API on 127.0.0.1 and runs
its own tools (Write, Read, Bash) in a temporary workspace; the hook runs in this process."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from agentkit import (
    BROKEN,
    CLAIM,
    FIXED,
    REASON,
    STILL_BROKEN,
    TEST,
    Call,
    FakeModel,
    Turn,
    Turns,
    framework_version,
)

TESTED = "0.2.190"
VERSION = framework_version("claude-agent-sdk", TESTED, "pip install 'earnest[claude-agent-sdk]'")

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query  # noqa: E402

from earnest.hooks.state import StateStore  # noqa: E402
from earnest.integrations.claude_agent_sdk import stop_hooks  # noqa: E402

PYTEST = Call("Bash", {"command": "python -m pytest -q -p no:cacheprovider"})


def run_claude(
    tmp_path: Path, request: str, turns: Turns, files: dict[str, str]
) -> tuple[FakeModel, str, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    for name, text in files.items():
        (ws / name).write_text(text)
    # The stop hook reads its config where the agent works: claims are checked.
    (ws / "earnest.toml").write_text("[effects]\nstrict_claims = true\nmax_downgrades = 2\n")
    home = tmp_path / "home"
    home.mkdir()
    with FakeModel("anthropic", turns) as model:
        env = {
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "sk-ant-fake-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        }
        options = ClaudeAgentOptions(
            cwd=str(ws),
            env=env,
            hooks=stop_hooks(StateStore(tmp_path / "state")),
            permission_mode="acceptEdits",
            allowed_tools=["Read", "Write", "Bash"],
            setting_sources=[],
            max_turns=20,
        )

        async def main() -> str:
            final = ""
            async for message in query(prompt=request, options=options):
                if isinstance(message, ResultMessage):
                    final = message.result or ""
            return final

        final = asyncio.run(asyncio.wait_for(main(), timeout=300))
    return model, final, ws


def blocks(model: FakeModel, prefix: str) -> list[Any]:
    return model.sent_back(prefix)


def test_claude_done_then_write(tmp_path: Path) -> None:
    turns = Turns([
        Turn(text="Done: I created hello.py."),
        Turn(calls=(Call("Write", {"file_path": "hello.py", "content": "print('hello')\n"}),)),
        Turn(text="Created hello.py."),
    ])  # fmt: skip
    model, final, ws = run_claude(tmp_path, "Create hello.py that prints hello.", turns, {})
    assert blocks(model, REASON), "the block reason never reached the model"
    assert "no tool calls were made in this run" in blocks(model, REASON)[0].dump
    assert (ws / "hello.py").read_text() == "print('hello')\n"
    assert final == "Created hello.py."
    assert turns.played == 3 and turns.overflow == 0


def test_claude_question_after_read(tmp_path: Path) -> None:
    turns = Turns([
        Turn(calls=(Call("Read", {"file_path": "notes.txt"}),)),
        Turn(text="notes.txt says the meeting is at noon."),
    ])  # fmt: skip
    model, final, _ = run_claude(tmp_path, "What does notes.txt say?", turns,
                                 {"notes.txt": "the meeting is at noon\n"})  # fmt: skip
    assert not blocks(model, REASON)
    assert final == "notes.txt says the meeting is at noon."


def test_claude_done_forever_is_blocked_max_downgrades_times(tmp_path: Path) -> None:
    turns = Turns([], fallback="Done: I created hello.py.")
    model, final, ws = run_claude(tmp_path, "Create hello.py that prints hello.", turns, {})
    assert turns.overflow == 3  # the first answer and two blocked retries
    assert len(blocks(model, REASON)) == 2
    assert final == "Done: I created hello.py."
    assert not (ws / "hello.py").exists()


def test_claude_failing_tests_then_all_tests_pass(tmp_path: Path) -> None:
    turns = Turns([
        Turn(calls=(Call("Read", {"file_path": "calc.py"}),)),
        Turn(calls=(Call("Write", {"file_path": "calc.py", "content": STILL_BROKEN}),)),
        Turn(calls=(PYTEST,)),
        Turn(text="I fixed calc.py. All tests pass."),
        Turn(calls=(Call("Write", {"file_path": "calc.py", "content": FIXED}),)),
        Turn(calls=(PYTEST,)),
        # Not the same words as the first claim: the stop hook waits for the transcript to
        # hold the stop's final message, and identical words would look caught up already.
        Turn(text="Now calc.py is fixed and all tests pass."),
    ])  # fmt: skip
    model, final, ws = run_claude(tmp_path, "Fix the bug in calc.py so that the tests pass.",
                                  turns, {"calc.py": BROKEN, "test_calc.py": TEST})  # fmt: skip
    sent = blocks(model, f"{CLAIM} tests pass")
    assert sent, "the unverified claim was never sent back"
    assert (ws / "calc.py").read_text() == FIXED
    assert final == "Now calc.py is fixed and all tests pass."
    assert turns.overflow == 0


def test_claude_tool_error_is_a_failed_call(tmp_path: Path) -> None:
    turns = Turns([
        Turn(calls=(Call("Read", {"file_path": "missing.txt"}),)),
        Turn(text="Done: I created out.txt."),
        Turn(calls=(Call("Write", {"file_path": "out.txt", "content": "ok\n"}),)),
        Turn(text="Created out.txt."),
    ])  # fmt: skip
    model, final, ws = run_claude(tmp_path, "Create out.txt with the word ok in it.", turns, {})
    sent = blocks(model, REASON)
    assert sent and "1 tool call(s), 0 succeeded" in sent[0].dump
    assert (ws / "out.txt").read_text() == "ok\n"
    assert final == "Created out.txt."


def test_a_stop_the_hook_cannot_judge_is_allowed() -> None:
    hook = stop_hooks()["Stop"][0].hooks[0]
    out = asyncio.run(hook({"hook_event_name": "Stop", "cwd": "/nonexistent-dir"}, None,  # type: ignore[arg-type,typeddict-item]
                           {"signal": None}))  # fmt: skip
    assert out == {}


@pytest.fixture(autouse=True)
def _no_real_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(key, raising=False)
