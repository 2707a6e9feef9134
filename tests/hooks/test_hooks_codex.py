"""`earnest hook codex` as Codex's Stop hook runs it (input per codex-rs hooks schema)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, run_earnest

REAL_ROLLOUT = TRANSCRIPTS / "codex" / "kvsankar-real-codex-exec-session-01-redacted.jsonl"
STOP_OUTPUT_KEYS = {
    "continue",
    "decision",
    "reason",
    "stopReason",
    "suppressOutput",
    "systemMessage",
}


class Rollout:
    """A Codex rollout file (~/.codex/sessions/.../rollout-*.jsonl) and its workspace."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "repo"
        self.workspace.mkdir()
        self.path = tmp_path / "rollout-2026-01-01T00-00-00-abc.jsonl"
        self.state = tmp_path / "state"
        self.calls = 0
        self.record(
            "session_meta", {"id": "c-1", "cwd": str(self.workspace), "cli_version": "0.135.0"}
        )

    def record(self, kind: str, payload: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            line = {"timestamp": "2026-01-01T00:00:00.000Z", "type": kind, "payload": payload}
            fh.write(json.dumps(line) + "\n")

    def user(self, text: str) -> None:
        content = [{"type": "input_text", "text": text}]
        self.record("response_item", {"type": "message", "role": "user", "content": content})
        self.record("event_msg", {"type": "user_message", "message": text})

    def assistant(self, text: str) -> None:
        content = [{"type": "output_text", "text": text}]
        self.record("response_item", {"type": "message", "role": "assistant", "content": content})

    def shell(self, command: str, exit_code: int = 0, output: str = "") -> None:
        self.calls += 1
        cid = f"call_{self.calls}"
        args = json.dumps({"command": ["bash", "-lc", command], "workdir": str(self.workspace)})
        self.record(
            "response_item",
            {"type": "function_call", "name": "shell", "arguments": args, "call_id": cid},
        )
        result = json.dumps(
            {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 0.1}}
        )
        self.record(
            "response_item", {"type": "function_call_output", "call_id": cid, "output": result}
        )

    def apply_patch(self, patch: str, ok: bool = True) -> None:
        self.calls += 1
        cid = f"call_{self.calls}"
        self.record(
            "response_item",
            {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": cid},
        )
        text = "Success. Updated the following files:\nM README.md\n" if ok else "patch failed"
        result = json.dumps({"output": text, "metadata": {"exit_code": 0 if ok else 1}})
        self.record(
            "response_item", {"type": "custom_tool_call_output", "call_id": cid, "output": result}
        )

    def stop(self, last: str, *, active: bool = False, **extra: Any) -> dict[str, Any]:
        payload = {
            "session_id": "c-1",
            "turn_id": "turn-1",
            "transcript_path": str(self.path),
            "cwd": str(self.workspace),
            "hook_event_name": "Stop",
            "model": "gpt-5.5",
            "permission_mode": "default",
            "stop_hook_active": active,
            "last_assistant_message": last,
            **extra,
        }
        result = run_earnest(
            "hook", "codex", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(self.state)}
        )
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        out: dict[str, Any] = json.loads(result.stdout) if result.stdout.strip() else {}
        assert set(out) <= STOP_OUTPUT_KEYS  # Codex's output schema allows no other keys
        return out


PATCH = (
    "*** Begin Patch\n*** Update File: README.md\n@@\n-teh project\n+the project\n*** End Patch\n"
)


@pytest.fixture
def rollout(tmp_path: Path) -> Rollout:
    return Rollout(tmp_path)


def test_claim_without_tools_is_blocked(rollout: Rollout) -> None:
    rollout.user("Fix the typo in README.md.")
    rollout.assistant("Fixed the typo in README.md.")
    out = rollout.stop("Fixed the typo in README.md.")
    assert out["decision"] == "block"
    assert out["reason"].startswith("completion-without-effect")


def test_applied_patch_to_an_existing_file_is_allowed(rollout: Rollout) -> None:
    (rollout.workspace / "README.md").write_text("the project\n")
    rollout.user("Fix the typo in README.md.")
    rollout.apply_patch(PATCH)
    rollout.assistant("Fixed the typo.")
    assert rollout.stop("Fixed the typo.") == {}


def test_failed_patch_is_no_evidence(rollout: Rollout) -> None:
    (rollout.workspace / "README.md").write_text("teh project\n")
    rollout.user("Fix the typo in README.md.")
    rollout.apply_patch(PATCH, ok=False)
    rollout.assistant("Fixed the typo.")
    assert rollout.stop("Fixed the typo.")["decision"] == "block"


