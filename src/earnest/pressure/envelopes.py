"""Unwrap the JSON envelopes that agent CLIs and model APIs put around a reply.

A headless agent CLI prints its answer inside a JSON object (or a JSONL event log) whose
escaped newlines hide the ``CHOICE:`` line from a line-based parser. Scoring the raw
envelope made every live reply unparseable in the harness earnest replaces, so every reply
is unwrapped before it is parsed. Text that is not a known envelope passes through unchanged.

Known envelopes (the ``envelope`` name recorded on the result):

==================== ==========================================================================
``claude-json``      Claude Code ``-p --output-format json``: ``{type: "result", result, ...}``
                     and the older ``{role: "system", cost_usd, result, ...}``
``claude-stream``    Claude Code ``--output-format stream-json``: the final ``result`` event's
                     text, else the last top-level assistant message's text
``gemini-json``      Gemini CLI ``-p --output-format json``: ``{response, stats, error}``
``gemini-stream``    Gemini CLI ``--output-format stream-json``: the final assistant turn of the
                     last session (``delta`` chunks are joined)
``codex-exec``       ``codex exec --json``: the last ``item.completed`` agent message
``opencode-run``     ``opencode run --format json``: the text parts of the last assistant message
                     (``{type: "text", sessionID, part: {messageID, text}}`` events)
``copilot-json``     GitHub Copilot CLI ``--output-format json`` (and its ``events.jsonl``):
                     ``{type, data, id}`` events; the ``data.content`` of the last
                     ``assistant.message`` that has text; a ``session.error`` or a ``result``
                     with a non-zero ``exitCode`` is a failed run
``codex-rollout``    a Codex rollout file: ``task_complete.last_agent_message``, else the last
                     ``agent_message`` event or assistant ``response_item``
``claude-json-verbose`` Claude Code ``-p --output-format json --verbose``: a JSON *array* of
                     every event, read as ``claude-stream``
``chat-completion``  an OpenAI-style chat-completions response: ``choices[0].message.content``
                     (a string or a list of text parts), ``refusal`` when the content is null;
                     ``reasoning_content`` / ``reasoning`` is the reasoning
``messages``         an Anthropic messages API response: the ``text`` blocks of ``content``;
                     ``thinking`` blocks are the reasoning
``responses``        an OpenAI Responses API object: the ``output_text`` (and ``refusal``) parts of
                     its ``message`` output items; its ``reasoning`` items are the reasoning
``api-error``        an API error object (``{type: "error", error}`` or ``{error: {message}}``)
``json-string``      a reply that is one JSON string literal (its value is unwrapped again)
==================== ==========================================================================

``reasoning`` holds what the envelope marks as the model's reasoning (thinking blocks,
``reasoning_content``, reasoning items): it is kept apart from ``text`` and never decides
(:mod:`earnest.pressure.reasoning`). ``stop`` is ``"refusal"`` when the model refused (a
chat-completions ``refusal`` with null content, a Responses ``refusal`` part, a messages
``stop_reason: "refusal"``) and ``"truncated"`` when the reply was cut at its token limit
(``finish_reason: "length"``, ``stop_reason: "max_tokens"``, a Responses ``incomplete`` status
for ``max_output_tokens``).

``error`` is set when the envelope itself says the run failed (``is_error``, an
``error_*`` subtype, a Gemini ``error``, a failed Codex turn, an API error): such a reply is
never scoreable, whatever its text says.

Example:
    >>> u = unwrap_envelope('{"type": "result", "is_error": false, "result": "Done.\\\\nCHOICE: C"}')
    >>> u.envelope, u.text.splitlines()[-1], u.error
    ('claude-json', 'CHOICE: C', None)
    >>> unwrap_envelope("CHOICE: B").envelope is None
    True
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal

from earnest.fastjson import parse_loose
from earnest.safejson import loads as safe_loads

_MAX_DEPTH = 4

StopReason = Literal["refusal", "truncated"]


@dataclass(frozen=True, slots=True)
class Unwrapped:
    """A reply's text after unwrapping; ``envelope`` names the envelope(s), ``None`` for plain text.

    Nested envelopes (a JSON string holding a CLI result) are named outermost first, joined by
    ``+`` (``json-string+claude-json``).
    """

    text: str
    envelope: str | None = None
    error: str | None = None
    reasoning: str = ""
    stop: StopReason | None = None


class _Unwrapping:
    """An :class:`Unwrapped` being built: the same slots in the same order, and mutable.

    :func:`_unwrapped` fills one in and assigns ``__class__`` (allowed between classes of the
    same layout), which makes it an Unwrapped like any other. The frozen dataclass's
    ``__init__`` costs an ``object.__setattr__`` call per field: about four times as much,
    for every reply judged (plain text too).
    """

    __slots__ = Unwrapped.__slots__
    text: str
    envelope: str | None
    error: str | None
    reasoning: str
    stop: StopReason | None


def _unwrapped(
    text: str,
    envelope: str | None = None,
    error: str | None = None,
    reasoning: str = "",
    stop: StopReason | None = None,
) -> Unwrapped:
    """``Unwrapped(text, envelope, error, reasoning, stop)``, built as its mutable twin."""
    u = _Unwrapping()
    u.text = text
    u.envelope = envelope
    u.error = error
    u.reasoning = reasoning
    u.stop = stop
    u.__class__ = Unwrapped  # type: ignore[assignment]
    return u  # type: ignore[return-value]


assert _Unwrapping.__slots__ == tuple(f.name for f in fields(Unwrapped))


def unwrap_envelope(text: str) -> Unwrapped:
    """Unwrap ``text`` if it is a known envelope; return it unchanged otherwise."""
    head = text[:1]
    if head not in _OPENERS and not head.isspace():  # plain text, the common case
        return _unwrapped(text)
    # The JSON is read without checking its long numbers (fastjson.parse_loose): what is read
    # of an envelope is strings, structure and booleans, never a number, except that an error
    # object may be printed whole (json.dumps): a reply that reports an error is read again,
    # exactly.
    found = _unwrap(text, exact=False)
    if found.error is not None:
        return _unwrap(text, exact=True)
    return found


def _unwrap(text: str, exact: bool) -> Unwrapped:
    found = _unwrap_once(text, exact)
    if found is None:
        return _unwrapped(text)
    inner = found.text[:1]
    if found.envelope and inner not in _OPENERS and not inner.isspace():
        # One envelope around plain text (nearly every envelope): what the loop below builds
        # from it is equal to it, field for field.
        return found
    names: list[str] = []
    error: str | None = None
    reasoning: list[str] = []
    stop: StopReason | None = None
    current = text
    for _ in range(_MAX_DEPTH):
        if found is None:
            break
        names.append(found.envelope or "")
        error = error or found.error
        stop = stop or found.stop
        if found.reasoning:
            reasoning.append(found.reasoning)
        current = found.text
        if len(names) < _MAX_DEPTH:
            found = _unwrap_once(current, exact)
    return _unwrapped(current, "+".join(names), error, "\n\n".join(reasoning), stop)


_OPENERS = ("{", '"', "[")
# Where str.splitlines() ends a line.
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _json(text: str, exact: bool) -> Any:
    """The JSON value of ``text`` (``ValueError`` when it is not JSON): as
    :func:`earnest.safejson.loads` reads it, or (not ``exact``) with its long numbers perhaps
    read as floats (:func:`earnest.fastjson.parse_loose`), which costs less."""
    if not exact:
        loose = parse_loose(text)
        if loose is not None:
            return loose[0]
    return safe_loads(text)


def _unwrap_once(text: str, exact: bool = True) -> Unwrapped | None:
    # Cheap gate: plain replies (the common case) never reach the JSON decoder, nor copy the
    # reply to strip it.
    head = text[:1]
    if head.isspace():
        head = text.lstrip()[:1]
    if head not in _OPENERS:
        return None
    stripped = text.strip()
    if head == "{":
        first = _first_line_value(stripped, exact)
        if first is not None:
            # A whole JSON value on the first line and more text after it: the text is not one
            # JSON value (the decoder would read that value, then refuse what follows), so it
            # is read as an event log straight away, its first line not parsed twice.
            return _unwrap_jsonl(stripped, first, exact) if isinstance(first, dict) else None
    try:
        value = _json(stripped, exact)
    except (ValueError, RecursionError):
        return _unwrap_jsonl(stripped, None, exact) if head == "{" else None
    if isinstance(value, str):
        return _unwrapped(value, "json-string")
    if isinstance(value, dict):
        return _unwrap_object(value)
    if isinstance(value, list) and value and all(isinstance(e, dict) for e in value):
        # ``claude -p --output-format json --verbose`` prints every event as one JSON array.
        found = _read_events(value)
        if found is not None and found.envelope == "claude-stream":
            return _unwrapped(
                found.text, "claude-json-verbose", found.error, found.reasoning, found.stop
            )
        return found
    return None


# --- single JSON objects -------------------------------------------------------------------


def _unwrap_object(obj: Mapping[str, Any]) -> Unwrapped | None:
    for reader in _OBJECT_READERS:
        found = reader(obj)
        if found is not None:
            return found
    # A one-line event log is also a single object.
    return _read_events([obj])


def _claude_json(obj: Mapping[str, Any]) -> Unwrapped | None:
    current = obj.get("type") == "result" and bool(
        {"subtype", "is_error", "session_id"} & obj.keys()
    )
    old = obj.get("role") == "system" and "cost_usd" in obj and "result" in obj
    if not (current or old):
        return None
    return _unwrapped(_str(obj.get("result")), "claude-json", _claude_error(obj))


def _claude_error(obj: Mapping[str, Any]) -> str | None:
    subtype = obj.get("subtype")
    if obj.get("is_error") is True:
        detail = _str(obj.get("result")) or _str(subtype) or "error"
        return f"is_error: {_one_line(detail)}"
    if isinstance(subtype, str) and subtype.startswith("error"):
        return subtype
    return None


def _gemini_json(obj: Mapping[str, Any]) -> Unwrapped | None:
    if "response" not in obj or not ({"stats", "error"} & obj.keys()):
        return None
    if not (obj["response"] is None or isinstance(obj["response"], str)):
        return None
    err = obj.get("error")
    error = None
    if err:
        message = err.get("message") if isinstance(err, dict) else err
        error = f"error: {_one_line(_str(message) or json.dumps(err))}"
    return _unwrapped(_str(obj.get("response")), "gemini-json", error)


def _chat_completion(obj: Mapping[str, Any]) -> Unwrapped | None:
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    first = choices[0]
    message = first.get("message")
    reasoning = ""
    stop: StopReason | None = "truncated" if first.get("finish_reason") == "length" else None
    if isinstance(message, dict):
        text = _content_text(message.get("content"))
        if not text and isinstance(message.get("refusal"), str) and message["refusal"]:
            text, stop = message["refusal"], "refusal"
        # DeepSeek and most OpenAI-compatible servers: ``reasoning_content``; others ``reasoning``.
        for key in ("reasoning_content", "reasoning"):
            if isinstance(message.get(key), str):
                reasoning = message[key]
                break
    elif isinstance(first.get("text"), str) and (
        "finish_reason" in first or obj.get("object") == "text_completion"
    ):  # legacy completions; a bare {"choices": [{"text"}]} is more likely a quoted fixture
        text = first["text"]
    else:
        return None
    return _unwrapped(text, "chat-completion", None, reasoning, stop)


def _messages(obj: Mapping[str, Any]) -> Unwrapped | None:
    if obj.get("type") != "message" or obj.get("role") != "assistant":
        return None
    if not isinstance(obj.get("content"), list):
        return None
    stop: StopReason | None = _MESSAGES_STOP.get(_str(obj.get("stop_reason")))
    return _unwrapped(
        _content_text(obj["content"]), "messages", None, _thinking_text(obj["content"]), stop
    )


_MESSAGES_STOP: dict[str, StopReason] = {"max_tokens": "truncated", "refusal": "refusal"}


def _responses(obj: Mapping[str, Any]) -> Unwrapped | None:
    output = obj.get("output")
    if not isinstance(output, list) or obj.get("object", "response") != "response":
        return None
    if not all(isinstance(i, dict) and isinstance(i.get("type"), str) for i in output):
        return None
    if "object" not in obj and not any(i["type"] in {"message", "reasoning"} for i in output):
        return None
    texts: list[str] = []
    reasoning: list[str] = []
    stop: StopReason | None = None
    for item in output:
        if item["type"] == "message" and item.get("role", "assistant") == "assistant":
            for part in item.get("content") or ():
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "output_text" and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif part.get("type") == "refusal" and isinstance(part.get("refusal"), str):
                    texts.append(part["refusal"])
                    stop = "refusal"
        elif item["type"] == "reasoning":
            for key in ("summary", "content"):
                for part in item.get(key) or ():
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        reasoning.append(part["text"])
    if not texts and isinstance(obj.get("output_text"), str):
        texts.append(obj["output_text"])  # the SDK's convenience field, when serialised
    details = obj.get("incomplete_details")
    if (
        obj.get("status") == "incomplete"
        and isinstance(details, dict)
        and details.get("reason") == "max_output_tokens"
    ):
        stop = stop or "truncated"
    error = None
    err = obj.get("error")
    if obj.get("status") == "failed" or isinstance(err, dict):
        message = err.get("message") if isinstance(err, dict) else None
        error = f"error: {_one_line(_str(message) or 'the response failed')}"
    return _unwrapped("\n".join(texts), "responses", error, "\n\n".join(reasoning), stop)


def _api_error(obj: Mapping[str, Any]) -> Unwrapped | None:
    err = obj.get("error")
    if not isinstance(err, dict):
        return None
    if obj.get("type") != "error" and not (set(obj) <= {"error"} and "message" in err):
        return None
    message = _one_line(_str(err.get("message")) or json.dumps(err))
    return _unwrapped("", "api-error", f"error: {message}")


_OBJECT_READERS: tuple[Callable[[Mapping[str, Any]], Unwrapped | None], ...] = (
    _claude_json,
    _gemini_json,
    _chat_completion,
    _messages,
    _responses,
    _api_error,
)


# --- JSONL event logs ----------------------------------------------------------------------

_CLAUDE_EVENTS = frozenset({"system", "assistant", "user", "result"})
_GEMINI_EVENTS = frozenset({"init", "message", "tool_use", "tool_result", "result", "error"})
_CODEX_EXEC_EVENTS = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
        "error",
    }
)
_CODEX_ROLLOUT_EVENTS = frozenset({"session_meta", "event_msg", "response_item", "turn_context"})
_COPILOT_KINDS = frozenset(
    {"session", "user", "assistant", "tool", "model", "hook", "system", "subagent", "skill"}
)
"""The first part of a Copilot CLI event's dotted type (``assistant.message``)."""
_OPENCODE_EVENTS = frozenset(
    {"step_start", "text", "tool_use", "step_finish", "reasoning", "error"}
)


