"""`earnest hook claude-code` as Claude Code runs it: real transcripts, real workspaces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_session import CC, Session, blocked, decision


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


def test_hello_world_without_the_script_and_without_claim_checks_allows(
    session: Session,
) -> None:
    """hello.sh is gone, but the run also *ran* it: the gate credits that successful command
    as a workspace delta it cannot tie to a file (earnest.effects' default for commands it
    does not know), so with the claim checks off the stop stands."""
    (session.workspace / ".earnest.toml").write_text("[effects]\nstrict_claims = false\n")
    session.copy_real("drmaciver-hello-world-script.jsonl")
    result = session.stop()
    assert decision(result) == {}, result.stdout


def test_hello_world_without_the_script_default_blocks(session: Session) -> None:
    """By default the final message's "Created hello.sh" is checked on disk."""
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


POEM_AGENTS = sorted(p.name for p in CC.glob("moredip-0ccf1a04.subagents.agent-*.jsonl"))


@pytest.mark.parametrize("name", POEM_AGENTS)
def test_subagents_that_wrote_a_poem_as_text_are_allowed(session: Session, name: str) -> None:
    agent = session.root / name
    agent.write_bytes((CC / name).read_bytes())
    session.copy_real("moredip-0ccf1a04-curry-poems-5-subagents.jsonl")
    agent_id = name.rsplit("agent-", 1)[1].removesuffix(".jsonl")
    result = session.stop(
        hook_event_name="SubagentStop", agent_id=agent_id, agent_transcript_path=str(agent)
    )
    # "Write a poem about Thai ... curry": the poem is the answer, not a file change; the
    # subagent searched the web for it, so the answer is grounded.
    assert result.stderr == ""
    assert decision(result) == {}


def test_subagent_asked_for_a_poem_in_a_file_that_left_nothing_is_blocked(
    session: Session,
) -> None:
    agent = session.root / "agent-a5bdbc1.jsonl"
    text = (CC / "moredip-0ccf1a04.subagents.agent-a5bdbc1.jsonl").read_text(encoding="utf-8")
    asked = "Write a poem about Thai yellow curry."
    assert asked in text
    agent.write_text(text.replace(asked, "Write a poem about Thai yellow curry into poem.md."))
    session.copy_real("moredip-0ccf1a04-curry-poems-5-subagents.jsonl")
    result = session.stop(
        hook_event_name="SubagentStop", agent_id="a5bdbc1", agent_transcript_path=str(agent)
    )
    # Now a file was asked for; the subagent only searched the web and answered.
    assert blocked(result)
    assert "completion-without-effect" in decision(result)["reason"]
    state = json.loads(next(session.state.glob("earnest-claude-code-*.json")).read_text())["state"]
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
