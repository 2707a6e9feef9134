"""Envelope unwrapping: real agent-CLI outputs from tests/data/transcripts and hand-made API objects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import TRANSCRIPTS
from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.parse import parse_decision

HEADLESS = TRANSCRIPTS / "claude-headless-json"
STREAM = TRANSCRIPTS / "claude-stream-json"
GEMINI = TRANSCRIPTS / "gemini-cli"
CODEX = TRANSCRIPTS / "codex"


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def with_result(obj: dict[str, object], text: str) -> str:
    """A real envelope with its answer text replaced: the JSON escaping is what matters."""
    data = dict(obj)
    key = "result" if "result" in data else "response"
    data[key] = text
    return json.dumps(data)


# --- Claude Code -p --output-format json -------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["gtpdna-b7a2b26-claude_output.json", "pixelstudio-495d76f-claude_output.json"],
)
def test_claude_headless_json_current_format(name: str) -> None:
    raw = read(HEADLESS / name)
    obj = json.loads(raw)
    u = unwrap_envelope(raw)
    assert u.envelope == "claude-json"
    assert u.error is None
    assert u.text == obj["result"]
    assert "\n" in u.text  # the escaped newlines are real newlines again


@pytest.mark.parametrize(
    "name", ["ccrxt-26dab1e6-claude_output.json", "ccrxt-9e7fa50b-claude_output.json"]
)
def test_claude_headless_json_old_format(name: str) -> None:
    raw = read(HEADLESS / name)
    u = unwrap_envelope(raw)
    assert u.envelope == "claude-json"
    assert u.text == json.loads(raw)["result"]
    assert u.error is None


def test_claude_headless_is_error_result_is_an_error() -> None:
    raw = read(HEADLESS / "pixelstudio-77cfca7-claude_output.json")
    u = unwrap_envelope(raw)
    assert u.envelope == "claude-json"
    assert u.text == "Credit balance is too low"
    assert u.error is not None and "Credit balance is too low" in u.error


def test_choice_line_hidden_by_escaped_newlines_is_found_after_unwrapping() -> None:
    # The original harness scored the raw envelope: "\\nCHOICE: C" never starts a line there.
    obj = json.loads(read(HEADLESS / "gtpdna-b7a2b26-claude_output.json"))
    raw = with_result(obj, "Rule 8 holds here.\n\nCHOICE: C")
    assert parse_decision(raw, "ABCD").status == "unparseable"
    assert parse_decision(unwrap_envelope(raw).text, "ABCD").letter == "C"


# --- Claude stream-json ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "last_text"),
    [
        ("perfectsnake-4873604-claude-stream.jsonl", "Now let me run the tests and build"),
        (
            "perfectsnake-b2ee321-claude-stream.jsonl",
            "Build passes. Now let me run the performance",
        ),
        ("perfectsnake-69bfacd-claude-stream.jsonl", "Build passes. Now let me take a screenshot"),
    ],
)
def test_claude_stream_without_result_text_falls_back_to_last_assistant_text(
    name: str, last_text: str
) -> None:
    u = unwrap_envelope(read(STREAM / name))
    assert u.envelope == "claude-stream"
    assert u.text.startswith(last_text)
    assert u.error == "error_max_turns"  # the run hit its turn limit: not a finished reply


def test_claude_stream_final_result_event_wins() -> None:
    lines = read(STREAM / "perfectsnake-4873604-claude-stream.jsonl").splitlines()
    result = json.loads(lines[-1])
    result.update(subtype="success", is_error=False, result="Per Rule 8.\nCHOICE: C")
    text = "\n".join([*lines[:-1], json.dumps(result)])
    u = unwrap_envelope(text)
    assert (u.envelope, u.text, u.error) == ("claude-stream", "Per Rule 8.\nCHOICE: C", None)


def test_claude_stream_ignores_subagent_messages() -> None:
    lines = read(STREAM / "perfectsnake-4873604-claude-stream.jsonl").splitlines()
    events = [json.loads(x) for x in lines]
    assert any(e.get("parent_tool_use_id") for e in events)  # the real log has subagent traffic
    sub = {
        "type": "assistant",
        "parent_tool_use_id": "toolu_sub",
        "session_id": "s",
        "message": {
            "id": "msg_sub",
            "role": "assistant",
            "content": [{"type": "text", "text": "CHOICE: A"}],
        },
    }
    text = "\n".join([*lines[:-1], json.dumps(sub), lines[-1]])
    assert "CHOICE: A" not in unwrap_envelope(text).text


def test_claude_stream_tolerates_a_broken_line() -> None:
    lines = read(STREAM / "perfectsnake-b2ee321-claude-stream.jsonl").splitlines()
    text = "\n".join([lines[0], '{"type": "assistant", "broken', *lines[1:]])
    assert unwrap_envelope(text).envelope == "claude-stream"


# --- Gemini CLI --------------------------------------------------------------------------


def gemini_first_session(name: str) -> list[str]:
    lines = read(GEMINI / name).splitlines()
    end = next(i for i, x in enumerate(lines) if json.loads(x)["type"] == "result")
    return lines[: end + 1]


def test_gemini_stream_joins_delta_chunks_of_the_final_turn() -> None:
    lines = gemini_first_session("metaphi-figma-010ac575-stream.jsonl")
    u = unwrap_envelope("\n".join(lines))
    assert u.envelope == "gemini-stream"
    assert u.error is None
    assert u.text.startswith("I have converted the Figma design to a production-ready React")
    assert "\n**Deliverables:**\n- **GitHub Repo:** `https://github.com/metaphi-agent/" in u.text


def test_gemini_stream_error_result_is_an_error() -> None:
    lines = gemini_first_session("metaphi-figma-49bdd49a-stream-api-error.jsonl")
    u = unwrap_envelope("\n".join(lines))
    assert u.envelope == "gemini-stream"
    assert u.error is not None and "INVALID_ARGUMENT" in u.error


def test_gemini_stream_reply_is_the_last_sessions() -> None:
    # Two sessions appended in one file; the second never answered.
    u = unwrap_envelope(read(GEMINI / "metaphi-figma-010ac575-stream.jsonl"))
    assert (u.envelope, u.text) == ("gemini-stream", "")


def test_gemini_stream_cut_off_without_result() -> None:
    u = unwrap_envelope(read(GEMINI / "metaphi-figma-d00f7a9b-stream-no-result.jsonl"))
    assert u.envelope == "gemini-stream"
    assert u.text == ""


def test_gemini_stream_answer_after_tool_round() -> None:
    events = [
        {"type": "init", "session_id": "s", "model": "gemini-2.5-pro"},
        {"type": "message", "role": "user", "content": "Scenario..."},
        {"type": "message", "role": "assistant", "content": "Let me look.", "delta": True},
        {"type": "tool_use", "tool_name": "read_file", "tool_id": "t1", "parameters": {}},
        {"type": "tool_result", "tool_id": "t1", "status": "success", "output": "x"},
        {"type": "message", "role": "assistant", "content": "Rule 8 applies.\nCHO", "delta": True},
        {"type": "message", "role": "assistant", "content": "ICE: C", "delta": True},
        {"type": "result", "status": "success", "stats": {"total_tokens": 1}},
    ]
    u = unwrap_envelope("\n".join(json.dumps(e) for e in events))
    assert (u.envelope, u.text, u.error) == ("gemini-stream", "Rule 8 applies.\nCHOICE: C", None)


def test_gemini_json() -> None:
    obj = {"response": "Rule 8.\nCHOICE: B", "stats": {"models": {}}, "error": None}
    u = unwrap_envelope(json.dumps(obj))
    assert (u.envelope, u.text, u.error) == ("gemini-json", "Rule 8.\nCHOICE: B", None)
    bad = {
        "response": None,
        "stats": {},
        "error": {"type": "ApiError", "message": "quota", "code": 429},
    }
    u = unwrap_envelope(json.dumps(bad))
    assert u.envelope == "gemini-json" and u.error == "error: quota" and u.text == ""


# --- Codex -------------------------------------------------------------------------------


def test_codex_rollout_real_file() -> None:
    u = unwrap_envelope(read(CODEX / "kvsankar-real-codex-exec-session-01-redacted.jsonl"))
    assert (u.envelope, u.text, u.error) == ("codex-rollout", "[REDACTED_ASSISTANT_TEXT]", None)


def test_codex_exec_json_events() -> None:
    events = [
        {"type": "thread.started", "thread_id": "th_1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "hmm"}},
        {
            "type": "item.completed",
            "item": {"id": "item_1", "type": "command_execution", "command": "ls"},
        },
        {
            "type": "item.completed",
            "item": {"id": "item_2", "type": "agent_message", "text": "Rule 8.\nCHOICE: D"},
        },
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 2}},
    ]
    u = unwrap_envelope("\n".join(json.dumps(e) for e in events))
    assert (u.envelope, u.text, u.error) == ("codex-exec", "Rule 8.\nCHOICE: D", None)


def test_codex_exec_old_item_type_and_failed_turn() -> None:
    events = [
        {"type": "thread.started", "thread_id": "th_1"},
        {
            "type": "item.completed",
            "item": {"id": "i", "item_type": "assistant_message", "text": "CHOICE: A"},
        },
        {"type": "turn.failed", "error": {"message": "stream disconnected"}},
    ]
    u = unwrap_envelope("\n".join(json.dumps(e) for e in events))
    assert u.text == "CHOICE: A"
    assert u.error == "error: stream disconnected"


# --- API response objects ----------------------------------------------------------------


def test_chat_completion_string_content() -> None:
    obj = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Rule 8\nCHOICE: C"},
                "finish_reason": "stop",
            }
        ],
    }
    u = unwrap_envelope(json.dumps(obj))
    assert (u.envelope, u.text) == ("chat-completion", "Rule 8\nCHOICE: C")


def test_chat_completion_list_of_parts() -> None:
    obj = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Rule 8"},
                        {"type": "text", "text": "CHOICE: C"},
                    ],
                }
            }
        ]
    }
    assert unwrap_envelope(json.dumps(obj)).text == "Rule 8\nCHOICE: C"


def test_chat_completion_refusal() -> None:
    obj = {
        "choices": [{"message": {"role": "assistant", "content": None, "refusal": "I can't help."}}]
    }
    assert unwrap_envelope(json.dumps(obj)).text == "I can't help."


def test_anthropic_messages_object() -> None:
    obj = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "CHOICE: A maybe", "signature": "s"},
            {"type": "text", "text": "Rule 8 applies."},
            {"type": "text", "text": "CHOICE: C"},
        ],
        "stop_reason": "end_turn",
    }
    u = unwrap_envelope(json.dumps(obj))
    assert (u.envelope, u.text) == ("messages", "Rule 8 applies.\nCHOICE: C")


def test_api_error_object() -> None:
    u = unwrap_envelope(
        json.dumps(
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
        )
    )
    assert (u.envelope, u.text, u.error) == ("api-error", "", "error: Overloaded")


def test_json_string_literal_and_nested_envelope() -> None:
    assert unwrap_envelope(json.dumps("Rule 8\nCHOICE: C")) == unwrap_envelope(
        json.dumps("Rule 8\nCHOICE: C")
    )
    u = unwrap_envelope(json.dumps("Rule 8\nCHOICE: C"))
    assert (u.envelope, u.text) == ("json-string", "Rule 8\nCHOICE: C")
    inner = json.dumps(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": "CHOICE: B",
            "session_id": "s",
        }
    )
    u = unwrap_envelope(json.dumps(inner))
    assert (u.envelope, u.text) == ("json-string+claude-json", "CHOICE: B")


# --- not an envelope ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "CHOICE: C",
        "",
        "   ",
        '{"choice": "C", "why": "Rule 8"}',  # an agent's own JSON answer
        "{not json at all\nCHOICE: C",
        "[1, 2, 3]",
        '"unterminated',
        "42",
        '{"type": "summary", "summary": "x"}',
    ],
)
def test_not_an_envelope_passes_through_unchanged(text: str) -> None:
    u = unwrap_envelope(text)
    assert (u.text, u.envelope, u.error) == (text, None, None)


def test_real_native_transcripts_are_not_reply_envelopes() -> None:
    raw = read(TRANSCRIPTS / "claude-code" / "drmaciver-hello-world-script.jsonl")
    assert unwrap_envelope(raw).envelope is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "result",
                    "role",
                    "content",
                    "choices",
                    "message",
                    "text",
                    "error",
                    "response",
                    "stats",
                    "item",
                    "payload",
                    "subtype",
                    "is_error",
                    "session_id",
                    "cost_usd",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(json_values, min_size=1, max_size=4))
def test_unwrap_never_raises_on_json_shaped_input(values: list[object]) -> None:
    for text in (json.dumps(values[0]), "\n".join(json.dumps(v) for v in values)):
        u = unwrap_envelope(text)
        assert isinstance(u.text, str)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_unwrap_never_raises_on_text(text: str) -> None:
    assert isinstance(unwrap_envelope(text).text, str)


def test_deeply_nested_json_is_not_an_error() -> None:
    text = '{"a":' * 100_000
    assert unwrap_envelope(text).text == text


def test_legacy_completion_and_a_quoted_fixture() -> None:
    legacy = {
        "object": "text_completion",
        "choices": [{"text": "CHOICE: C", "index": 0, "finish_reason": "stop"}],
    }
    assert unwrap_envelope(json.dumps(legacy)).text == "CHOICE: C"
    quoted = json.dumps({"choices": [{"id": "A", "text": "Retry it", "compliant": False}]})
    assert unwrap_envelope(quoted).envelope is None
