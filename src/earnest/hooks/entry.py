"""``earnest hook <cli>``: the process an agent CLI starts on every stop.

``earnest.__main__`` calls :func:`run_hook` before importing the CLI framework, so a stop pays
only for the standard library, the trajectory reader and the effect gate. The contract with
the agent CLI is strict:

- the decision goes to stdout as the CLI's JSON, and the exit code is always 0;
- any internal error prints one line on stderr and allows the stop: a broken hook must never
  wedge the user's agent;
- ``EARNEST_HOOK_DISABLE=1`` allows every stop without reading anything (earnest's live runner
  sets it for the child ``claude -p`` runs it starts, which would otherwise fire the user's
  own hooks);
- a hard time budget (:data:`TIME_BUDGET_ENV`, default :data:`DEFAULT_TIME_BUDGET` seconds,
  well inside the CLIs' own hook timeouts): a stop still being judged when it runs out is
  allowed, with a note for the user, and the process exits — a huge transcript must never
  make the CLI kill the hook (Claude Code kills hooks at 60 s) or wait on it.

Example:
    >>> import os
    >>> os.environ["EARNEST_HOOK_DISABLE"] = "1"
    >>> run_hook(["claude-code"])
    0
    >>> del os.environ["EARNEST_HOOK_DISABLE"]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import TextIO

DISABLE_ENV = "EARNEST_HOOK_DISABLE"
TIME_BUDGET_ENV = "EARNEST_HOOK_TIME_BUDGET"
DEFAULT_TIME_BUDGET = 20.0
ADAPTERS = ("claude-code", "gemini", "codex", "qwen", "copilot", "pi", "cursor", "opencode")

USAGE = """\
usage: earnest hook {claude-code|gemini|codex|qwen|copilot|pi|cursor|opencode}
       earnest hook install|uninstall CLI [--project|--user] [--dir DIR]
       earnest hook doctor [CLI] [--dir DIR]

