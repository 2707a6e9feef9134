"""Gemini CLI: stream-json logs (several sessions per file) and native chat sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import TRANSCRIPTS
from earnest.trajectory import ReadReport, Trajectory, read_trajectories

GEMINI = TRANSCRIPTS / "gemini-cli"


def test_two_inits_are_two_sessions() -> None:
    report = ReadReport()
    first, second = read_trajectories(GEMINI / "metaphi-figma-010ac575-stream.jsonl", report=report)
    assert (first.id, second.id) == (
        "6727b31e-11a1-4351-b526-77ba7b90da09",
        "65b8f8e4-6941-4eba-b2b8-a3f492435908",
    )
    assert first.termination.reason == "normal" and first.claimed_completion
    assert "pushed to the remote repository" in first.final_message  # delta chunks joined
    assert first.metadata["stats"]["tool_calls"] == 40 == len(first.tool_calls)
    # the second session ends on a git push with no result and no result event
    assert second.termination.reason == "truncated"
    assert second.tool_calls[-1].outcome == "unknown"
    assert "git push" in second.tool_calls[-1].arguments["command"]
    # the harness's prompt written before each init belongs to the session it opens
    assert second.messages[0].text.startswith("Figma URL:")
    assert report.skipped_lines == 0
    assert {e.kind for e in first.file_edits} == {"create"}
    assert any(c.outcome == "error" for c in first.tool_calls)


def test_result_error_is_an_api_error() -> None:
    first, _ = read_trajectories(GEMINI / "metaphi-figma-49bdd49a-stream-api-error.jsonl")
    assert first.termination.reason == "api_error"
    assert "INVALID_ARGUMENT" in first.termination.detail
    assert len(first.tool_calls) == 47


def test_no_result_event_is_truncated() -> None:
    (t,) = read_trajectories(GEMINI / "metaphi-figma-d00f7a9b-stream-no-result.jsonl")
    assert t.termination.reason == "truncated"
    assert len(t.tool_calls) == 41
    assert sum(c.outcome == "unknown" for c in t.tool_calls) == 1


def test_native_chat_session() -> None:
    (t,) = read_trajectories(GEMINI / "metaphi-native-chat-session-7befeae5.json")
    assert t.format == "gemini-cli-session"
    assert t.id == "7befeae5-6b85-4b89-a3e3-c161793cc484"
    assert len(t.tool_calls) == 62
    assert sum(c.outcome == "error" for c in t.tool_calls) == 2
    assert len(t.file_edits) == 14 and t.claimed_completion
    skill = t.tool_calls[0]
    assert skill.name == "activate_skill" and "not found" in skill.output_excerpt


def test_a_run_only_read_builds_the_last_run_alone(tmp_path: Path) -> None:
    """A stop's read (``run_only``) builds only the messages from the last prompt on: the
    real session behind two earlier copies of itself gives the run of the session alone."""
    real = TRANSCRIPTS / "gemini-cli" / "metaphi-native-chat-session-7befeae5.json"
    data = json.loads(real.read_text(encoding="utf-8"))
    (alone,) = read_trajectories(real, format="gemini-cli-session", run_only=True)
    longer = tmp_path / "session-long.json"
    longer.write_text(json.dumps({**data, "messages": data["messages"] * 3}), encoding="utf-8")
    (run,) = read_trajectories(longer, format="gemini-cli-session", run_only=True)
    assert run.user_request == alone.user_request and run.final_message == alone.final_message
    assert [(c.name, c.outcome, c.arguments) for c in run.tool_calls] == [
        (c.name, c.outcome, c.arguments) for c in alone.tool_calls
    ]
    assert len(run.tool_calls) == len(alone.tool_calls) > 0


def _indented(data: dict[str, object]) -> str:
    """A session as Gemini CLI writes it: ``JSON.stringify(session, null, 2)``."""
    return json.dumps(data, indent=2, ensure_ascii=False)


def _whole_and_run(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Trajectory, Trajectory]:
    """The current run as the stop hook reads it, and as a whole read of the file finds it."""
    from earnest.trajectory.readers import gemini_session

    (run,) = read_trajectories(path, format="gemini-cli-session", run_only=True)
    with monkeypatch.context() as patch:
        patch.setattr(gemini_session, "_document_run", lambda _path: None)
        (whole,) = read_trajectories(path, format="gemini-cli-session", run_only=True)
    return run, whole


def _session(messages: list[dict[str, object]]) -> dict[str, object]:
    return {
        "sessionId": "s-1",
        "projectHash": "h",
        "startTime": "2026-01-01T00:00:00.000Z",
        "lastUpdated": "2026-01-01T00:09:00.000Z",
        "messages": messages,
        "summary": "a key after the messages",
    }


def test_the_run_parsed_from_its_prompt_is_the_whole_reads_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop hook parses a session document only from its last prompt (found by searching
    the bytes backwards): the same run as a whole read, on the real session as it is (its
    only prompt is the file's first message) and behind real earlier runs."""
    from earnest.trajectory.readers.gemini_session import _document_run

    real = GEMINI / "metaphi-native-chat-session-7befeae5.json"
    data = json.loads(real.read_text(encoding="utf-8"))
    messages = data["messages"]
    long = tmp_path / "session-long.json"
    long.write_text(_indented({**data, "messages": messages * 3}), encoding="utf-8")
    for path in (real, long):
        found = _document_run(path)
        assert found is not None, path.name
        sid, run_messages = found
        assert sid == data["sessionId"] and run_messages == messages, path.name
        run, whole = _whole_and_run(path, monkeypatch)
        assert run == whole, path.name
        assert run.tool_calls and run.final_message == messages[-1]["content"]


