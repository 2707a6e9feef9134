"""``earnest hook <cli>``: the process an agent CLI starts on every stop.

``earnest.__main__`` calls :func:`run_hook` before importing the CLI framework, so a stop pays
only for the standard library, the trajectory reader and the effect gate. The contract with
the agent CLI is strict:

- the decision goes to stdout as the CLI's JSON, and the exit code is always 0;
- any internal error prints one line on stderr and allows the stop: a broken hook must never
  wedge the user's agent;
- ``EARNEST_HOOK_DISABLE=1`` allows every stop without reading anything (earnest's live runner
  sets it for the child ``claude -p`` runs it starts, which would otherwise fire the user's
  own hooks).

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
from typing import TextIO

DISABLE_ENV = "EARNEST_HOOK_DISABLE"
ADAPTERS = ("claude-code", "gemini", "codex")

USAGE = """\
usage: earnest hook {claude-code|gemini|codex}
       earnest hook install|uninstall CLI [--project|--user] [--dir DIR]

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
    else:
        from earnest.hooks.codex import handle
    return handle


def _read_stdin(stdin: TextIO) -> bytes:
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        data: bytes = buffer.read()
        return data
    return stdin.read().encode("utf-8")


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
) -> int:
    """Run the adapter named by ``argv[0]`` on the JSON on stdin; always returns 0."""
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
        output = _adapter(name)(_read_stdin(stdin))
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


__all__ = ["ADAPTERS", "DISABLE_ENV", "run_hook"]
