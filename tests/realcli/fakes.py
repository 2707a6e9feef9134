"""Fake model APIs on 127.0.0.1 for the real-CLI tier: the agent CLIs talk to them, offline.

One :class:`FakeModel` speaks one of four wire protocols, each with SSE streaming as the real
CLI (or agent framework) asks for it:

- ``anthropic``: ``POST /v1/messages`` (Claude Code; ``stream: true``, or a plain JSON reply);
- ``responses``: ``POST /v1/responses`` (Codex through a custom ``model_providers`` entry);
- ``gemini``: ``POST /v1beta/models/M:streamGenerateContent?alt=sse`` and ``:generateContent``;
- ``chat``: ``POST /v1/chat/completions`` (OpenAI-compatible chat completions, as the agent
  frameworks of ``tests/integrations`` speak it; ``stream: true`` or a plain JSON reply).

The model plays a *script*: a callable given each agent request (one that offers tools) that
returns the next :class:`Turn` — a text, tool calls, or both. Requests that offer no tools
(titles, Gemini's next-speaker and routing checks) get a neutral reply and do not consume the
script. Every request is kept, so a test can assert what the CLI sent back to the model (the
stop hook's block reason, a tool's output).

Example:
    >>> turns = Turns([Turn(text="Done.")])
    >>> turns(ModelRequest("anthropic", "/v1/messages", {"tools": [{}]}, 1)).text
    'Done.'
"""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from serverkit import LocalServer, OwnedServer


@dataclass(frozen=True)
class Call:
    """A tool call the fake model makes; the CLI executes it for real."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Turn:
    """One model reply: optional text, then tool calls (none: the agent's turn ends)."""

    text: str = ""
    calls: tuple[Call, ...] = ()


@dataclass
class ModelRequest:
    api: str
    path: str
    body: dict[str, Any]
    number: int
    agent: bool = False  # offers tools: a step of the agent loop
    turn: Turn | None = None  # what the fake model answered

    @property
    def dump(self) -> str:
        return json.dumps(self.body, ensure_ascii=False)


Script = Callable[[ModelRequest], Turn]


class Turns:
    """A script that plays its turns in order, then says ``fallback`` (and counts overflow)."""

    def __init__(
        self, turns: Sequence[Turn], fallback: str = "I have nothing more to add."
    ) -> None:
        self.turns = list(turns)
        self.fallback = fallback
        self.played = 0
        self.overflow = 0
        self._lock = threading.Lock()

    def __call__(self, request: ModelRequest) -> Turn:
        with self._lock:
            if self.played < len(self.turns):
                self.played += 1
                return self.turns[self.played - 1]
            self.overflow += 1
            return Turn(text=self.fallback)


@dataclass
class _State:
    requests: list[ModelRequest] = field(default_factory=list)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))


class FakeModel(LocalServer):
    """A scripted model API (``api``: anthropic, responses, gemini or chat); a context manager."""

    def __init__(self, api: str, script: Script) -> None:
        if api not in {"anthropic", "responses", "gemini", "chat"}:
            raise ValueError(api)
        self.api = api
        self.script = script
        self.state = _State()
        self._lock = threading.Lock()
        super().__init__(_Handler, poll_interval=0.05)

    # ------------------------------------------------------------------ addresses
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # ------------------------------------------------------------------ what was seen
    @property
    def requests(self) -> list[ModelRequest]:
        with self._lock:
            return list(self.state.requests)

    @property
    def agent_requests(self) -> list[ModelRequest]:
        return [r for r in self.requests if r.agent]

    def sent_back(self, needle: str) -> list[ModelRequest]:
        """The agent requests whose body contains ``needle`` (e.g. a block reason)."""
        return [r for r in self.agent_requests if needle in r.dump]

    def new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self.state.ids):04d}"

    def answer(self, path: str, body: dict[str, Any]) -> tuple[ModelRequest, Turn | None]:
        agent = _offers_tools(self.api, body)
        with self._lock:
            request = ModelRequest(self.api, path, body, len(self.state.requests) + 1, agent)
            self.state.requests.append(request)
        if not agent:
            return request, None
        turn = self.script(request)
        request.turn = turn
        return request, turn


def _offers_tools(api: str, body: dict[str, Any]) -> bool:
    tools = body.get("tools")
    if not tools:
        return False
    if api == "gemini":
        return any(t.get("functionDeclarations") for t in tools if isinstance(t, dict))
    return True


# ---------------------------------------------------------------------------- wire formats


def _sse(event: str | None, data: dict[str, Any]) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def anthropic_events(model: FakeModel, body: dict[str, Any], turn: Turn) -> list[bytes]:
    """The Messages API stream of one reply: message_start, content blocks, message_stop."""
    msg_id = model.new_id("msg_fake")
    events = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "claude-fake"),
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 20, "output_tokens": 1},
                },
            },
        )
    ]
    index = 0
    if turn.text:
        events += [
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": turn.text},
                },
            ),
            _sse("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
        index += 1
    for call in turn.calls:
        events += [
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {
                        "type": "tool_use",
                        "id": model.new_id("toolu_fake"),
                        "name": call.name,
                        "input": {},
                    },
                },
            ),
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(call.args)},
                },
            ),
            _sse("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
        index += 1
    events += [
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": "tool_use" if turn.calls else "end_turn",
                    "stop_sequence": None,
                },
                "usage": {"output_tokens": 10},
            },
        ),
        _sse("message_stop", {"type": "message_stop"}),
    ]
    return events


