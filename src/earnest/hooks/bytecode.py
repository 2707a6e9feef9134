"""Compiled bytecode for the stop hook's modules, so no stop pays for compiling them.

A stop hook is a fresh interpreter on every stop; without ``__pycache__`` it compiles every
module it imports, every time — several times the hook's own work. A wheel installed by pip
is compiled at install time, but an editable install is not, and with
``PYTHONDONTWRITEBYTECODE`` set (common in containers and CI) Python never writes the cache
itself. ``earnest hook install`` therefore compiles earnest's package explicitly
(:func:`compile_package`, the standard library's ``compileall``), where the interpreter looks
for it (``__pycache__`` beside the sources, or ``PYTHONPYCACHEPREFIX``).

Example:
    >>> compiled, problem = compile_package()
    >>> problem is None or isinstance(problem, str)
    True
"""

from __future__ import annotations

import compileall
import contextlib
import io
import os
from pathlib import Path

import earnest

PACKAGE = Path(earnest.__file__).resolve().parent


def compile_package(package: Path = PACKAGE) -> tuple[bool, str | None]:
    """Compile every module of ``package``; ``(ok, why not)``. Never raises."""
    if not os.access(package, os.W_OK):
        return False, f"{package} is not writable (a system install: compile it there as root)"
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink):
            ok = compileall.compile_dir(str(package), quiet=1, force=False, workers=1)
    except OSError as exc:
        return False, f"cannot compile {package}: {exc.strerror or exc}"
    if not ok:
        detail = " ".join(sink.getvalue().split())[:200]
        return False, f"some modules of {package} did not compile: {detail}"
    prime_methods(package)
    return True, None


STOP_MODULES = (
    "earnest.hooks.claude_code", "earnest.hooks.codex", "earnest.hooks.gemini",
    "earnest.hooks.qwen", "earnest.hooks.copilot", "earnest.hooks.pi", "earnest.hooks.cursor",
    "earnest.hooks.opencode", "earnest.effects.gate", "earnest.effects.claims",
    "earnest.effects.grounding", "earnest.effects.shell_outcomes", "earnest.effects.config",
    "earnest.trajectory.readers.claude_code", "earnest.trajectory.readers.codex_rollout",
    "earnest.trajectory.readers.gemini_session", "earnest.trajectory.readers.qwen_chat",
    "earnest.trajectory.readers.copilot_events", "earnest.trajectory.readers.pi_session",
    "earnest.trajectory.readers.cursor_hooks", "earnest.trajectory.readers.opencode_db",
)  # fmt: skip
"""What stops import (each adapter, and what a stop imports only when it needs it)."""

_PRIME = (
    "import sys,importlib;sys.path.insert(0,sys.argv[1]);from earnest import _methodcache as m;"
    "c=m.enable()\nfor n in sys.argv[2:]:\n try:importlib.import_module(n)\n"
    " except ImportError:pass\nsys.dont_write_bytecode=False;c.save()"
)


def prime_methods(package: Path = PACKAGE) -> bool:
    """Write the stop hook's table of compiled dataclass methods (:mod:`earnest._methodcache`)
    for ``package``, as its bytecode is compiled: a fresh interpreter imports what stops
    import, through the table. Whether the table is there; never raises (a stop writes the table itself
    where it can)."""
    import subprocess
    import sys
    from importlib.util import cache_from_source

    from earnest._methodcache import TABLE_NAME

    table = Path(cache_from_source(str(package / "__init__.py"))).parent / TABLE_NAME
    if table.is_file():
        return True  # as compileall: what is there already is not written again (stops add)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    try:
        done = subprocess.run(
            [sys.executable, "-S", "-c", _PRIME, str(package.parent), *STOP_MODULES],
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


__all__ = ["PACKAGE", "STOP_MODULES", "compile_package", "prime_methods"]