def test_passing_tests_satisfy_a_change_request(rollout: Rollout) -> None:
    rollout.user("Make the test suite pass.")
    rollout.shell("pytest -q", 0, "3 passed")
    rollout.assistant("All tests pass.")
    assert rollout.stop("All tests pass.") == {}


def test_read_only_question_is_allowed(rollout: Rollout) -> None:
    rollout.user("What does main.py do?")
    rollout.shell("cat main.py", 0, "print('hi')")
    rollout.assistant("It prints hi.")
    assert rollout.stop("It prints hi.") == {}


def test_budget_then_exhausted(rollout: Rollout) -> None:
    rollout.user("Fix the typo in README.md.")
    rollout.assistant("Fixed.")
    assert rollout.stop("Fixed.")["decision"] == "block"
    rollout.assistant("Fixed, really.")
    assert rollout.stop("Fixed, really.", active=True)["decision"] == "block"
    rollout.assistant("Done.")
    out = rollout.stop("Done.", active=True)
    assert "decision" not in out
    assert out["systemMessage"].startswith("earnest: effect_gate_exhausted")


def test_null_transcript_allows_with_one_stderr_line(rollout: Rollout) -> None:
    payload = {
        "session_id": "c-1",
        "turn_id": "t",
        "transcript_path": None,
        "cwd": str(rollout.workspace),
        "hook_event_name": "Stop",
        "model": "gpt-5.5",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": "Done.",
    }
    result = run_earnest(
        "hook", "codex", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(rollout.state)}
    )
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "transcript_path: null" in result.stderr


def test_subagent_stop_judges_the_child_rollout(rollout: Rollout, tmp_path: Path) -> None:
    (tmp_path / "child-root").mkdir()
    child = Rollout(tmp_path / "child-root")
    child.user("Write the release notes to NOTES.md.")
    child.assistant("Wrote NOTES.md.")
    out = rollout.stop(
        "Wrote NOTES.md.",
        hook_event_name="SubagentStop",
        agent_id="child-1",
        agent_type="worker",
        agent_transcript_path=str(child.path),
        cwd=str(rollout.workspace),
    )
    assert out["decision"] == "block"


def test_real_codex_rollout_is_allowed(tmp_path: Path) -> None:
    """The real (redacted) exec session: a prompt, a direct answer, no tool calls."""
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    text = REAL_ROLLOUT.read_text(encoding="utf-8")
    recorded = re.search(r'"cwd":"([^"]+)"', text)
    assert recorded
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(text.replace(recorded.group(1), str(workspace)))
    payload = {
        "session_id": "019e9625-802f-7e91-840a-cfe88d14117a",
        "turn_id": "019e9625-806b-7343-9798-a7ca2de29a04",
        "transcript_path": str(rollout),
        "cwd": str(workspace),
        "hook_event_name": "Stop",
        "model": "gpt-5.5",
        "permission_mode": "default",
        "stop_hook_active": False,
        "last_assistant_message": "[REDACTED_ASSISTANT_TEXT]",
    }
    result = run_earnest(
        "hook", "codex", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(tmp_path / "s")}
    )
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""


def test_a_rollout_not_yet_created_is_waited_for_not_allowed(
    rollout: Rollout, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short session's transcript may not exist when the stop is called (seen with Claude
    # Code and Copilot CLI in CI): every hook waits for it, bounded, like any other lag.
    # In-process, so that the file appears exactly when the hook first waits.
    from earnest.hooks import catchup, codex
    from earnest.hooks.state import StateStore

    rollout.user("Fix the typo in README.md.")
    rollout.assistant("Fixed the typo in README.md.")
    text = rollout.path.read_bytes()
    rollout.path.unlink()
    real_sleep = catchup.time.sleep

    def create_then_sleep(seconds: float) -> None:
        if not rollout.path.exists():
            rollout.path.write_bytes(text)
        real_sleep(seconds)

    monkeypatch.setattr(catchup.time, "sleep", create_then_sleep)
    payload = {
        "session_id": "c-1",
        "transcript_path": str(rollout.path),
        "cwd": str(rollout.workspace),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "Fixed the typo in README.md.",
    }
    out = codex.handle(json.dumps(payload).encode(), StateStore(rollout.state))
    assert json.loads(out)["decision"] == "block", out