def anthropic_message(model: FakeModel, body: dict[str, Any], turn: Turn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for call in turn.calls:
        content.append(
            {
                "type": "tool_use",
                "id": model.new_id("toolu_fake"),
                "name": call.name,
                "input": call.args,
            }
        )
    return {
        "id": model.new_id("msg_fake"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-fake"),
        "content": content,
        "stop_reason": "tool_use" if turn.calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 10},
    }


def responses_events(model: FakeModel, body: dict[str, Any], turn: Turn) -> list[bytes]:
    """The Responses API stream of one reply: created, output items, completed."""
    resp_id = model.new_id("resp_fake")
    events = [
        _sse(
            "response.created",
            {"type": "response.created", "response": {"id": resp_id, "status": "in_progress"}},
        )
    ]
    items: list[dict[str, Any]] = []
    if turn.text:
        items.append(
            {
                "type": "message",
                "id": model.new_id("msg_fake"),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
            }
        )
    for call in turn.calls:
        items.append(
            {
                "type": "function_call",
                "id": model.new_id("fc_fake"),
                "call_id": model.new_id("call_fake"),
                "name": call.name,
                "arguments": json.dumps(call.args),
                "status": "completed",
            }
        )
    for position, item in enumerate(items):
        events.append(
            _sse(
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": position, "item": item},
            )
        )
    events.append(
        _sse(
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    "id": resp_id,
                    "status": "completed",
                    "output": items,
                    "usage": {
                        "input_tokens": 20,
                        "input_tokens_details": {"cached_tokens": 0},
                        "output_tokens": 10,
                        "output_tokens_details": {"reasoning_tokens": 0},
                        "total_tokens": 30,
                    },
                },
            },
        )
    )
    return events


def chat_message(model: FakeModel, turn: Turn) -> dict[str, Any]:
    """The assistant message of one chat-completions reply (text and/or tool calls)."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": model.new_id("call_fake"),
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.args)},
            }
            for call in turn.calls
        ]
    return message


def chat_completion(model: FakeModel, body: dict[str, Any], turn: Turn) -> dict[str, Any]:
    return {
        "id": model.new_id("chatcmpl-fake"),
        "object": "chat.completion",
        "created": 1700000000,
        "model": body.get("model", "gpt-fake"),
        "choices": [
            {
                "index": 0,
                "message": chat_message(model, turn),
                "finish_reason": "tool_calls" if turn.calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
    }


def chat_events(model: FakeModel, body: dict[str, Any], turn: Turn) -> list[bytes]:
    """The chat-completions stream of one reply: one delta with everything, then the finish."""
    message = chat_message(model, turn)
    delta: dict[str, Any] = {"role": "assistant", "content": message["content"] or ""}
    if turn.calls:
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
    head = {"id": model.new_id("chatcmpl-fake"), "object": "chat.completion.chunk",
            "created": 1700000000, "model": body.get("model", "gpt-fake")}  # fmt: skip
    finish = "tool_calls" if turn.calls else "stop"
    last: dict[str, Any] = {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    if (body.get("stream_options") or {}).get("include_usage"):
        last["usage"] = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
    return [
        _sse(None, {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
        _sse(None, last),
        b"data: [DONE]\n\n",
    ]


def gemini_chunk(turn: Turn) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    if turn.text:
        parts.append({"text": turn.text})
    for call in turn.calls:
        parts.append({"functionCall": {"name": call.name, "args": call.args}})
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": 20,
            "candidatesTokenCount": 10,
            "totalTokenCount": 30,
        },
        "modelVersion": "gemini-fake",
    }


def gemini_side_text(body: dict[str, Any]) -> str:
    """A neutral answer to a request without tools: JSON when a schema asks for it."""
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    props = schema.get("properties") if isinstance(schema, dict) else None
    if isinstance(props, dict) and props:
        answer: dict[str, Any] = {}
        for key, spec in props.items():
            if key == "next_speaker":
                answer[key] = "user"
            elif isinstance(spec, dict) and spec.get("enum"):
                answer[key] = spec["enum"][0]
            elif isinstance(spec, dict) and str(spec.get("type", "")).lower() == "boolean":
                answer[key] = False
            elif isinstance(spec, dict) and str(spec.get("type", "")).lower() in {
                "number",
                "integer",
            }:
                answer[key] = spec.get("minimum", 1)
            else:
                answer[key] = "fake"
        return json.dumps(answer)
    return "ok"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: OwnedServer[FakeModel]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: list[bytes]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [], "models": []})
        else:
            self._json(404, {"error": {"message": f"no {self.path} here", "type": "not_found"}})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        model = self.server.owner
        path = self.path.split("?", 1)[0]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            if path.endswith("count_tokens") or path.endswith(":countTokens"):
                self._json(200, {"input_tokens": 20, "totalTokens": 20})
                return
            _, turn = model.answer(self.path, body)
            reply = turn or Turn(text=_side_text(model.api, body))
            if model.api == "anthropic":
                if body.get("stream"):
                    self._stream(anthropic_events(model, body, reply))
                else:
                    self._json(200, anthropic_message(model, body, reply))
            elif model.api == "responses":
                self._stream(responses_events(model, body, reply))
            elif model.api == "chat":
                if body.get("stream"):
                    self._stream(chat_events(model, body, reply))
                else:
                    self._json(200, chat_completion(model, body, reply))
            elif ":streamGenerateContent" in path:
                self._stream([_sse(None, gemini_chunk(reply))])
            else:
                self._json(200, gemini_chunk(reply))


def _side_text(api: str, body: dict[str, Any]) -> str:
    if api == "gemini":
        return gemini_side_text(body)
    return "Fake session"


__all__ = ["Call", "FakeModel", "ModelRequest", "Script", "Turn", "Turns"]
