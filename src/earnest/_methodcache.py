"""Compiled dataclass methods for the stop hook, kept between stops like a module's bytecode.

Every stop is a fresh interpreter, and ``@dataclass`` writes each class's methods
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, the frozen ``__setattr__`` ...) as source
text and compiles it with ``exec`` — on Python 3.11 about three quarters of creating a class,
and the thirty-odd classes on a stop's path made that a fifth of the stop's own work. The text
is the same at every stop, so its compiled code can be kept, as ``__pycache__`` keeps a
module's.

This module is the project's one place for that trick. :func:`enable` gives the
``dataclasses`` module its own ``exec`` (a module global shadows the builtin, and
``dataclasses`` calls ``exec`` only to build methods): it looks the source text up in a table
of code objects read from one file, compiles what is missing exactly as ``exec`` would
(``compile(text, "<string>", "exec", dont_inherit=True)``), and runs the code with the same globals and
namespace. The file records the interpreter release that wrote it (``sys.hexversion``, as a
``.pyc`` records its magic number); another release's table is not read. What a class gets is the very code ``exec(text)`` would have built, so nothing can
behave differently (``tests/hooks/test_hooks_methodcache.py`` compares every class of a stop,
and the stop's verdicts, with the plain path). :func:`save` writes the table back when a stop
compiled something new, atomically and only where Python itself would write bytecode: next to
earnest's own (``__pycache__`` or ``PYTHONPYCACHEPREFIX``), never with
``PYTHONDONTWRITEBYTECODE``. The file is trusted as that bytecode is (whoever can write it can
write earnest's ``.pyc`` files too); one that does not load is ignored.

Example:
    >>> import dataclasses
    >>> cache = MethodCache(None)
    >>> cache.install()
    >>> @dataclasses.dataclass(frozen=True)
    ... class Point:
    ...     '''A point.'''
    ...     x: int
    >>> Point(1) == Point(1), cache.misses > 0
    (True, True)
    >>> cache.uninstall()
"""

from __future__ import annotations

import contextlib
import marshal
import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from types import CodeType
    from typing import Any

MAX_ENTRIES = 512
"""At most this many methods are kept (a file that would grow past it keeps the newest stop's)."""

TABLE_NAME = f"earnest-dataclass-methods.{sys.implementation.cache_tag}.marshal"
"""The file's name: marshal's format belongs to one interpreter version, as ``.pyc`` does."""


def cache_file() -> str | None:
    """Where the table lives: the folder of earnest's own bytecode, as the import system
    chose it (``earnest.__cached__``); ``None`` when there is none."""
    import earnest

    cached = getattr(earnest, "__cached__", None)
    if not cached:
        return None
    return os.path.join(os.path.dirname(cached), TABLE_NAME)


class MethodCache:
    """The table of compiled method texts, and the ``exec`` that reads it."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.table: dict[str, CodeType] = _load(path) if path is not None else {}
        self.used: dict[str, CodeType] = {}
        self.misses = 0
        self._module: Any = None

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        """``exec`` for ``dataclasses``: the same code, compiled at most once per text."""
        if globals is None:  # as the builtin does: the caller's namespaces
            caller = sys._getframe(1)
            globals = caller.f_globals
            locals = caller.f_locals if locals is None else locals
        if type(source) is not str:
            exec(source, globals, locals)
            return
        code = self.table.get(source)
        if code is None:
            # dont_inherit: not this module's ``from __future__ import annotations`` (it would
            # turn the methods' annotations into strings); ``dataclasses`` has no future import
            code = compile(source, "<string>", "exec", dont_inherit=True)
            self.table[source] = code
            self.misses += 1
        self.used[source] = code
        exec(code, globals, locals)

    def install(self) -> None:
        """Make ``dataclasses`` build methods through :meth:`exec`."""
        import dataclasses

        self._module = dataclasses
        vars(dataclasses)["exec"] = self.exec

    def uninstall(self) -> None:
        """Give ``dataclasses`` the builtin ``exec`` back."""
        if self._module is not None:
            vars(self._module).pop("exec", None)
            self._module = None

    def save(self) -> bool:
        """Write the table if this process compiled something new; whether it wrote."""
        if self.path is None or not self.misses or sys.dont_write_bytecode:
            return False
        table = self.table if len(self.table) <= MAX_ENTRIES else self.used
        data = marshal.dumps((sys.hexversion, table))
        folder = os.path.dirname(self.path)
        temp = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(folder, exist_ok=True)
            with open(temp, "wb") as fh:
                fh.write(data)
            os.replace(temp, self.path)
        except OSError:  # a read-only install: stops compile as they would without the file
            with contextlib.suppress(OSError):
                os.unlink(temp)
            return False
        self.misses = 0
        return True


def _load(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as fh:
            stored = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    # Written by this very interpreter release (as a .pyc's magic number says), and whole.
    if type(stored) is not tuple or len(stored) != 2 or stored[0] != sys.hexversion:
        return {}
    table = stored[1]
    if type(table) is not dict:
        return {}
    code_type = type(_load.__code__)
    return {k: v for k, v in table.items() if type(k) is str and type(v) is code_type}


def enable() -> MethodCache:
    """Install the table from :func:`cache_file` for this process (the stop hook's)."""
    cache = MethodCache(cache_file())
    cache.install()
    return cache


__all__ = ["MAX_ENTRIES", "TABLE_NAME", "MethodCache", "cache_file", "enable"]
