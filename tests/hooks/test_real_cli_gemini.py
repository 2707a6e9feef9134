"""Gemini CLI 0.61's ``chats/session-*.jsonl`` is read (defect 6), by the reader and the hook."""

from __future__ import annotations

import json
from pathlib import Path

from real_cli_records import GeminiChat, write_jsonl
from test_real_cli_logs import blocked, hook, score

from conftest import run_earnest

FIX = "Fix the bug in app.py"
DONE = "Done — I fixed the bug in app.py."


def _project(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "app.py").write_text("def total(xs):\n    return sum(xs[1:])\n")
    return work


def test_gemini_jsonl_is_detected_and_read(tmp_path: Path) -> None:
    work = _project(tmp_path)
    chat = GeminiChat(str(work))
    chat.user(FIX)
    edit = GeminiChat.tool_call(
        "replace",
        {"file_path": str(work / "app.py"), "old_string": "xs[1:]", "new_string": "xs"},
        "Successfully modified file: app.py (1 replacements).",
    )
    chat.gemini("", [edit])
    chat.gemini(DONE)
    path = write_jsonl(tmp_path / "session-2026-12-01T10-00-a1b2c3d4.jsonl", chat.records)
    result = run_earnest("trajectory", "convert", str(path))
    assert result.returncode == 0, result.stderr
    t = json.loads(result.stdout.splitlines()[0])
    assert t["format"] == "gemini-cli-session"
    assert t["user_request"] == FIX and t["final_message"] == DONE
    assert [c["name"] for c in t["tool_calls"]] == ["replace"]
    assert "skipped" not in result.stderr or "0 lines skipped" in result.stderr


def test_gemini_hook_denies_an_empty_done_in_a_jsonl_session(tmp_path: Path) -> None:
    work = _project(tmp_path)
    chat = GeminiChat(str(work))
    chat.user(FIX)
    chat.gemini(DONE)
    path = write_jsonl(tmp_path / "session-2026-12-01T10-00-a1b2c3d4.jsonl", chat.records)
    decision = hook("gemini", chat.after_agent(path, FIX, DONE), tmp_path / "state")
    assert blocked(decision), decision


def test_gemini_hook_allows_the_edit_after_its_deny(tmp_path: Path) -> None:
    work = _project(tmp_path)
    chat = GeminiChat(str(work))
    chat.user(FIX)
    chat.gemini(DONE)
    path = write_jsonl(tmp_path / "session-2026-12-01T10-00-a1b2c3d4.jsonl", chat.records)
    state = tmp_path / "state"
    first = hook("gemini", chat.after_agent(path, FIX, DONE), state)
    assert blocked(first)
    chat.user(first["reason"])  # Gemini sends the deny reason back as a user message
    (work / "app.py").write_text("def total(xs):\n    return sum(xs)\n")
    edit = GeminiChat.tool_call(
        "replace",
        {"file_path": str(work / "app.py"), "old_string": "xs[1:]", "new_string": "xs"},
        "Successfully modified file: app.py (1 replacements).",
    )
    chat.gemini("", [edit])
    chat.gemini(DONE)
    write_jsonl(path, chat.records)
    second = hook("gemini", chat.after_agent(path, first["reason"], DONE, active=True), state)
    assert not blocked(second), second
    assert score(path)["outcome"] == "backed"


def test_gemini_jsonl_rewind_drops_the_rewound_messages(tmp_path: Path) -> None:
    chat = GeminiChat(str(tmp_path))
    chat.user("Explain app.py")
    chat.gemini("It sums a list.")
    chat.records.append({"$rewindTo": "u1"})
    chat.user("What does app.py return for []?")
    chat.gemini("It returns 0.")
    path = write_jsonl(tmp_path / "session-x.jsonl", chat.records)
    result = run_earnest("trajectory", "convert", str(path))
    t = json.loads(result.stdout.splitlines()[0])
    texts = [m["text"] for m in t["messages"]]
    assert "Explain app.py" not in texts and "It sums a list." not in texts
    assert t["user_request"] == "What does app.py return for []?"
