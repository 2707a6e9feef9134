"""Standard-library modules a stop imports but never reads, loaded only if something reads them.

Two modules the stop hook's process pulls in cost about a tenth of a stop and are never used:

- ``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``...) only to
  write a signature into the docstring of a class that has none; every dataclass on the stop's
  path has a docstring (``tests/hooks/test_hooks_imports.py`` holds that);
- ``pathlib`` imports ``urllib.parse``, which imports ``ipaddress`` only to check a bracketed
  host in a URL; a stop parses no URL.

:func:`defer` puts a placeholder module in ``sys.modules`` for each, so their importers bind
the placeholder; the first attribute read on it (PEP 562 module ``__getattr__``) imports the
real module and forwards to it. Nothing can behave differently: a module that is read is
loaded, only later. ``importlib.util.LazyLoader`` is the standard library's own tool for this,
but on Python 3.11 the import statement reads the lazy module's ``__spec__``, which loads it at
once, so it defers nothing here.

Example:
    >>> import sys
    >>> defer("csv") if "csv" not in sys.modules else ("csv",)
    ('csv',)
    >>> import csv
    >>> csv.QUOTE_ALL  # the first read loads the real module
    1
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType

STOP_DEFERRED: tuple[str, ...] = ("inspect", "ipaddress")
"""What the stop hook defers (see the module docstring for why each is never read)."""


_MARK = "__earnest_deferred__"


def defer(*names: str) -> tuple[str, ...]:
    """Defer importing each of ``names`` that is not imported yet; returns the names deferred."""
    deferred: list[str] = []
    for name in names:
        if name in sys.modules:
            continue
        sys.modules[name] = _placeholder(name)
        deferred.append(name)
    return tuple(deferred)


def _placeholder(name: str) -> ModuleType:
    module = ModuleType(name, f"{name}, imported on its first use (earnest._deferred)")
    vars(module)[_MARK] = True  # in its own namespace: reading it never loads the module

    def __getattr__(attr: str) -> object:
        if sys.modules.get(name) is module:
            del sys.modules[name]  # the real import below puts the real module in its place
        return getattr(import_module(name), attr)

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    return module


def is_placeholder(module: object) -> bool:
    """Whether ``module`` is a placeholder :func:`defer` left (its module not loaded yet)."""
    return isinstance(module, ModuleType) and vars(module).get(_MARK) is True


__all__ = ["STOP_DEFERRED", "defer", "is_placeholder"]
