"""`earnest hook gemini` as Gemini CLI's AfterAgent hook runs it (hook input per its docs)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, run_earnest

REAL_SESSION = TRANSCRIPTS / "gemini-cli" / "metaphi-native-chat-session-7befeae5.json"


class GeminiSession:
    """A Gemini CLI session: its chat log (session-*.json) and a workspace."""

    def __init__(self, tmp_path: Path, indent: int | None = None) -> None:
        self.indent = indent  # 2: as Gemini CLI writes it (the hook parses only the run)
        self.workspace = tmp_path / "project"
        self.workspace.mkdir()
        self.log = tmp_path / "chats" / "session-2026-01-01T00-00-abc.json"
        self.log.parent.mkdir()
        self.state = tmp_path / "state"
        self.messages: list[dict[str, Any]] = []

    def save(self) -> None:
        self.log.write_text(
            json.dumps(
                {"sessionId": "g-1", "projectHash": "h", "messages": self.messages},
                indent=self.indent,
            )
        )

    def user(self, text: str) -> None:
        self.messages.append(
            {"id": f"m{len(self.messages)}", "type": "user", "content": text,
             "timestamp": "2026-01-01T00:00:00.000Z"}
        )  # fmt: skip
        self.save()

    def gemini(self, text: str, calls: list[dict[str, Any]] | None = None) -> None:
        self.messages.append(
            {"id": f"m{len(self.messages)}", "type": "gemini", "content": text,
             "toolCalls": calls or [], "timestamp": "2026-01-01T00:00:01.000Z"}
        )  # fmt: skip
        self.save()

    def after_agent(self, prompt: str, response: str, *, active: bool = False) -> dict[str, Any]:
        payload = {
            "session_id": "g-1",
            "transcript_path": str(self.log),
            "cwd": str(self.workspace),
            "hook_event_name": "AfterAgent",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "prompt": prompt,
            "prompt_response": response,
            "stop_hook_active": active,
        }
        result = run_earnest(
            "hook", "gemini", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(self.state)}
        )
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
        out: dict[str, Any] = json.loads(result.stdout)  # Gemini always gets JSON
        return out


def write_call(path: str, content: str, status: str = "success") -> dict[str, Any]:
    return {
        "id": f"write-{path}",
        "name": "write_file",
        "args": {"file_path": path, "content": content},
        "status": status,
        "result": [{"functionResponse": {"response": {"output": f"Wrote {path}"}}}],
    }


@pytest.fixture(params=[2, None], ids=["indented", "compact"])
def gemini(tmp_path: Path, request: pytest.FixtureRequest) -> GeminiSession:
    """Each test on the session laid out as Gemini CLI writes it (read from the run's prompt)
    and compact (read whole)."""
    return GeminiSession(tmp_path, request.param)


def test_claim_without_tools_is_denied_in_geminis_dialect(gemini: GeminiSession) -> None:
    gemini.user("Add a LICENSE file with the MIT license.")
    gemini.gemini("I've added the MIT LICENSE file.")
    out = gemini.after_agent(
        "Add a LICENSE file with the MIT license.", "I've added the MIT LICENSE file."
    )
    assert out["decision"] == "deny"
    assert out["reason"].startswith("completion-without-effect")


def test_written_file_that_exists_is_allowed(gemini: GeminiSession) -> None:
    gemini.user("Add a LICENSE file with the MIT license.")
    gemini.gemini("", [write_call("LICENSE", "MIT License\n")])
    gemini.gemini("Added LICENSE.")
    (gemini.workspace / "LICENSE").write_text("MIT License\n")
    assert gemini.after_agent("Add a LICENSE file with the MIT license.", "Added LICENSE.") == {}


def test_failed_write_is_no_evidence(gemini: GeminiSession) -> None:
    gemini.user("Add a LICENSE file with the MIT license.")
    gemini.gemini("", [write_call("LICENSE", "MIT License\n", status="error")])
    gemini.gemini("Added LICENSE.")
    assert gemini.after_agent("Add a LICENSE file.", "Added LICENSE.")["decision"] == "deny"


def test_question_is_allowed(gemini: GeminiSession) -> None:
    gemini.user("What does this project do?")
    gemini.gemini(
        "",
        [
            {
                "id": "r1",
                "name": "read_file",
                "args": {"file_path": "README.md"},
                "status": "success",
                "result": [{"functionResponse": {"response": {"output": "# Demo"}}}],
            }
        ],
    )
    gemini.gemini("It is a demo.")
    assert gemini.after_agent("What does this project do?", "It is a demo.") == {}


def test_retry_prompt_keeps_the_budget_of_the_original_request(gemini: GeminiSession) -> None:
    """Gemini sends the deny reason back as a prompt; it must not refill the budget."""
    gemini.user("Add a LICENSE file.")
    gemini.gemini("Added LICENSE.")
    first = gemini.after_agent("Add a LICENSE file.", "Added LICENSE.")
    assert first["decision"] == "deny"
    gemini.user(first["reason"])
    gemini.gemini("It is added.")
    second = gemini.after_agent(first["reason"], "It is added.", active=True)
    assert second["decision"] == "deny"
    gemini.user(second["reason"])
    gemini.gemini("Really added.")
    third = gemini.after_agent(second["reason"], "Really added.", active=True)
    assert "decision" not in third
    assert "effect_gate_exhausted" in third["systemMessage"]


def test_retry_without_the_flag_still_counts_against_the_request(gemini: GeminiSession) -> None:
    gemini.user("Add a LICENSE file.")
    gemini.gemini("Added LICENSE.")
    reason = gemini.after_agent("Add a LICENSE file.", "Added LICENSE.")["reason"]
    for _ in range(2):
        gemini.user(reason)
        gemini.gemini("Added it.")
        out = gemini.after_agent(reason, "Added it.", active=False)
        reason = out.get("reason", reason)
    assert "effect_gate_exhausted" in out["systemMessage"]


def test_unreadable_log_allows_with_one_stderr_line(gemini: GeminiSession) -> None:
    gemini.log.write_text("\x00\x01 not a chat log")
    payload = {
        "session_id": "g-1",
        "transcript_path": str(gemini.log),
        "cwd": str(gemini.workspace),
        "hook_event_name": "AfterAgent",
        "prompt": "Add a LICENSE file.",
        "prompt_response": "Done.",
        "stop_hook_active": False,
    }
    result: subprocess.CompletedProcess[str] = run_earnest(
        "hook", "gemini", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(gemini.state)}
    )
    assert result.returncode == 0 and "deny" not in result.stdout
    assert len(result.stderr.strip().splitlines()) == 1
    assert "is not one of gemini-cli-session" in result.stderr


def test_other_events_are_left_alone(gemini: GeminiSession) -> None:
    payload = {"session_id": "g-1", "cwd": str(gemini.workspace), "hook_event_name": "BeforeTool"}
    result = run_earnest("hook", "gemini", input=json.dumps(payload))
    assert result.returncode == 0 and json.loads(result.stdout) == {} and result.stderr == ""


def test_real_gemini_session_is_allowed_on_its_build(gemini: GeminiSession) -> None:
    """The real session ran `npm run build` successfully: a verified check, whatever the
    (empty) workspace holds now."""
    data = json.loads(REAL_SESSION.read_text())
    gemini.log.write_text(json.dumps(data, indent=gemini.indent))
    prompt = data["messages"][0]["content"]
    final = data["messages"][-1]["content"]
    assert gemini.after_agent(prompt, final) == {}


def test_real_gemini_session_without_its_build_is_denied(gemini: GeminiSession) -> None:
    """The same session with every shell command failed: what it wrote is not in this
    workspace, so its claim of a finished dashboard has nothing behind it."""
    data = json.loads(REAL_SESSION.read_text())
    for message in data["messages"]:
        for call in message.get("toolCalls") or []:
            if call["name"] == "run_shell_command":
                call["status"] = "error"
    gemini.log.write_text(json.dumps(data, indent=gemini.indent))
    out = gemini.after_agent(data["messages"][0]["content"], data["messages"][-1]["content"])
    assert out.get("decision") == "deny", out
    assert "no file change held up in the workspace" in out["reason"]
