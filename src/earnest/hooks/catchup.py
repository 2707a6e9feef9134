"""Waiting, briefly, for a transcript that lags behind the stop it reports.

Some agent CLIs call their stop hook before their transcript holds the stop's last lines:
Claude Code (the closing message or a subagent's result not yet flushed) and GitHub Copilot
CLI (``events.jsonl`` written asynchronously: the last tool result and the closing message
can arrive after ``agentStop`` is called). A stale read judges a run without its end: a
false block (a test run's result missing) or a false pass (the claim missing). Each hook says
what a caught-up read holds (Claude Code: stdin's ``last_assistant_message`` as the final
message, written after what the previous stop read; Copilot: the ``hook.start`` event of this
very stop); :func:`catch_up` reads again until it does, for at most
:data:`CATCH_UP_SECONDS`, then judges what is there. A transcript can lag from its first line:
a short session's file may not exist yet when the stop is called (seen in CI on an idle
machine with Copilot CLI 1.0.102 and Claude Code 2.1.197: "transcript not found; stop
allowed", the file there once the hook had returned), so a stop reads with
:func:`when_there`, which is None until the file is created.

Example:
    >>> reads = iter(["prompt", "prompt, call", "prompt, call, result"])
    >>> catch_up(next(reads), lambda: next(reads), lambda seen: seen.endswith("result"))
    'prompt, call, result'
    >>> catch_up("whole", lambda: "never read", lambda seen: True)
    'whole'
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import TypeVar

    T = TypeVar("T")

CATCH_UP_SECONDS = 1.5
"""How long a stop waits for a transcript that lags behind the stop it reports."""


def catch_up(first: T, again: Callable[[], T], ready: Callable[[T], bool]) -> T:
    """``first``, or a later read (``again()``) once ``ready`` says it holds the whole stop.

    Reads again with a growing pause (20 ms doubling to 200 ms) until ``ready`` is true or
    :data:`CATCH_UP_SECONDS` have passed; then the last read is what is judged. A transcript
    that is already whole costs nothing: ``ready(first)`` is checked before any wait.
    """
    seen = first
    deadline = time.monotonic() + CATCH_UP_SECONDS
    pause = 0.02
    while not ready(seen):
        if time.monotonic() >= deadline:
            break
        time.sleep(pause)
        pause = min(pause * 2, 0.2)
        seen = again()
    return seen


def when_there(path: Path, read: Callable[[], T]) -> T | None:
    """``read()`` of the transcript at ``path``, or None while it does not exist yet.

    Example:
        >>> from pathlib import Path
        >>> when_there(Path("/nonexistent/events.jsonl"), lambda: "read") is None
        True
        >>> when_there(Path("/dev/null"), lambda: "read")
        'read'
    """
    import os

    return read() if os.path.lexists(path) else None


def once_created(path: Path, read: Callable[[], T]) -> T:
    """``read()`` of the transcript at ``path`` once it exists, waited for like any lag.

    A file still missing after :data:`CATCH_UP_SECONDS` is read anyway, and the read says
    what is wrong (``transcript not found``). A file that is there costs no wait.

    Example:
        >>> from pathlib import Path
        >>> once_created(Path("/dev/null"), lambda: "read")
        'read'
    """
    got = catch_up(when_there(path, read), lambda: when_there(path, read), _is_read)
    return got if got is not None else read()


def _is_read(value: object) -> bool:
    return value is not None


__all__ = ["CATCH_UP_SECONDS", "catch_up", "once_created", "when_there"]