def test_marker_text_escaped_quotes_and_non_prompts_do_not_move_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts holding the very line searched for, escaped quotes, a deny reason sent back as a
    user message (not a prompt) and a compressed history: the run is still the whole read's."""
    from earnest.trajectory.readers.gemini_session import _document_run

    marker = '\n      "type": "user",\n    {"type": "user", "content": "x\\"y"}'
    messages: list[dict[str, object]] = [
        {"id": "u0", "type": "user", "content": "first prompt"},
        {"id": "g0", "type": "gemini", "content": "done 0"},
        {"id": "i0", "type": "info", "content": "Chat history compressed."},
        {"id": "u1", "type": "user", "content": f'second "prompt" {marker}'},
        {"id": "g1", "type": "gemini", "content": f"said {marker}", "toolCalls": [
            {"id": "c", "name": "write_file", "args": {"file_path": "a.py", "content": marker},
             "status": "success", "result": [
                 {"functionResponse": {"response": {"output": f"Wrote {marker}"}}}]}]},
        {"id": "u2", "type": "user", "content": "completion-without-effect: nothing written"},
        {"id": "g2", "type": "gemini", "content": 'Now "really" done.'},
    ]  # fmt: skip
    path = tmp_path / "session-marker.json"
    path.write_text(_indented(_session(messages)), encoding="utf-8")
    found = _document_run(path)
    assert found is not None and found[1] == messages[3:]
    run, whole = _whole_and_run(path, monkeypatch)
    assert run == whole and run.user_request == messages[3]["content"]
    assert [c.name for c in run.tool_calls] == ["write_file"]
    # A rewound (shortened) session, its last prompt the file's first message.
    path.write_text(_indented(_session(messages[:2])), encoding="utf-8")
    run, whole = _whole_and_run(path, monkeypatch)
    assert run == whole and run.user_request == "first prompt"
    assert _document_run(path) == ("s-1", messages[:2])


