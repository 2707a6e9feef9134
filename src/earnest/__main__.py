"""Console entry point.

``earnest hook ...`` runs inside a user's agent on every stop, so it is dispatched
before the CLI framework is imported: process start is part of its latency budget.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys

TYPE_CHECKING = False  # typing itself is not imported: a stop does not need it
if TYPE_CHECKING:
    from typing import NoReturn


def _exit_now(code: int) -> NoReturn:
    """End the process without the interpreter's teardown.

    A stop has answered on stdout and closed every file it wrote; what finalization would
    still do — a full garbage collection and clearing some hundred modules — costs about
    10 ms, more than the whole judgement. The streams are flushed first; nothing in the
    hook registers an ``atexit`` handler.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the agent CLI closed the pipe
            stream.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if (
        len(args) >= 2
        and args[0] == "hook"
        and args[1] not in {"install", "uninstall", "doctor", "--help", "-h"}
    ):
        # A stop is a short-lived process that creates no garbage cycles worth collecting:
        # the cyclic collector would run some twenty times during the imports alone (about
        # 3 ms, 4% of a stop) to free nothing. Reference counting still frees everything.
        collecting = gc.isenabled()
        gc.disable()
        try:
            from earnest._deferred import STOP_DEFERRED, defer

            defer(*STOP_DEFERRED)
            from earnest import _methodcache

            methods = _methodcache.enable()
            from earnest.hooks.entry import run_hook, time_budget

            code = run_hook(args[1:], budget=time_budget())
            methods.save()
        finally:
            if collecting:  # called in a process that goes on (a test)
                gc.enable()
        if argv is None:  # the process itself: nothing is left to do but exit
            _exit_now(code)
        return code
    from earnest.cli import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
