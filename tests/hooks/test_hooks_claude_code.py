"""`earnest hook claude-code` as Claude Code runs it: real transcripts, real workspaces."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, require_shared, run_earnest

CC = TRANSCRIPTS / "claude-code"


@pytest.fixture(autouse=True)
def _shared() -> None:
    require_shared()


class Session:
    """One Claude Code session: a workspace, its transcript and the hook's state folder."""

    def __init__(self, tmp_path: Path, session_id: str = "sess-1") -> None:
        self.root = tmp_path
        self.workspace = tmp_path / "workspace"
        self.workspace.mkdir()
        self.state = tmp_path / "state"
        self.transcript = tmp_path / "transcript.jsonl"
        self.session_id = session_id
        self.count = 0

    def copy_real(self, name: str) -> None:
        """The real transcript, moved from the folder it was recorded in to our workspace."""
        text = (CC / name).read_text(encoding="utf-8")
        recorded = re.search(r'"cwd":"([^"]+)"', text)
        if recorded:
            text = text.replace(recorded.group(1), str(self.workspace))
        self.transcript.write_text(text, encoding="utf-8")

    def append(self, *records: dict[str, Any]) -> None:
        with self.transcript.open("a", encoding="utf-8") as fh:
            for record in records:
                base = {
                    "sessionId": self.session_id,
                    "cwd": str(self.workspace),
                    "uuid": f"u-{self.count}",
                    "timestamp": f"2026-01-01T00:00:{self.count:02d}Z",
                    "isSidechain": False,
                }
                self.count += 1
                fh.write(json.dumps({**base, **record}) + "\n")

    def prompt(self, text: str) -> None:
        self.append({"type": "user", "message": {"role": "user", "content": text}})

    def say(self, text: str) -> None:
        self.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg-{self.count}",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                },
            }
        )

    def tool(self, name: str, args: dict[str, Any], output: str, structured: Any = None) -> None:
        tid = f"toolu-{self.count}"
        self.append(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg-{self.count}",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": tid, "name": name, "input": args}],
                },
            }
        )
        record: dict[str, Any] = {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tid, "content": output}],
            },
        }
        if structured is not None:
            record["toolUseResult"] = structured
        self.append(record)

    def stop(self, *, active: bool = False, **extra: Any) -> subprocess.CompletedProcess[str]:
        payload = {
            "session_id": self.session_id,
            "transcript_path": str(self.transcript),
            "cwd": str(self.workspace),
            "hook_event_name": "Stop",
            "stop_hook_active": active,
            **extra,
        }
        result = run_earnest(
            "hook",
            "claude-code",
            input=json.dumps(payload),
            env={"EARNEST_STATE_DIR": str(self.state)},
        )
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stderr
        return result

    def state_file(self) -> dict[str, Any]:
        (path,) = [p for p in self.state.glob("claude-code-*.json")]
        data: dict[str, Any] = json.loads(path.read_text())["state"]
        return data