def _first_line_value(text: str, exact: bool = True) -> Any:
    """The JSON value on the first line of ``text`` (a line as :meth:`str.splitlines` cuts it),
    when that line is one and another line follows; ``None`` otherwise."""
    newline = text.find("\n")
    if newline < 0:
        return None  # one line (a single JSON object, the common envelope): parsed whole
    end = _LINE_BREAK.search(text, 0, newline + 1)
    assert end is not None  # the newline itself at the latest
    try:
        return _json(text[: end.start()].strip(), exact)
    except (ValueError, RecursionError):
        return None


def _unwrap_jsonl(
    text: str, first: dict[str, Any] | None = None, exact: bool = True
) -> Unwrapped | None:
    """``first``: the first line's value, when the caller has parsed it."""
    events: list[dict[str, Any]] = []
    lines = _lines(text)
    if first is not None:
        events.append(first)
        del lines[0]
    for line in lines:
        line = line.strip()
        if not line:
            continue
        try:
            value = _json(line, exact)
        except (ValueError, RecursionError):
            # Real logs carry the odd broken line; skip it once the log is recognised.
            if not events:
                return None
            continue
        if not isinstance(value, dict):
            if not events:
                return None
            continue
        events.append(value)
    return _read_events(events) if events else None


# The line breaks of str.splitlines() an ASCII text may hold, besides "\n".
_ASCII_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def _lines(text: str) -> list[str]:
    """``text.splitlines()``. An event log is nearly always ASCII with ``\\n`` its only line
    break (six memchr probes settle that): its lines are then found by jumping from one
    ``\\n`` to the next, a fraction of the cost of testing every character, and a log of
    many short lines is split in one call once that shows.

        >>> _lines("a\\nb\\n"), _lines("a\\r\\nb"), _lines("")
        (['a', 'b'], ['a', 'b'], [])
    """
    if not text.isascii() or any(c in text for c in _ASCII_BREAKS):
        return text.splitlines()
    lines: list[str] = []
    pos, n = 0, len(text)
    while pos < n:
        if len(lines) >= 8 and pos < 64 * len(lines):  # short lines: the rest in one split
            rest = text[pos:].split("\n")
            if not rest[-1]:  # splitlines has no empty piece after a final break
                rest.pop()
            lines += rest
            break
        end = text.find("\n", pos)
        if end < 0:
            lines.append(text[pos:])
            break
        lines.append(text[pos:end])
        pos = end + 1
    return lines


