"""Records shaped exactly like the real agent CLIs' logs (Claude Code 2.1.197, Codex CLI
0.171.0, Gemini CLI 0.61.0), as observed driving them offline; see tests/data/hooks/SOURCE.md.

Tests build transcripts from these and run the real ``earnest`` process on them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CLAUDE_VERSION = "2.1.197"
CODEX_VERSION = "0.171.0"
GEMINI_VERSION = "0.61.0"
MODEL = "claude-sonnet-4-5-20250929"


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def earnest_reason(kind: str = "completion-without-effect") -> str:
    return (
        f"{kind}: expected a workspace_delta (a file written or changed in the workspace); "
        "no tool calls were made in this run (earnest stop hook: make the change in the "
        "workspace, or run the check, before saying it is done — or tell the user plainly "
        "what was not done.)"
    )


# ---------------------------------------------------------------------------- Claude Code


class ClaudeStream:
    """``claude -p ... --output-format stream-json --verbose`` stdout (no prompt in it)."""

    def __init__(self, session: str = "5d1c7a52-0b1e-4d7e-9d5c-3f1b2a9c0e11", cwd: str = "/w"):
        self.session = session
        self.records: list[dict[str, Any]] = [
            {
                "type": "system",
                "subtype": "init",
                "cwd": cwd,
                "session_id": session,
                "tools": ["Agent", "Bash", "Edit", "Read", "Write"],
                "mcp_servers": [],
                "model": MODEL,
                "permissionMode": "acceptEdits",
                "apiKeySource": "ANTHROPIC_API_KEY",
                "claude_code_version": CLAUDE_VERSION,
                "output_style": "default",
                "uuid": "init-0",
            }
        ]
        self._n = 0

    def _id(self) -> str:
        self._n += 1
        return f"{self._n:08d}-0000-4000-8000-000000000000"

    def say(self, text: str) -> None:
        self.records.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{self._n:04d}",
                    "type": "message",
                    "role": "assistant",
                    "model": MODEL,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": None,
                    "usage": {"input_tokens": 12, "output_tokens": 7},
                },
                "parent_tool_use_id": None,
                "session_id": self.session,
                "uuid": self._id(),
            }
        )

    def hook_feedback(self, reason: str, command: str = "earnest hook claude-code") -> None:
        """How Claude Code feeds a Stop hook's block back: a synthetic user event."""
        self.records.append(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"Stop hook feedback:\n[{command}]: {reason}"}
                    ],
                },
                "parent_tool_use_id": None,
                "session_id": self.session,
                "uuid": self._id(),
                "isSynthetic": True,
            }
        )

    def result(self, text: str, turns: int) -> None:
        self.records.append(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "duration_ms": 1200,
                "num_turns": turns,
                "result": text,
                "session_id": self.session,
                "total_cost_usd": 0.0,
                "uuid": self._id(),
            }
        )


# ---------------------------------------------------------------------------- Codex


class CodexRollout:
    """``$CODEX_HOME/sessions/.../rollout-*.jsonl`` as Codex 0.171 writes it."""

    def __init__(self, cwd: str, session: str = "019e9625-802f-7e91-840a-cfe88d14117a") -> None:
        self.cwd = cwd
        self.turn = "019e9625-806b-7343-9798-a7ca2de29a04"
        self.records: list[dict[str, Any]] = [
            self._rec(
                "session_meta",
                {
                    "id": session,
                    "timestamp": "2026-12-01T10:00:00.000Z",
                    "cwd": cwd,
                    "originator": "codex_exec",
                    "cli_version": CODEX_VERSION,
                    "source": "exec",
                    "model_provider": "fake",
                },
            ),
            self._rec("event_msg", {"type": "task_started", "turn_id": self.turn}),
            self._rec(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": f"<environment_context>\n  <cwd>{cwd}</cwd>\n</environment_context>",
                        }
                    ],
                },
            ),
            self._rec("turn_context", {"turn_id": self.turn, "cwd": cwd, "model": "fake-model"}),
        ]
        self._calls = 0

    @staticmethod
    def _rec(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2026-12-01T10:00:01.000Z", "type": kind, "payload": payload}

    def user(self, text: str) -> None:
        self.records.append(
            self._rec(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                },
            )
        )
        self.records.append(self._rec("event_msg", {"type": "user_message", "message": text}))

    def hook_prompt(self, reason: str) -> None:
        """How Codex records a Stop hook's block: a user message in the same turn."""
        self.user(f'<hook_prompt hook_run_id="stop:0:{self.turn}">{reason}</hook_prompt>')

    def say(self, text: str) -> None:
        self.records.append(
            self._rec(
                "response_item",
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text}],
                },
            )
        )

    def exec_command(self, cmd: str, output: str, exit_code: int | None = 0) -> None:
        """A model without the freeform patch tool runs everything through exec_command.

        ``exit_code=None``: the output as Codex records an apply_patch it intercepted and
        could not apply, bare text with no header."""
        self._calls += 1
        call_id = f"call_{self._calls:03d}"
        self.records.append(
            self._rec(
                "response_item",
                {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": json.dumps({"cmd": cmd, "workdir": self.cwd}),
                    "call_id": call_id,
                },
            )
        )
        text = (
            output
            if exit_code is None
            else f"Chunk ID: {self._calls:06x}\nWall time: 0.0100 seconds\n"
            f"Process exited with code {exit_code}\nOriginal token count: 20\nOutput:\n{output}"
        )
        self.records.append(
            self._rec(
                "response_item",
                {"type": "function_call_output", "call_id": call_id, "output": text},
            )
        )

    def complete(self, last: str) -> None:
        self.records.append(
            self._rec(
                "event_msg",
                {"type": "task_complete", "turn_id": self.turn, "last_agent_message": last},
            )
        )

    def stop_input(self, path: Path, last: str, *, active: bool = False) -> str:
        return json.dumps(
            {
                "session_id": "019e9625-802f-7e91-840a-cfe88d14117a",
                "turn_id": self.turn,
                "transcript_path": str(path),
                "cwd": self.cwd,
                "hook_event_name": "Stop",
                "model": "fake-model",
                "permission_mode": "default",
                "stop_hook_active": active,
                "last_assistant_message": last,
            }
        )


