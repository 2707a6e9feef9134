"""Local model servers for the live tests and the benchmark (loopback only).

``FakeModelServer`` speaks just enough of the OpenAI chat-completions API
(``POST /v1/chat/completions``) and the Anthropic messages API (``POST /v1/messages``) to drive
the real SDKs. Each request is answered by a *script*: a callable given the request (path,
JSON body, 1-based request number) that returns an :class:`Action` — a reply text, an HTTP
error with headers, a delay, a dropped connection or a malformed body.

Run as a script it serves until killed (used by ``benchmarks/bench_live.py``):
``PYTHONPATH=tests python tests/live/live_servers.py --latency 0.2`` prints ``port N``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from serverkit import LocalServer, OwnedServer


@dataclass
class Action:
    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False
    body: bytes | None = None  # raw body, sent as-is (malformed replies)
    usage: tuple[int, int] = (50, 10)


@dataclass
class Request:
    path: str
    body: dict[str, Any]
    number: int
    at: float
    headers: dict[str, str] = field(default_factory=dict)


Script = Callable[[Request], Action]


def prompt_of(req: Request) -> tuple[str, str]:
    """(system, user) of a chat-completions or messages request."""
    body = req.body
    if "system" in body:
        system = body["system"] if isinstance(body["system"], str) else json.dumps(body["system"])
        user = body["messages"][-1]["content"]
        return system, user if isinstance(user, str) else json.dumps(user)
    msgs = body.get("messages", [])
    system = next((m["content"] for m in msgs if m.get("role") == "system"), "")
    user = next((m["content"] for m in reversed(msgs) if m.get("role") == "user"), "")
    return system, user


def displayed_letter(user: str, option_texts: Sequence[str], wanted: str) -> str:
    """The letter the prompt shows for option text ``wanted``: options appear in displayed order,
    lettered A, B, C... so the rank of its position among all options' positions gives it."""
    positions = sorted((user.find(t), t) for t in option_texts)
    if any(p < 0 for p, _ in positions):
        raise AssertionError("an option text is missing from the prompt")
    rank = [t for _, t in positions].index(wanted)
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[rank]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's algorithm and
    # the client's delayed ACK stall every keep-alive reply by tens of milliseconds.
    disable_nagle_algorithm = True
    server: OwnedServer[FakeModelServer]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        req = self.server.owner._record(self.path, body, dict(self.headers))
        action = self.server.owner.script(req)
        if action.delay:
            time.sleep(action.delay)
        if action.drop:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if action.body is not None:
            payload = action.body
        elif action.status != 200:
            payload = json.dumps(
                {"error": {"message": f"scripted {action.status}", "type": "scripted"}}
            ).encode()
        elif self.path.rstrip("/").endswith("/messages"):
            payload = json.dumps(_messages_reply(body, action)).encode()
        else:
            payload = json.dumps(_chat_reply(body, action)).encode()
        try:
            self.send_response(action.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            for k, v in action.headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


def _chat_reply(body: dict[str, Any], action: Action) -> dict[str, Any]:
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "local"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": action.text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": action.usage[0],
            "completion_tokens": action.usage[1],
            "total_tokens": sum(action.usage),
        },
    }


def _messages_reply(body: dict[str, Any], action: Action) -> dict[str, Any]:
    return {
        "id": "msg_local",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "local"),
        "content": [{"type": "text", "text": action.text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": action.usage[0], "output_tokens": action.usage[1]},
    }


class FakeModelServer(LocalServer):
    """A scripted local model server on 127.0.0.1 and a random port; a context manager."""

    def __init__(self, script: Script | None = None, *, port: int = 0) -> None:
        self.script: Script = script or (lambda req: Action(text="CHOICE: A"))
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        super().__init__(_Handler, port=port, queue=128)

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        """The Anthropic-style base URL (the SDK appends ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.port}"

    def _record(
        self, path: str, body: dict[str, Any], headers: dict[str, str] | None = None
    ) -> Request:
        with self._lock:
            req = Request(
                path=path,
                body=body,
                number=len(self.requests) + 1,
                at=time.monotonic(),
                headers={k.lower(): v for k, v in (headers or {}).items()},
            )
            self.requests.append(req)
            return req


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--reply", default="CHOICE: A\nRule 1")
    args = parser.parse_args(argv)
    server = FakeModelServer(lambda req: Action(text=args.reply, delay=args.latency))
    server.start()
    print(f"port {server.port}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