def _read_events(events: Sequence[Mapping[str, Any]]) -> Unwrapped | None:
    kind = _event_kind(events)
    if kind == "claude-stream":
        return _claude_stream(events)
    if kind == "gemini-stream":
        return _gemini_stream(events)
    if kind == "codex-exec":
        return _codex_exec(events)
    if kind == "codex-rollout":
        return _codex_rollout(events)
    if kind == "opencode-run":
        return _opencode_run(events)
    if kind == "copilot-json":
        return _copilot_json(events)
    return None


def _event_kind(events: Sequence[Mapping[str, Any]]) -> str | None:
    for e in events:
        t = e.get("type")
        if not isinstance(t, str):
            continue
        if t in _CODEX_ROLLOUT_EVENTS and isinstance(e.get("payload"), dict):
            return "codex-rollout"
        if (
            t in _OPENCODE_EVENTS
            and "sessionID" in e
            and (isinstance(e.get("part"), dict) or (t == "error" and "error" in e))
        ):
            return "opencode-run"
        if t.partition(".")[0] in _COPILOT_KINDS and "." in t and isinstance(e.get("data"), dict):
            return "copilot-json"
        if t in _CODEX_EXEC_EVENTS and (t != "error" or "message" in e):
            return "codex-exec"
        if (
            t in _CLAUDE_EVENTS
            and ("session_id" in e or "parent_tool_use_id" in e)
            and (t != "user" or isinstance(e.get("message"), dict))
        ):
            return "claude-stream"
        if t in _GEMINI_EVENTS and (
            t == "init"
            or (t == "message" and isinstance(e.get("content"), str) and "role" in e)
            or (t in {"tool_use", "tool_result"} and "tool_id" in e)
            or (t == "result" and "stats" in e)
        ):
            return "gemini-stream"
    return None


