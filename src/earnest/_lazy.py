"""Lazy package exports: a package names where each public name lives, and imports it on first use.

The stop hook runs in a fresh process on every stop, so packages on its path
(``earnest.effects``, ``earnest.trajectory``, ``earnest.hooks``) must not import every
module just to expose their names.

Example:
    >>> ns = {"__name__": "json"}
    >>> get = lazy_getattr("json", {"JSONDecoder": "decoder"}, ns)
    >>> get("JSONDecoder").__name__, "JSONDecoder" in ns
    ('JSONDecoder', True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from importlib import import_module

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any


def lazy_getattr(
    package: str, homes: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``homes`` maps a public name to its submodule;
    the first lookup imports it and caches it in ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__


__all__ = ["lazy_getattr"]
