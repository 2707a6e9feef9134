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


def test_gemini_corrected_claim_after_a_deny_is_judged_alone(tmp_path: Path) -> None:
    # Gemini 0.61, strict_claims: after the deny, AfterAgent's prompt_response holds the whole
    # turn ("<over-claim>\n<corrected claim>"), and the corrected claim was blocked again.
    work = _project(tmp_path)
    (work / "earnest.toml").write_text("[effects]\nstrict_claims = true\n")
    chat = GeminiChat(str(work))
    chat.user(FIX)
    (work / "app.py").write_text("def total(xs):\n    return sum(xs)\n")
    edit = GeminiChat.tool_call(
        "replace",
        {"file_path": str(work / "app.py"), "old_string": "xs[1:]", "new_string": "xs"},
        "Successfully modified file: app.py (1 replacements).",
    )
    chat.gemini("", [edit])
    over = "Fixed app.py and updated utils.py to match."
    chat.gemini(over)
    path = write_jsonl(tmp_path / "session-2026-12-01T10-00-a1b2c3d4.jsonl", chat.records)
    state = tmp_path / "state"
    first = hook("gemini", chat.after_agent(path, FIX, over), state)
    assert blocked(first) and first["reason"].startswith("unverified-claim"), first
    assert "utils.py" in first["reason"]
    chat.user(first["reason"])
    corrected = "Fixed app.py; I did not touch utils.py."
    chat.gemini(corrected)
    write_jsonl(path, chat.records)
    second = hook("gemini", chat.after_agent(path, FIX, f"{over}\n{corrected}", active=True), state)
    assert not blocked(second), second
    # The log one message behind the stop: the newest answer is what follows the logged one.
    lagging = tmp_path / "state-lag"
    hook("gemini", chat.after_agent(path, FIX, over), lagging)
    write_jsonl(path, chat.records[:-3])  # the corrected answer not yet written
    stale = hook(
        "gemini", chat.after_agent(path, FIX, f"{over}\n{corrected}", active=True), lagging
    )
    assert not blocked(stale), stale