def _claude_stream(events: Sequence[Mapping[str, Any]]) -> Unwrapped:
    result = None
    thinking: list[str] = []
    for e in events:
        if e.get("type") == "result":
            result = e
        elif e.get("type") == "assistant" and not e.get("parent_tool_use_id"):
            msg = e.get("message")
            if isinstance(msg, dict):
                thought = _thinking_text(msg.get("content"))
                if thought:
                    thinking.append(thought)
    reasoning = "\n\n".join(thinking)
    if result is not None and isinstance(result.get("result"), str):
        return _unwrapped(result["result"], "claude-stream", _claude_error(result), reasoning)
    # No final text (max turns, a cut log): fall back to the last top-level assistant message.
    texts: dict[str, list[str]] = {}
    last_id: str | None = None
    for i, e in enumerate(events):
        msg = e.get("message")
        if e.get("type") != "assistant" or e.get("parent_tool_use_id") or not isinstance(msg, dict):
            continue
        text = _content_text(msg.get("content"))
        if not text:
            continue
        # One API message may be split over several events that share ``message.id``.
        raw_id = msg.get("id")
        mid = raw_id if isinstance(raw_id, str) else f"#{i}"
        texts.setdefault(mid, []).append(text)
        last_id = mid
    text = "\n".join(texts[last_id]) if last_id is not None else ""
    error = _claude_error(result) if result is not None else None
    return _unwrapped(text, "claude-stream", error, reasoning)


