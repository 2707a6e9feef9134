"""The local HTTP servers the tests start: one threaded server on 127.0.0.1, its life and its port.

The fake model servers (``tests/live/live_servers.py``, ``tests/live/batch_servers.py``,
``tests/realcli/fakes.py``) each script a different API; what they share — bind a loopback
port, serve from a daemon thread, shut down and close — is here once. A handler reaches the
fake that owns it as ``self.server.owner``.

Example:
    >>> from http.server import BaseHTTPRequestHandler
    >>> with LocalServer(BaseHTTPRequestHandler) as server:
    ...     server.port > 0
    True
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Generic, Self, TypeVar

Owner = TypeVar("Owner")


class OwnedServer(ThreadingHTTPServer, Generic[Owner]):
    """A threaded HTTP server on 127.0.0.1 whose handlers read ``self.server.owner``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        owner: Owner,
        handler: type[BaseHTTPRequestHandler],
        port: int = 0,
        queue: int | None = None,
    ) -> None:
        self.owner = owner
        if queue is not None:  # read by listen(), which the base __init__ calls
            self.request_queue_size = queue
        super().__init__(("127.0.0.1", port), handler)


class LocalServer:
    """Serves ``handler`` on 127.0.0.1 (``port`` 0: a free one) from a daemon thread; a context
    manager. Subclasses are the fakes; their handlers see them as ``self.server.owner``."""

    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler],
        *,
        port: int = 0,
        poll_interval: float = 0.02,
        queue: int | None = None,
    ) -> None:
        self._server = OwnedServer(self, handler, port, queue)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": poll_interval}, daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


__all__ = ["LocalServer", "OwnedServer"]
