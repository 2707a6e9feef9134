"""Claude Code session transcripts: real sessions from tests/data/transcripts, and odd shapes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, read_claude_code_from, read_claude_run
from earnest.trajectory.readers import read_trajectories

CC = TRANSCRIPTS / "claude-code"


def one(path: Path, report: ReadReport | None = None) -> Any:
    found = list(read_trajectories(path, report=report if report is not None else ReadReport()))
    assert len(found) == 1
    return found[0]


def write_lines(path: Path, records: list[Any], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail)
    return path


def user(content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "sessionId": "s",
        "message": {"role": "user", "content": content},
        **extra,
    }


def assistant(mid: str, blocks: list[Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "assistant",
        "sessionId": "s",
        "message": {"id": mid, "model": "claude-x", "role": "assistant", "content": blocks},
        **extra,
    }


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def tool_use(tid: str, name: str, **inp: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


def result(tid: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": is_error}


# -- real sessions --------------------------------------------------------------------


def test_coverage_fix_session_claims_completion_backed_by_edits_and_pytest() -> None:
    t = one(CC / "drmaciver-coverage-test-fix.jsonl")
    names = Counter(c.name for c in t.tool_calls)
    assert names["Edit"] == 3
    assert len(t.file_edits) == 3 and {e.kind for e in t.file_edits} == {"modify"}
    pytest_calls = [c for c in t.tool_calls if "pytest" in c.arguments.get("command", "")]
    assert pytest_calls and pytest_calls[0].outcome == "success"
    assert sum(c.outcome == "error" for c in t.tool_calls) == 1
    assert "The task is complete" in t.final_message
    assert t.termination.reason == "normal" and t.claimed_completion
    assert t.user_request.startswith("Add a function called multiply_numbers")
    assert t.id == "c64cc478-3430-40fe-8e9c-4ee9986e9754"
    assert all(c.as_tool_result()["tool_name"] for c in t.tool_calls)


def test_split_api_messages_are_one_turn_each() -> None:
    path = CC / "willitrain-33c772d9-windows-ide.jsonl"
    lines = [json.loads(x) for x in path.read_bytes().splitlines() if x.strip()]
    assistant_lines = [x for x in lines if x.get("type") == "assistant"]
    ids = {x["message"]["id"] for x in assistant_lines}
    assert (len(assistant_lines), len(ids)) == (212, 154)
    t = one(path)
    synthetic = [m for m in t.messages if m.kind == "synthetic"]
    assert len(synthetic) == 1  # the 154th id is the CLI's "You've hit your limit"
    assert t.metadata["assistant_turns"] == 153
    tool_ids = [c.id for c in t.tool_calls]
    assert len(tool_ids) == len(set(tool_ids))


def test_usage_limit_is_a_termination_not_a_completion() -> None:
    t = one(CC / "willitrain-33c772d9-windows-ide.jsonl")
    assert t.termination.reason == "usage_limit"
    assert "hit your limit" in t.termination.detail
    assert t.final_message is None or "hit your limit" not in t.final_message
    assert not t.claimed_completion
    assert t.metadata["compactions"] == 1
    assert not t.user_request.startswith("This session is being continued")


def test_inline_sidechains_are_flagged() -> None:
    t = one(CC / "kimuson-fe5e1c67-orchestrator-nextjs-todo-sidechains.jsonl")
    side = [c for c in t.tool_calls if c.is_sidechain]
    main = [c for c in t.tool_calls if not c.is_sidechain]
    assert side and main and len(side) > len(main)
    assert any(m.is_sidechain for m in t.messages)
    assert not any(
        m.is_sidechain for m in t.messages if m.kind == "prompt" and m.text == t.user_request
    )
    assert t.final_message and not t.final_message.startswith("[")
    assert sum(c.outcome == "error" for c in t.tool_calls) == 23


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("mclaude-3af9b1a7-6512--sync-repo-compacted.jsonl", 35),
        ("mclaude-554b9fa6-f719--sisyphus-plan-many-errors.jsonl", 28),
        ("mclaude-18240050-3ee8--create-app-shortcut.jsonl", 5),
        ("mclaude-57bb5674-54b1--tmux-QA-then-sync-push.jsonl", 6),
    ],
)
def test_invalid_json_lines_are_counted_and_skipped(name: str, bad: int) -> None:
    report = ReadReport()
    t = one(CC / name, report)
    assert report.skipped_lines == bad
    assert report.warnings and report.warnings[0].file.endswith(name)
    assert report.warnings[0].line is not None and "malformed JSON" in report.warnings[0].message
    assert t.tool_calls  # the rest was read


def test_session_with_only_api_errors_ended_abnormally() -> None:
    t = one(CC / "mclaude-412e2513-f75c--only-api-errors.jsonl")
    assert not any(m.role == "assistant" for m in t.messages)
    assert t.termination.reason == "api_error"
    assert t.user_request == "investigate last hard reboot"
    assert t.final_message is None and not t.claimed_completion


def test_request_timed_out_is_an_api_error() -> None:
    t = one(CC / "mclaude-1c7cbf4e-801e--ssh-firewall-api-timeouts.jsonl")
    assert (t.termination.reason, t.termination.detail) == ("api_error", "Request timed out")


def test_out_of_extra_usage_is_a_usage_limit() -> None:
    t = one(CC / "mclaude-554b9fa6-f719--sisyphus-plan-many-errors.jsonl")
    assert t.termination.reason == "usage_limit"
    assert sum(c.outcome == "error" for c in t.tool_calls) >= 90


def test_subagent_files_are_their_own_trajectories() -> None:
    t = one(CC / "moredip-0ccf1a04.subagents.agent-a5bdbc1.jsonl")
    assert t.id == "0ccf1a04-1b4c-43b6-8aa5-79e41db43a68:agent-a5bdbc1"
    assert all(m.is_sidechain for m in t.messages)
    assert t.user_request.startswith("Write a poem about Thai yellow curry")
    assert [c.name for c in t.tool_calls] == ["WebSearch"] and t.termination.is_normal
    old = one(CC / "mclaude-agent-abc3cb6-explore-subagent-v2.0.72.jsonl")
    assert old.final_message and old.termination.is_normal
    warmup = one(CC / "mclaude-agent-a54e5f8-warmup-subagent.jsonl")
    assert warmup.user_request == "Warmup" and warmup.termination.reason == "unknown"


def test_comment_lines_and_images_in_tool_results() -> None:
    report = ReadReport()
    t = one(CC / "moredip-fixture-images-in-tool-results.jsonl", report)
    assert report.comment_lines == 2 and report.skipped_lines == 0
    (call,) = t.tool_calls
    assert call.name.startswith("mcp__") and call.outcome == "success"
    assert "[image]" in call.output_excerpt and len(call.output_excerpt) < 3000
    assert t.metadata["images"] == 1


def test_image_in_user_prompt_and_slash_command_expansion() -> None:
    t = one(CC / "moredip-fixture-images-in-user-messages.jsonl")
    prompts = [m for m in t.messages if m.kind == "prompt"]
    assert any("[image]" in m.text for m in prompts)
    init = one(CC / "kimuson-1af7fc5e-init-empty-repo.jsonl")
    assert init.user_request.startswith("Please analyze this codebase and create a CLAUDE.md")
    assert [e for e in init.tool_calls if e.name == "Write"]


def test_summaries_only_session_has_no_request_and_no_completion() -> None:
    t = one(CC / "mclaude-d9c6fe1d-de36--many-summaries-local-cmd.jsonl")
    assert t.metadata["summaries"] == 54
    assert t.user_request is None and t.final_message is None
    assert t.termination.reason == "unknown"


def test_write_results_refine_the_edit_kind() -> None:
    t = one(CC / "drmaciver-hello-world-script.jsonl")
    (edit,) = t.file_edits
    assert edit.path.endswith("hello.sh") and edit.kind == "create"
    bash = next(c for c in t.tool_calls if c.name == "Bash")
    assert "Hello world" in bash.output_excerpt and bash.outcome == "success"
    assert "stdout" not in bash.details or isinstance(bash.details["stdout"], str)


# -- hand-made odd shapes ---------------------------------------------------------------


def test_unknown_blocks_and_records_are_reported_not_fatal(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [
            user("do it"),
            assistant("m1", [{"type": "server_tool_use", "id": "x"}, text("Working.")]),
            {"type": "mystery-record", "sessionId": "s"},
            assistant("m2", [text("Done.")]),
        ],
    )
    report = ReadReport()
    t = one(path, report)
    assert t.final_message == "Done." and t.termination.is_normal
    assert report.skipped_lines == 1  # the unknown record type
    assert any("server_tool_use" in w.message for w in report.warnings)
    assert any(w.line == 3 and "mystery-record" in w.message for w in report.warnings)


def test_truncated_last_line_is_counted(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [user("go"), assistant("m1", [tool_use("t1", "Bash", command="make")])],
        tail='{"type":"user","message":{"role":"user","content":[{"type":"tool_res',
    )
    report = ReadReport()
    t = one(path, report)
    assert report.skipped_lines == 1 and "truncated last line" in report.warnings[0].message
    assert report.warnings[0].line == 3
    assert t.tool_calls[0].outcome == "unknown"
    assert t.termination.reason == "truncated"


def test_repeated_blocks_of_one_message_are_dropped(tmp_path: Path) -> None:
    block = tool_use("t1", "Edit", file_path="a.py", old_string="a", new_string="b")
    path = write_lines(
        tmp_path / "s.jsonl",
        [
            user("edit"),
            assistant("m1", [text("Editing.")]),
            assistant("m1", [text("Editing."), block]),
            user([result("t1", "ok")]),
            assistant("m1", [block]),
            assistant("m2", [text("Edited.")]),
        ],
    )
    t = one(path)
    assert [m.text for m in t.messages if m.role == "assistant"] == ["Editing.", "Edited."]
    assert len(t.tool_calls) == 1 and t.metadata["assistant_turns"] == 2
    assert [(e.path, e.kind) for e in t.file_edits] == [("a.py", "modify")]


def test_failed_edits_are_not_file_edits_and_exit_codes_are_read(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [
            user("fix"),
            assistant(
                "m1",
                [
                    tool_use("t1", "Edit", file_path="a.py"),
                    tool_use("t2", "Bash", command="pytest"),
                ],
            ),
            user(
                [
                    result("t1", "String to replace not found", True),
                    result("t2", "Exit code 2\nboom", True),
                ],
                toolUseResult="Error: String to replace not found",
            ),
            assistant("m2", [text("Tests fail.")]),
        ],
    )
    t = one(path)
    edit, bash = t.tool_calls
    assert edit.outcome == "error" and edit.error == "Error: String to replace not found"
    assert bash.exit_code == 2 and bash.as_tool_result()["is_error"] is True
    assert t.file_edits == ()


def test_noise_is_never_the_request(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [
            user("Fix the login bug"),
            assistant("m1", [text("Fixed.")]),
            user("<local-command-caveat>Caveat: ...</local-command-caveat>", isMeta=True),
            user("<command-name>/cost</command-name>"),
            user([text("<system-reminder>remember</system-reminder>")]),
            user("[Request interrupted by user]"),
        ],
    )
    t = one(path)
    assert t.user_request == "Fix the login bug"
    assert t.termination.reason == "interrupted"


def test_empty_binary_and_comment_only_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(bytes(range(256)) * 40)
    comments = tmp_path / "c.jsonl"
    comments.write_text("// just a note\n// another\n")
    report = ReadReport()
    for path in (empty, garbage, comments):
        assert list(read_trajectories(path, report=report)) == []
    assert report.files_skipped == 3
    messages = " | ".join(str(w) for w in report.warnings)
    assert "empty file" in messages and "not a recognised transcript format" in messages


def test_invalid_utf8_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = [json.dumps(user("hi")).encode(), json.dumps(assistant("m", [text("yo")])).encode()]
    path.write_bytes(good[0] + b"\n" + b'{"type":"user","x":"\xff\xfe"}\n' + good[1] + b"\n")
    report = ReadReport()
    t = one(path, report)
    assert report.skipped_lines == 1 and t.final_message == "yo"


# -- incremental reading for the stop hook --------------------------------------------


def test_incremental_read_continues_from_the_offset(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [user("first task"), assistant("m1", [text("ok 1")])])
    session, offset = read_claude_code_from(path)
    assert offset == path.stat().st_size
    assert session.trajectory().final_message == "ok 1"
    with open(path, "a") as handle:
        handle.write(json.dumps(user("second task")) + "\n")
        handle.write(
            json.dumps(assistant("m2", [tool_use("t9", "Write", file_path="b.py")])) + "\n"
        )
        handle.write('{"type":"user","message":')  # being written right now
    session, offset2 = read_claude_code_from(path, offset, session, final=False)
    t = session.trajectory()
    assert t.user_request == "second task" and [c.id for c in t.tool_calls] == ["t9"]
    assert offset2 < path.stat().st_size  # the half-written line waits
    assert session.report.skipped_lines == 0
    with open(path, "a") as handle:
        handle.write(json.dumps({"role": "user", "content": [result("t9", "done")]}) + "\n")
    session, offset3 = read_claude_code_from(path, offset2, session, final=False)
    assert offset3 == path.stat().st_size


def test_read_run_keeps_only_the_last_run(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "s.jsonl",
        [
            user("first task"),
            assistant("m1", [tool_use("t1", "Write", file_path="a.py")]),
            user([result("t1", "ok")], toolUseResult={"type": "create", "filePath": "a.py"}),
            assistant("m1b", [text("Wrote a.py.")]),
            user("now just answer: what is 2+2?"),
            assistant("m2", [text("4")]),
        ],
    )
    run = read_claude_run(path)
    assert run.user_request == "now just answer: what is 2+2?"
    assert run.tool_calls == () and run.file_edits == ()
    assert run.final_message == "4" and run.claimed_completion
    assert run.messages[0].index == 2  # message indexes stay those of the whole session
    whole = one(path)
    assert len(whole.tool_calls) == 1 and whole.file_edits[0].kind == "create"


def test_real_session_run_is_the_last_prompt_onward() -> None:
    run = read_claude_run(CC / "kimuson-fe5e1c67-orchestrator-nextjs-todo-sidechains.jsonl")
    assert run.user_request == "Thanks! Please update CLAUDE.md for current changes"
    assert run.messages[0].text == run.user_request
    assert len(run.tool_calls) < 167