def _gemini_stream(events: Sequence[Mapping[str, Any]]) -> Unwrapped:
    # Two sessions can be appended in one file: the reply is the last session's.
    start = 0
    for i, e in enumerate(events):
        if e.get("type") == "init":
            start = i
    chunks: list[str] = []
    error = None
    for e in events[start:]:
        t = e.get("type")
        if t == "message" and e.get("role") == "assistant":
            content = e.get("content")
            if isinstance(content, str):
                # Non-delta messages are whole messages; delta chunks continue the current one.
                if chunks and not e.get("delta"):
                    chunks.append("\n")
                chunks.append(content)
        elif t in {"tool_use", "tool_result"} or (t == "message" and e.get("role") == "user"):
            chunks = []  # the final answer is what follows the last tool round
        elif (t == "result" and e.get("status") == "error") or t == "error":
            err = e.get("error")
            message = err.get("message") if isinstance(err, dict) else (err or e.get("message"))
            error = f"error: {_one_line(_str(message) or 'error')}"
    return _unwrapped("".join(chunks), "gemini-stream", error)


def _codex_exec(events: Sequence[Mapping[str, Any]]) -> Unwrapped:
    text = ""
    error = None
    for e in events:
        t = e.get("type")
        item = e.get("item")
        if t == "item.completed" and isinstance(item, dict):
            kind = item.get("type", item.get("item_type"))
            if kind in {"agent_message", "assistant_message"} and isinstance(item.get("text"), str):
                text = item["text"]
        elif t == "turn.failed" or t == "error":
            err = e.get("error")
            message = err.get("message") if isinstance(err, dict) else e.get("message")
            error = f"error: {_one_line(_str(message) or t)}"
    return _unwrapped(text, "codex-exec", error)