def test_a_document_laid_out_otherwise_is_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compact JSON, a later prompt indented otherwise, a key repeated after the messages, a
    cut file: nothing is guessed, the whole file is read (and gives the same run)."""
    from earnest.trajectory.readers.gemini_session import _document_run

    messages: list[dict[str, object]] = [
        {"id": "u0", "type": "user", "content": "first prompt"},
        {"id": "g0", "type": "gemini", "content": "done 0"},
        {"id": "u1", "type": "user", "content": "second prompt"},
        {"id": "g1", "type": "gemini", "content": "done 1"},
    ]
    text = _indented(_session(messages))
    later = text.replace(
        '"type": "user",\n      "content": "second', '"type":"user","content":"second'
    )
    repeated = text.replace('"summary"', '"sessionId": "other",\n  "summary"')
    cases = {
        "compact": json.dumps(_session(messages)),
        "later prompt laid out otherwise": later,
        "sessionId after the messages": repeated,
        "cut": text[: text.index('"id": "g1"')],
        "no messages": _indented(_session([])),
    }
    for name, content in cases.items():
        path = tmp_path / f"session-{name.replace(' ', '-')}.json"
        path.write_text(content, encoding="utf-8")
        assert _document_run(path) is None, name
        if name != "cut":
            run, whole = _whole_and_run(path, monkeypatch)
            assert run == whole, name


def _fresh_ids(lines: list[str], copy: int) -> list[str]:
    """Lines of a Gemini 0.61 log with their message ids made unique to one copy."""
    out = []
    for line in lines:
        record = json.loads(line)
        if "id" in record:
            record["id"] = f"{record['id']}-{copy}"
        out.append(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
    return out


def test_the_run_replayed_from_its_prompt_is_the_whole_replays_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gemini CLI 0.61's session-*.jsonl, which its AfterAgent hook names: the stop hook reads
    it backwards to the last prompt and replays from there (the header line besides); the same
    run as the whole replay on the real log, behind earlier runs, and whenever a line after
    the prompt could change what came before it (a $rewindTo, a $set of the messages, a
    rewrite of an earlier message) the whole log is replayed."""
    from earnest.trajectory.readers import gemini_session

    real = TRANSCRIPTS.parent / "act" / "gemini-0.61-session-merge.jsonl"
    header, *rest = real.read_text(encoding="utf-8").splitlines(keepends=True)
    long = [header] + [line for copy in range(3) for line in _fresh_ids(rest, copy)]
    prompt = {"id": "u9", "type": "user", "content": [{"text": 'a "$rewindTo" prompt'}]}
    answer = {"id": "g9", "type": "gemini", "content": "Done."}
    earlier = json.loads(rest[-2])  # the last gemini message of the first copy, rewritten
    rewound = json.loads(rest[3])["id"] + "-2"  # the last run's first answer
    cases = {
        "real": [header, *rest],
        "three runs": long,
        "prompt after the header": [header, json.dumps(prompt) + "\n"],
        "rewound after the prompt": [*long, json.dumps({"$rewindTo": rewound}) + "\n"],
        "history set after the prompt": [
            *long, json.dumps({"$set": {"messages": [prompt, answer]}}) + "\n"],
        "an earlier message rewritten": [
            *long, json.dumps(prompt) + "\n", json.dumps({**earlier, "id": earlier["id"] + "-0"})
            + "\n", json.dumps(answer) + "\n"],
        "copies with the same ids": [header, *rest, *rest],
        "a run too long to search its ids": [*long, json.dumps(prompt) + "\n"] + [
            json.dumps({**answer, "id": f"g{n}"}) + "\n" for n in range(60)],
    }  # fmt: skip
    fast = {"real", "three runs", "prompt after the header"}
    for name, lines in cases.items():
        path = tmp_path / f"session-{name.replace(' ', '-')}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        found = gemini_session._jsonl_run(path, ReadReport())
        assert (found is not None) == (name in fast), name
        (run,) = read_trajectories(path, format="gemini-cli-session", run_only=True)
        with monkeypatch.context() as patch:
            patch.setattr(gemini_session, "_jsonl_run", lambda _path, _report: None)
            (whole,) = read_trajectories(path, format="gemini-cli-session", run_only=True)
        assert run == whole, name
        assert run.user_request, name


def test_keys_after_the_messages_do_not_move_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What Gemini CLI wrote after the messages (``summary``, ``directories``: strings, ``kind``),
    in any combination: the file's last top-level "]" may be the directories', and the run is
    still the messages' own, the same as a whole read."""
    from earnest.trajectory.readers.gemini_session import _document_run

    messages: list[dict[str, object]] = [
        {"id": "u0", "type": "user", "content": "first prompt"},
        {"id": "g0", "type": "gemini", "content": "done 0"},
        {"id": "u1", "type": "user", "content": "second prompt"},
        {"id": "g1", "type": "gemini", "content": "done 1"},
    ]
    session = {k: v for k, v in _session(messages).items() if k != "summary"}
    later = {"summary": "s", "directories": ["/a", "/b"], "kind": "main"}
    cases = {
        "nothing": session,
        "directories": {**session, "directories": ["/a", "/b"]},
        "kind": {**session, "kind": "main"},
        "all three": {**session, **later},
        "directories first": {"directories": ["/a"], **session, "kind": "main"},
        "no directories": {**session, "directories": [], "kind": "subagent"},
    }
    for name, data in cases.items():
        path = tmp_path / f"session-{name.replace(' ', '-')}.json"
        path.write_text(_indented(data), encoding="utf-8")
        assert _document_run(path) == ("s-1", messages[2:]), name
        run, whole = _whole_and_run(path, monkeypatch)
        assert run == whole and run.user_request == "second prompt", name