def apply_patch_command(path: str, body: str) -> str:
    lines = "".join(f"+{line}\n" for line in body.splitlines())
    return (
        f"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\nEOF\n"
    )


READ_ONLY_REFUSAL = (
    "patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings"
)


# ---------------------------------------------------------------------------- Gemini CLI


class GeminiChat:
    """``~/.gemini/tmp/<project>/chats/session-<ts>-<id>.jsonl`` as Gemini CLI 0.61 writes it:
    a header line, one record per message (rewritten under the same id as it grows), and
    ``$set`` metadata updates."""

    SESSION = "a1b2c3d4-0000-4000-8000-00000000beef"

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.records: list[dict[str, Any]] = [
            {
                "sessionId": self.SESSION,
                "projectHash": "9f" * 32,
                "startTime": "2026-12-01T10:00:00.000Z",
                "lastUpdated": "2026-12-01T10:00:00.000Z",
                "kind": "main",
            }
        ]
        self._n = 0

    def _stamp(self) -> str:
        from datetime import UTC, datetime

        return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def user(self, text: str) -> None:
        self._n += 1
        self.records.append(
            {
                "id": f"u{self._n}",
                "timestamp": self._stamp(),
                "type": "user",
                "content": [{"text": text}],
            }
        )
        self.records.append({"$set": {"lastUpdated": self._stamp()}})

    def gemini(self, text: str, tool_calls: list[dict[str, Any]] | None = None) -> None:
        """A model message: first written empty, then rewritten whole under the same id."""
        self._n += 1
        mid = f"g{self._n}"
        base = {"id": mid, "timestamp": self._stamp(), "type": "gemini", "model": "gemini-2.5-pro"}
        self.records.append({**base, "content": ""})
        full: dict[str, Any] = {
            **base,
            "content": text,
            "thoughts": [],
            "tokens": {"input": 9, "output": 4, "cached": 0, "total": 13},
        }
        if tool_calls:
            full["toolCalls"] = tool_calls
        self.records.append(full)
        self.records.append({"$set": {"lastUpdated": self._stamp()}})

    @staticmethod
    def tool_call(
        name: str, args: dict[str, Any], output: str, status: str = "success"
    ) -> dict[str, Any]:
        key = "output" if status == "success" else "error"
        return {
            "id": f"{name}-1764583200000-0",
            "name": name,
            "args": args,
            "result": [
                {"functionResponse": {"id": f"{name}-1", "name": name, "response": {key: output}}}
            ],
            "status": status,
            "timestamp": "2026-12-01T10:00:02.000Z",
            "displayName": name,
            "resultDisplay": output,
        }

    def after_agent(self, path: Path, prompt: str, response: str, *, active: bool = False) -> str:
        return json.dumps(
            {
                "session_id": self.SESSION,
                "transcript_path": str(path),
                "cwd": self.cwd,
                "hook_event_name": "AfterAgent",
                "timestamp": self._stamp(),
                "prompt": prompt,
                "prompt_response": response,
                "stop_hook_active": active,
            }
        )
