"""A minimal OTLP/HTTP receiver on 127.0.0.1 for the tests: it decodes what it is sent.

Each ``POST /v1/logs`` body is parsed with the ``opentelemetry-proto`` package's generated
``ExportLogsServiceRequest`` (the real wire format, protobuf, gzip when the exporter
compresses), and kept. ``status`` makes it refuse every request (``500``) to test the failure
path; :func:`closed_port` gives a port nothing listens on.
"""

from __future__ import annotations

import gzip
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass
class Received:
    """What the receiver was sent: decoded requests, and the raw paths and content types."""

    requests: list[ExportLogsServiceRequest] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    content_types: list[str] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)
    status: int = 200

    def events(self) -> list[dict[str, Any]]:
        """Every log record as ``{event_name, attributes, schema_url, scope, resource}``."""
        out = []
        for request in self.requests:
            for rl in request.resource_logs:
                resource = {a.key: value(a.value) for a in rl.resource.attributes}
                for sl in rl.scope_logs:
                    for record in sl.log_records:
                        out.append(
                            {
                                "event_name": record.event_name,
                                "attributes": {a.key: value(a.value) for a in record.attributes},
                                "severity": record.severity_number,
                                "schema_url": sl.schema_url,
                                "scope": sl.scope.name,
                                "resource": resource,
                            }
                        )
        return out


def value(v: AnyValue) -> Any:
    """An OTLP ``AnyValue`` as a Python value."""
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, kind) if kind else None


@contextmanager
def otlp_receiver(status: int = 200) -> Iterator[tuple[str, Received]]:
    """Serve OTLP/HTTP on 127.0.0.1; yields the base URL and what arrives."""
    received = Received(status=status)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            received.paths.append(self.path)
            received.content_types.append(self.headers.get("Content-Type", ""))
            received.authorizations.append(self.headers.get("Authorization", ""))
            if received.status != 200:
                self.send_response(received.status)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.path == "/v1/logs":
                request = ExportLogsServiceRequest()
                request.ParseFromString(body)  # the real protobuf, or this raises
                received.requests.append(request)
                reply = ExportLogsServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)
            else:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
