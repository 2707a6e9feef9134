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
    return True, None


__all__ = ["PACKAGE", "compile_package"]