def _opencode_run(events: Sequence[Mapping[str, Any]]) -> Unwrapped:
    """The text parts of the last assistant message that has any (earlier steps' texts,
    written before their tool calls, are not the answer)."""
    texts: dict[str, list[str]] = {}
    last = ""
    thinking: list[str] = []
    error = None
    for e in events:
        part = e.get("part")
        if e.get("type") == "error":
            err = e.get("error")
            data = err.get("data") if isinstance(err, dict) else None
            message = data.get("message") if isinstance(data, dict) else None
            name = err.get("name") if isinstance(err, dict) else None
            error = f"error: {_one_line(_str(message) or _str(name) or 'error')}"
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            if e.get("type") == "reasoning":
                thinking.append(part["text"])
            elif e.get("type") == "text":
                message_id = _str(part.get("messageID"))
                texts.setdefault(message_id, []).append(part["text"])
                last = message_id
    return _unwrapped("\n".join(texts.get(last, [])), "opencode-run", error, "\n\n".join(thinking))


def _copilot_json(events: Sequence[Mapping[str, Any]]) -> Unwrapped:
    """The text of the last ``assistant.message`` that has any (a message written before its
    tool calls is not the answer when another follows); its ``reasoningText`` as reasoning."""
    text = ""
    reasoning = ""
    error = None
    for e in events:
        t = e.get("type")
        data = e.get("data")
        if t == "assistant.message" and isinstance(data, dict):
            content = data.get("content")
            if isinstance(content, str) and content.strip():
                text = content
                thought = data.get("reasoningText")
                reasoning = thought if isinstance(thought, str) else ""
        elif t == "session.error" and isinstance(data, dict):
            error = f"error: {_one_line(_str(data.get('message')) or 'session error')}"
        elif t == "result" and isinstance(e.get("exitCode"), int) and e["exitCode"] != 0:
            error = error or f"error: exit code {e['exitCode']}"
    return _unwrapped(text, "copilot-json", error, reasoning)


def _codex_rollout(events: Sequence[Mapping[str, Any]]) -> Unwrapped:
    final: str | None = None
    last = ""
    for e in events:
        payload = e.get("payload")
        if not isinstance(payload, dict):
            continue
        ptype = payload.get("type")
        if e.get("type") == "event_msg":
            if ptype == "agent_message" and isinstance(payload.get("message"), str):
                last = payload["message"]
            elif ptype == "task_complete" and isinstance(payload.get("last_agent_message"), str):
                final = payload["last_agent_message"]
        elif (
            e.get("type") == "response_item"
            and ptype == "message"
            and payload.get("role") == "assistant"
        ):
            last = _content_text(payload.get("content")) or last
    return _unwrapped(final if final is not None else last, "codex-rollout")


# --- helpers -------------------------------------------------------------------------------


def _content_text(content: Any) -> str:
    """Text of a message ``content``: a string, or the text of a list of parts/blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(_part_texts(content))


def _thinking_text(content: Any) -> str:
    """The text of the ``thinking`` blocks of a message ``content`` (Anthropic)."""
    if not isinstance(content, list):
        return ""
    return "\n\n".join(
        part["thinking"]
        for part in content
        if isinstance(part, dict)
        and part.get("type") == "thinking"
        and isinstance(part.get("thinking"), str)
    )


def _part_texts(parts: Iterable[Any]) -> Iterable[str]:
    for part in parts:
        if isinstance(part, str):
            yield part
        elif isinstance(part, dict) and part.get("type", "text") in {
            "text",
            "output_text",
        }:
            text = part.get("text")
            if isinstance(text, str):
                yield text


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["StopReason", "Unwrapped", "unwrap_envelope"]