Run by an agent CLI when its agent stops: reads the hook's JSON on stdin, and blocks a stop
whose run claims work that left no verifiable effect. Always exits 0; errors allow the stop.
Set EARNEST_HOOK_DISABLE=1 to allow every stop. See docs/stop-hooks.md.
"""


def _disabled() -> bool:
    return os.environ.get(DISABLE_ENV, "").strip().lower() in {"1", "true", "yes", "on"}


def _adapter(name: str) -> Callable[[bytes], str]:
    if name == "claude-code":
        from earnest.hooks.claude_code import handle
    elif name == "gemini":
        from earnest.hooks.gemini import handle
    elif name == "qwen":
        from earnest.hooks.qwen import handle
    elif name == "copilot":
        from earnest.hooks.copilot import handle
    elif name == "pi":
        from earnest.hooks.pi import handle
    elif name == "cursor":
        from earnest.hooks.cursor import handle
    elif name == "opencode":
        from earnest.hooks.opencode import handle
    else:
        from earnest.hooks.codex import handle
    return handle


def time_budget(env: dict[str, str] | None = None) -> float:
    """Seconds a stop may take (``EARNEST_HOOK_TIME_BUDGET``; unreadable → the default).

    Example:
        >>> time_budget({"EARNEST_HOOK_TIME_BUDGET": "5"}), time_budget({})
        (5.0, 20.0)
    """
    raw = (os.environ if env is None else env).get(TIME_BUDGET_ENV, "")
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_TIME_BUDGET
    return value if value > 0 else DEFAULT_TIME_BUDGET


def _over_budget(name: str, budget: float) -> str:
    import json

    note = (
        f"earnest: hook time budget ({budget:g} s) ran out before this stop was judged "
        "(a very large transcript?); stop allowed"
    )
    return json.dumps({"systemMessage": note})


def _judge_within(
    handle: Callable[[bytes], str], data: bytes, name: str, budget: float
) -> tuple[str | None, Exception | None]:
    """Run ``handle`` in a worker thread for at most ``budget`` seconds.

    ``(None, None)`` when the budget ran out: the worker cannot be stopped, so the caller
    answers and ends the process. The main thread waits on a lock, which gives up the GIL,
    so it wakes on time unless one C call (a huge ``json.loads``) holds it.
    """
    # The low-level thread API (already loaded: the import system uses it): ``threading``
    # would add its own import to every stop, and a stop needs only a lock with a timeout.
    import _thread

    box: dict[str, object] = {}
    done = _thread.allocate_lock()
    done.acquire()

    def work() -> None:
        try:
            box["out"] = handle(data)
        except Exception as exc:  # reported by the caller, as without a budget
            box["err"] = exc
        finally:
            done.release()

    # Like a daemon thread, it never holds the process up: the stop exits with os._exit.
    _thread.start_new_thread(work, ())
    if not done.acquire(timeout=budget):
        return None, None
    err = box.get("err")
    if isinstance(err, Exception):
        return None, err
    out = box.get("out")
    return (out if isinstance(out, str) else ""), None


MAX_STDIN_BYTES = 16 * 1024 * 1024
"""The most hook input read (a stop's JSON is a few KB; Codex's notify carries the turn's
messages): more is bad input, and the stop is allowed, never a process that reads on."""


def _read_stdin(stdin: TextIO, limit: int = MAX_STDIN_BYTES) -> bytes:
    """At most ``limit`` bytes of ``stdin``; more is an :class:`InputError` naming it."""
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        data: bytes = buffer.read(limit + 1)
    else:
        data = stdin.read(limit + 1).encode("utf-8")
    if len(data) > limit:
        from earnest.errors import InputError
        from earnest.hooks.stdin import STDIN

        raise InputError(STDIN, None, f"hook input larger than {limit} bytes; not read")
    return data


def _say(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        # The agent CLI closed the pipe: nothing useful is left to do.
        pass


def run_hook(
    argv: list[str],
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    budget: float | None = None,
) -> int:
    """Run the adapter named by ``argv[0]`` on the JSON on stdin; always returns 0.

    With ``budget`` (seconds; the process entry point passes :func:`time_budget`), a stop
    not judged in time is allowed with a note and the process exits at once.
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if argv and argv[0] in {"--help", "-h", "help"}:
        _say(stdout, USAGE)
        return 0
    if _disabled():
        return 0
    name = argv[0] if argv else ""
    if name not in ADAPTERS:
        # Exit 2 would make Claude Code treat the stop as blocked: report and allow instead.
        _say(
            stderr,
            f"earnest hook: unknown CLI {name!r} (one of: {', '.join(ADAPTERS)}); stop allowed\n",
        )
        return 0
    if len(argv) > 1 and argv[1] in {"--help", "-h"}:
        _say(stdout, USAGE)
        return 0
    try:
        data = _read_stdin(stdin)
        if budget is None:
            output = _adapter(name)(data)
        else:
            judged, error = _judge_within(_adapter(name), data, name, budget)
            if error is not None:
                raise error
            if judged is None:
                _say(stdout, _over_budget(name, budget) + "\n")
                _say(
                    stderr,
                    f"earnest hook {name}: time budget of {budget:g} s ran out; stop allowed\n",
                )
                os._exit(0)  # the worker is still reading: end it with the process
            output = judged
    except Exception as exc:  # the hook must never wedge the agent
        _say(stderr, f"earnest hook {name}: {_one_line(exc)}; stop allowed\n")
        return 0
    if output:
        _say(stdout, output if output.endswith("\n") else output + "\n")
    return 0


def _one_line(exc: Exception) -> str:
    from earnest.errors import InputError

    text = exc.render() if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())[:500]


__all__ = [
    "ADAPTERS",
    "DEFAULT_TIME_BUDGET",
    "DISABLE_ENV",
    "MAX_STDIN_BYTES",
    "TIME_BUDGET_ENV",
    "run_hook",
    "time_budget",
]