def decision(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The hook's JSON (``{}`` for a plain allow)."""
    out = result.stdout.strip()
    return json.loads(out) if out else {}


def blocked(result: subprocess.CompletedProcess[str]) -> bool:
    return decision(result).get("decision") == "block"


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session(tmp_path)


# ------------------------------------------------------------------------ real transcripts


def test_hello_world_with_the_script_on_disk_is_allowed(session: Session) -> None:
    session.copy_real("drmaciver-hello-world-script.jsonl")
    (session.workspace / "hello.sh").write_text('#!/bin/bash\necho "Hello world"\n')
    result = session.stop()
    assert decision(result) == {}, result.stdout
    assert result.stderr == ""


def test_hello_world_without_the_script_default_allows(session: Session) -> None:
    """hello.sh is gone, but the run also *ran* it: the gate credits that successful command
    as a workspace delta it cannot tie to a file (earnest.effects' default for commands it
    does not know), so by default the stop stands."""
    session.copy_real("drmaciver-hello-world-script.jsonl")
    result = session.stop()
    assert decision(result) == {}, result.stdout


def test_hello_world_without_the_script_strict_claims_blocks(session: Session) -> None:
    """With strict claims the final message's "Created hello.sh" is checked on disk."""
    (session.workspace / ".earnest.toml").write_text("[effects]\nstrict_claims = true\n")
    session.copy_real("drmaciver-hello-world-script.jsonl")
    result = session.stop()
    assert blocked(result), result.stdout + result.stderr
    reason = decision(result)["reason"]
    assert reason.startswith("unverified-claim: created")
    assert "hello.sh" in reason
    # With the script there, the same claim holds.
    (session.workspace / "hello.sh").write_text('#!/bin/bash\necho "Hello world"\n')
    assert decision(session.stop()) == {}


def test_hello_world_without_the_script_blocks_when_unknown_commands_do_not_count(
    session: Session,
) -> None:
    (session.workspace / "earnest.toml").write_text('[effects]\nunknown_shell = "ignore"\n')
    session.copy_real("drmaciver-hello-world-script.jsonl")
    result = session.stop()
    assert blocked(result)
    reason = decision(result)["reason"]
    assert reason.startswith("completion-without-effect")
    assert "hello.sh (not found)" in reason


def test_pure_chat_hi_is_allowed(session: Session) -> None:
    session.copy_real("mclaude-91b751c5-d980--hi-QA.jsonl")
    assert decision(session.stop()) == {}


def test_read_only_question_is_allowed_as_a_grounded_claim(session: Session) -> None:
    session.copy_real("drmaciver-stop-hook-fast-path-clean.jsonl")
    (session.workspace / "README.md").write_text("# Test Project\n")
    assert decision(session.stop()) == {}


def test_edit_whose_file_exists_and_changed_is_allowed(session: Session) -> None:
    session.copy_real("drmaciver-stop-hook-uncommitted-changes.jsonl")
    (session.workspace / "src").mkdir()
    (session.workspace / "src" / "main.py").write_text(
        '"""Main module for the application."""\n\nprint("hello")\n'
    )
    assert decision(session.stop()) == {}


def test_subagent_stop_reads_the_subagent_transcript(session: Session) -> None:
    agent = session.root / "agent-a2018e5.jsonl"
    agent.write_bytes((CC / "moredip-4b2030ed.subagents.agent-a2018e5.jsonl").read_bytes())
    session.copy_real("moredip-4b2030ed-curry-popularity-QA-1-subagent.jsonl")
    result = session.stop(
        hook_event_name="SubagentStop", agent_id="a2018e5", agent_transcript_path=str(agent)
    )
    assert decision(result) == {}  # a web search answering a question: grounded
    assert result.stderr == ""


def test_subagent_stop_without_its_transcript_is_allowed(session: Session) -> None:
    session.copy_real("moredip-4b2030ed-curry-popularity-QA-1-subagent.jsonl")
    result = session.stop(hook_event_name="SubagentStop", agent_id="a2018e5")
    assert decision(result) == {}
    assert "agent_transcript_path" in result.stderr


def test_transcript_with_broken_lines_is_judged(session: Session) -> None:
    """35 lines of this session do not parse; its last run ("force push") pushed with git."""
    session.copy_real("mclaude-3af9b1a7-6512--sync-repo-compacted.jsonl")
    result = session.stop()
    assert result.stderr == ""
    assert decision(result) == {}


def test_subagent_asked_for_work_that_left_nothing_is_blocked(session: Session) -> None:
    agent = session.root / "agent-a5bdbc1.jsonl"
    agent.write_bytes((CC / "moredip-0ccf1a04.subagents.agent-a5bdbc1.jsonl").read_bytes())
    session.copy_real("moredip-0ccf1a04-curry-poems-5-subagents.jsonl")
    result = session.stop(
        hook_event_name="SubagentStop", agent_id="a5bdbc1", agent_transcript_path=str(agent)
    )
    # "Write a poem ..." reads as a change request to earnest.effects; the subagent only
    # searched the web and answered, so nothing in the workspace backs it.
    assert blocked(result)
    assert "completion-without-effect" in decision(result)["reason"]
    state = json.loads(next(session.state.glob("claude-code-*.json")).read_text())["state"]
    assert state["agent_id"] == "a5bdbc1" and state["blocks"] == 1


# ------------------------------------------------------------------------ synthetic runs


def test_claim_without_any_tool_call_after_a_change_request_is_blocked(session: Session) -> None:
    (session.workspace / "app.py").write_text("def total(xs):\n    return sum(xs) + 1\n")
    session.prompt("Fix the off-by-one bug in total() in app.py.")
    session.say("I've fixed the bug: total() now returns the exact sum.")
    result = session.stop()
    assert blocked(result)
    assert decision(result)["reason"].startswith("completion-without-effect")


def test_real_edit_satisfies_a_change_request(session: Session) -> None:
    target = session.workspace / "app.py"
    target.write_text("def total(xs):\n    return sum(xs)\n")
    session.prompt("Fix the off-by-one bug in total() in app.py.")
    session.tool(
        "Edit",
        {"file_path": str(target), "old_string": "sum(xs) + 1", "new_string": "sum(xs)"},
        f"The file {target} has been updated.",
        {"filePath": str(target), "oldString": "sum(xs) + 1", "newString": "sum(xs)"},
    )
    session.say("I've fixed the bug.")
    assert decision(session.stop()) == {}


def test_goal_file_untouched_since_the_prompt_does_not_count(session: Session) -> None:
    """The transcript dates the prompt; a file older than it was not changed by this run."""
    import time
    from datetime import UTC, datetime

    target = session.workspace / "app.py"
    target.write_text("def total(xs):\n    return sum(xs)\n")
    time.sleep(2.3)  # beyond the gate's clock slop
    stamp = datetime.now(UTC).isoformat()
    session.append(
        {
            "type": "user",
            "timestamp": stamp,
            "message": {"role": "user", "content": "Fix total() in app.py."},
        }
    )
    session.tool(
        "Edit",
        {"file_path": str(target), "old_string": "+ 1", "new_string": ""},
        f"The file {target} has been updated.",
        {"filePath": str(target)},
    )
    session.say("Fixed total() in app.py.")
    result = session.stop()
    assert blocked(result)
    assert "unchanged since the run began" in decision(result)["reason"]
    target.write_text("def total(xs):\n    return sum(xs)  # fixed\n")
    assert decision(session.stop()) == {}


def test_write_outside_the_workspace_does_not_count(session: Session) -> None:
    outside = session.root / "elsewhere.txt"
    outside.write_text("notes\n")
    session.prompt("Write the meeting notes to a new file notes.txt.")
    session.tool(
        "Write",
        {"file_path": str(outside), "content": "notes\n"},
        f"File created successfully at: {outside}",
        {"type": "create", "filePath": str(outside), "content": "notes\n"},
    )
    session.say("Done: the notes are written.")
    assert blocked(session.stop())


def test_last_assistant_message_is_the_claim_when_the_transcript_lags(session: Session) -> None:
    session.prompt("Add a CHANGELOG entry for version 1.2.")
    result = session.stop(last_assistant_message="Added the CHANGELOG entry.")
    assert blocked(result)


# ------------------------------------------------------------------------ budget


def _unfinished_change(session: Session) -> None:
    session.prompt("Rename the function foo to bar in lib.py.")
    session.say("Renamed foo to bar.")


def test_budget_two_blocks_then_allowed_with_exhausted_note(session: Session) -> None:
    _unfinished_change(session)
    first = session.stop()
    assert blocked(first)
    session.append(
        {
            "type": "user",
            "isMeta": True,
            "message": {
                "role": "user",
                "content": "Stop hook feedback:\n" + decision(first)["reason"],
            },
        }
    )
    session.say("Renamed foo to bar, as requested.")
    second = session.stop(active=True)
    assert blocked(second)
    session.say("It is renamed.")
    third = session.stop(active=True)
    assert not blocked(third)
    assert "effect_gate_exhausted" in decision(third)["systemMessage"]
    state = session.state_file()
    assert state["blocks"] == 2 and state["last_decision"] == "effect_gate_exhausted"


def test_a_new_user_prompt_resets_the_budget(session: Session) -> None:
    _unfinished_change(session)
    assert blocked(session.stop())
    assert blocked(session.stop(active=True))
    assert not blocked(session.stop(active=True))
    session.prompt("Now also rename baz to qux in lib.py.")
    session.say("Renamed baz to qux.")
    assert blocked(session.stop())
    assert session.state_file()["blocks"] == 1


def test_stop_hook_active_never_lets_blocks_exceed_the_budget(session: Session) -> None:
    """Even if every continuation looked like a new prompt, blocks stop at the budget."""
    _unfinished_change(session)
    outcomes = []
    for i in range(6):
        outcomes.append(blocked(session.stop(active=i > 0)))
        session.prompt(f"(continuation {i}) Rename the function foo to bar in lib.py.")
        session.say("Renamed.")
    assert outcomes[:3] == [True, True, False]


def test_budget_from_project_config(session: Session) -> None:
    (session.workspace / ".earnest.toml").write_text("[hooks]\nmax_downgrades = 1\n")
    _unfinished_change(session)
    assert blocked(session.stop())
    result = session.stop(active=True)
    assert not blocked(result) and "effect_gate_exhausted" in result.stdout


def test_zero_budget_only_annotates(session: Session) -> None:
    (session.workspace / "earnest.toml").write_text("[effects]\nmax_downgrades = 0\n")
    _unfinished_change(session)
    result = session.stop()
    assert not blocked(result)
    assert "effect_gate_exhausted" in decision(result)["systemMessage"]


def test_disabled_in_project_config(session: Session) -> None:
    (session.workspace / "earnest.toml").write_text("[hooks]\nenabled = false\n")
    _unfinished_change(session)
    result = session.stop()
    assert result.stdout == "" and result.stderr == ""


def test_state_offset_advances_between_stops(session: Session) -> None:
    _unfinished_change(session)
    session.stop()
    first = session.state_file()["offset"]
    assert first == session.transcript.stat().st_size
    session.say("Still renamed.")
    session.stop(active=True)
    second = session.state_file()["offset"]
    assert second == session.transcript.stat().st_size > first
