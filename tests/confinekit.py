"""Tests that need a working bubblewrap (``bwrap``) to confine an ``exec:`` agent, and what
they probe it with.

They skip with the reason when bwrap is missing or cannot start here, unless
``EARNEST_REQUIRE_BWRAP=1`` (set by ``.ci/run`` when it installed a working bubblewrap): then
they fail. :class:`Listener` is a real Unix or TCP listener recording what reaches it (a
stand-in for the SSH agent's or Docker's socket, another port of the machine); :class:`Pong`
a model endpoint that answers ``pong``.
"""

from __future__ import annotations

import os
import socket
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest


def need_bwrap() -> str:
    """The path of a bwrap that confines children here; skip (or fail, when required) else."""
    from earnest.live.confine import bwrap_problem

    program, why = bwrap_problem()
    if why is None:
        return program
    if os.environ.get("EARNEST_REQUIRE_BWRAP") == "1":
        pytest.fail(f"bwrap required (EARNEST_REQUIRE_BWRAP=1) but {why}")
    pytest.skip(why)
    raise AssertionError("unreachable")


class Listener:
    """A real listener (Unix path or TCP port on 127.0.0.1) recording what it receives."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.got: list[bytes] = []
        sock.listen(8)
        sock.settimeout(0.2)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @classmethod
    def unix(cls, path: Path) -> Listener:
        path.parent.mkdir(parents=True, exist_ok=True)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(path))
        return cls(sock)

    @classmethod
    def tcp(cls) -> Listener:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        return cls(sock)

    @property
    def port(self) -> int:
        port: int = self.sock.getsockname()[1]
        return port

    def _serve(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(2)
            try:
                self.got.append(conn.recv(4096) or b"(connected)")
            except OSError:
                self.got.append(b"(connected)")
            conn.close()

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


class Pong(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"pong"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        return None
