"""A local batch API server for the ``earnest run --batch`` tests (loopback only, real HTTP).

``FakeBatchServer`` speaks enough of the OpenAI Batch API (``POST /v1/files`` multipart with
``purpose=batch``, ``POST /v1/batches``, ``GET /v1/batches/ID``, ``GET /v1/files/ID/content``)
and of Anthropic Message Batches (``POST /v1/messages/batches``, ``GET
/v1/messages/batches/ID``, its ``results_url``) to drive the real SDKs. Each request of a batch
is answered by the same kind of *script* as ``live_servers.FakeModelServer`` (a callable given
a :class:`live_servers.Request` with the request's body, returning an :class:`Action`), with the
same reply bodies, so a batch run and an online run of the same script see the same replies.

A batch stays ``in_progress`` for its first ``polls_before_done`` polls (``None``: until the
test sets it), then ends: a reply with ``status`` 200 is a succeeded line, any other status an
errored one; a request for which ``expire(req)`` is true expired (the OpenAI batch's status is
then ``expired``); one for which ``lose(req)`` is true has no line at all. The server counts
creates and polls.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import default as email_policy
from http.server import BaseHTTPRequestHandler
from typing import Any

from live_servers import Action, Request, Script, _chat_reply, _messages_reply

from serverkit import LocalServer, OwnedServer

Predicate = Callable[[Request], bool]


@dataclass
class FakeBatch:
    id: str
    kind: str  # "openai" | "anthropic"
    lines: list[
        dict[str, Any]
    ]  # OpenAI: {custom_id, method, url, body}; Anthropic: {custom_id, params}
    created_at: float
    input_file_id: str | None = None
    endpoint: str = ""
    polls: int = 0
    ended: bool = False
    status: str = "in_progress"
    output_file_id: str | None = None
    error_file_id: str | None = None
    results: list[dict[str, Any]] = field(default_factory=list)  # Anthropic result lines
    counts: dict[str, int] = field(default_factory=dict)
    ended_at: float | None = None


class FakeBatchServer(LocalServer):
    """A scripted batch API on 127.0.0.1 and a random port; a context manager."""

    def __init__(
        self,
        script: Script | None = None,
        *,
        polls_before_done: int | None = 1,
        expire: Predicate | None = None,
        lose: Predicate | None = None,
        reject: str | None = None,
    ) -> None:
        self.script: Script = script or (lambda req: Action(text="CHOICE: A"))
        self.polls_before_done = polls_before_done
        self.expire = expire or (lambda req: False)
        self.lose = lose or (lambda req: False)
        self.reject = reject
        """An OpenAI batch whose input fails validation: ``failed`` with this message."""
        self.files: dict[str, bytes] = {}
        self.file_purposes: dict[str, str] = {}
        self.batches: dict[str, FakeBatch] = {}
        self.creates = 0
        self.polls = 0
        self.downloads: list[str] = []
        self.seen: list[tuple[str, str]] = []  # (method, path) of every HTTP request
        self.answered: list[Request] = []  # every batch request the script answered
        self._lock = threading.RLock()
        super().__init__(_Handler)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # the API --------------------------------------------------------------------------

    def upload(self, fields: dict[str, bytes]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            fid = f"file-{len(self.files) + 1}"
            self.files[fid] = fields.get("file", b"")
            self.file_purposes[fid] = fields.get("purpose", b"").decode()
        return 200, {
            "id": fid,
            "object": "file",
            "bytes": len(self.files[fid]),
            "created_at": int(time.time()),
            "filename": "batch.jsonl",
            "purpose": self.file_purposes[fid],
            "status": "processed",
        }

    def create_openai(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            fid = body.get("input_file_id")
            if fid not in self.files or self.file_purposes.get(fid) != "batch":
                return 400, {"error": {"message": f"no batch file {fid}", "type": "invalid"}}
            lines = [json.loads(x) for x in self.files[fid].decode().splitlines() if x.strip()]
            self.creates += 1
            b = FakeBatch(
                id=f"batch_{self.creates}",
                kind="openai",
                lines=lines,
                created_at=time.time(),
                input_file_id=fid,
                endpoint=str(body.get("endpoint")),
            )
            if self.reject is not None:
                b.ended, b.ended_at, b.status = True, time.time(), "failed"
                b.counts = {"total": 0, "completed": 0, "failed": 0}
            self.batches[b.id] = b
            return 200, self._openai_view(b)

    def create_anthropic(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.creates += 1
            b = FakeBatch(
                id=f"msgbatch_{self.creates}",
                kind="anthropic",
                lines=list(body.get("requests", [])),
                created_at=time.time(),
            )
            self.batches[b.id] = b
            return 200, self._anthropic_view(b)

    def poll(self, batch_id: str) -> tuple[int, dict[str, Any]]:
        with self._lock:
            b = self.batches.get(batch_id)
            if b is None:
                return 404, {"error": {"message": "no such batch", "type": "not_found_error"}}
            self.polls += 1
            b.polls += 1
            if not b.ended and (
                self.polls_before_done is not None and b.polls > self.polls_before_done
            ):
                self._finish(b)
            return 200, self._openai_view(b) if b.kind == "openai" else self._anthropic_view(b)

    def _answer(self, path: str, body: dict[str, Any]) -> tuple[Request, Action]:
        req = Request(path=path, body=body, number=len(self.answered) + 1, at=time.monotonic())
        self.answered.append(req)
        return req, self.script(req)

    def _finish(self, b: FakeBatch) -> None:
        b.ended, b.ended_at = True, time.time()
        if b.kind == "openai":
            out: list[str] = []
            err: list[str] = []
            expired = False
            for line in b.lines:
                req, action = self._answer(line["url"], line["body"])
                if self.lose(req):
                    continue
                if self.expire(req):
                    expired = True
                    err.append(
                        json.dumps(
                            {
                                "id": f"req_{len(out) + len(err)}",
                                "custom_id": line["custom_id"],
                                "response": None,
                                "error": {
                                    "code": "batch_expired",
                                    "message": "This request could not be executed before the "
                                    "completion window expired.",
                                },
                            }
                        )
                    )
                    continue
                payload = (
                    _chat_reply(line["body"], action)
                    if action.status == 200
                    else {"error": {"message": f"scripted {action.status}", "type": "scripted"}}
                )
                entry = json.dumps(
                    {
                        "id": f"req_{len(out) + len(err)}",
                        "custom_id": line["custom_id"],
                        "response": {
                            "status_code": action.status,
                            "request_id": "r",
                            "body": payload,
                        },
                        "error": None,
                    }
                )
                (out if action.status == 200 else err).append(entry)
            for name, rows in (("output_file_id", out), ("error_file_id", err)):
                if rows:
                    fid = f"file-{len(self.files) + 1}"
                    self.files[fid] = ("\n".join(rows) + "\n").encode()
                    self.file_purposes[fid] = "batch_output"
                    setattr(b, name, fid)
            b.status = "expired" if expired else "completed"
            b.counts = {"total": len(b.lines), "completed": len(out), "failed": len(err)}
            return
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for line in b.lines:
            req, action = self._answer("/v1/messages", line["params"])
            if self.lose(req):
                continue
            if self.expire(req):
                result: dict[str, Any] = {"type": "expired"}
            elif action.status == 200:
                result = {"type": "succeeded", "message": _messages_reply(line["params"], action)}
            else:
                kind = {429: "rate_limit_error", 400: "invalid_request_error"}.get(
                    action.status, "overloaded_error" if action.status == 529 else "api_error"
                )
                result = {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": kind, "message": f"scripted {action.status}"},
                    },
                }
            counts[result["type"]] += 1
            b.results.append({"custom_id": line["custom_id"], "result": result})
        b.status = "ended"
        b.counts = counts

    def _openai_view(self, b: FakeBatch) -> dict[str, Any]:
        status = b.status if b.ended else ("validating" if b.polls == 0 else "in_progress")
        return {
            "id": b.id,
            "object": "batch",
            "endpoint": b.endpoint,
            "input_file_id": b.input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": b.output_file_id,
            "error_file_id": b.error_file_id,
            "created_at": int(b.created_at),
            "in_progress_at": int(b.created_at),
            "completed_at": int(b.ended_at) if b.ended_at and status == "completed" else None,
            "expired_at": int(b.ended_at) if b.ended_at and status == "expired" else None,
            "expires_at": int(b.created_at) + 86400,
            "request_counts": b.counts or {"total": len(b.lines), "completed": 0, "failed": 0},
            "metadata": None,
            "failed_at": int(b.ended_at) if b.ended_at and status == "failed" else None,
            "errors": {
                "object": "list",
                "data": [{"code": "invalid_request", "message": self.reject, "line": 1}],
            }
            if status == "failed"
            else None,
        }

    def _anthropic_view(self, b: FakeBatch) -> dict[str, Any]:
        def iso(t: float) -> str:
            return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))

        return {
            "id": b.id,
            "type": "message_batch",
            "processing_status": b.status,
            "request_counts": b.counts
            or {
                "processing": len(b.lines),
                "succeeded": 0,
                "errored": 0,
                "canceled": 0,
                "expired": 0,
            },
            "created_at": iso(b.created_at),
            "expires_at": iso(b.created_at + 86400),
            "ended_at": iso(b.ended_at) if b.ended_at else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.anthropic_url}/v1/messages/batches/{b.id}/results"
            if b.ended
            else None,
        }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: OwnedServer[FakeBatchServer]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _json(self, status: int, obj: dict[str, Any]) -> None:
        self._send(status, json.dumps(obj).encode())

    def do_POST(self) -> None:
        owner = self.server.owner
        path = self.path.split("?")[0].rstrip("/")
        owner.seen.append(("POST", path))
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if path == "/v1/files":
            ctype = self.headers.get("content-type", "")
            msg = BytesParser(policy=email_policy).parsebytes(
                f"Content-Type: {ctype}\r\n\r\n".encode() + raw
            )
            fields: dict[str, bytes] = {}
            for part in msg.iter_parts():
                name = part.get_param("name", header="content-disposition")
                fields[str(name)] = part.get_payload(decode=True) or b""
            self._json(*owner.upload(fields))
            return
        body = json.loads(raw or b"{}")
        if path == "/v1/batches":
            self._json(*owner.create_openai(body))
        elif path == "/v1/messages/batches":
            self._json(*owner.create_anthropic(body))
        else:
            self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    def do_GET(self) -> None:
        owner = self.server.owner
        path = self.path.split("?")[0].rstrip("/")
        owner.seen.append(("GET", path))
        parts = path.split("/")
        if path.startswith("/v1/files/") and path.endswith("/content"):
            fid = parts[3]
            owner.downloads.append(fid)
            data = owner.files.get(fid)
            if data is None:
                self._json(404, {"error": {"message": "no such file", "type": "not_found"}})
            else:
                self._send(200, data, "application/octet-stream")
        elif path.startswith("/v1/messages/batches/") and path.endswith("/results"):
            b = owner.batches.get(parts[4])
            if b is None or not b.ended:
                self._json(404, {"error": {"message": "not ended", "type": "not_found_error"}})
                return
            owner.downloads.append(b.id)
            data = "".join(json.dumps(r) + "\n" for r in b.results).encode()
            self._send(200, data, "application/binary")
        elif path.startswith("/v1/messages/batches/"):
            self._json(*owner.poll(parts[4]))
        elif path.startswith("/v1/batches/"):
            self._json(*owner.poll(parts[3]))
        else:
            self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})


__all__ = ["FakeBatch", "FakeBatchServer"]
