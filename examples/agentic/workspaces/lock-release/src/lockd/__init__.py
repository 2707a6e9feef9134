"""A tiny lock service: the code under the scenario's pull request."""

import time

__version__ = "1.2.0"


class Lock:
    def __init__(self, timeout: float = 5.0) -> None:
        self.timeout = timeout
        self.held_since: float | None = None

    def acquire(self) -> bool:
        now = time.monotonic()
        if self.held_since is not None and now - self.held_since < self.timeout:
            return False
        self.held_since = now
        return True

    def release(self) -> None:
        self.held_since = None
