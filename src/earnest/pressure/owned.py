"""The files a suite owns: what ``--output`` must never overwrite.

Its configuration file (``earnest.toml`` or ``pyproject.toml``), the doctrine, every agent doc
its ``agents`` globs match, every fixture file and every recorded-replies file it configures.
Files that do not exist are left out (writing a new file beside them harms nothing).

Example:
    >>> from pathlib import Path
    >>> suite = load_suite(Path("examples/suite"))  # doctest: +SKIP
    >>> any(p.name == "earnest.toml" for p in owned_files(suite))  # doctest: +SKIP
    True
"""

from __future__ import annotations

from pathlib import Path

from earnest.pressure.check import reply_files
from earnest.pressure.models import Suite
from earnest.pressure.suite import agent_paths


def owned_files(suite: Suite) -> tuple[Path, ...]:
    """Every existing file of ``suite``, in a stable order, each once."""
    config = suite.config
    found: dict[Path, None] = {}
    candidates = [
        config.config_file,
        config.doctrine,
        *agent_paths(config.root, config.agents),
        *(f.path for f in suite.fixture_files),
        *reply_files(suite),
    ]
    for p in candidates:
        if p.is_file():
            found.setdefault(p, None)
    return tuple(found)


__all__ = ["owned_files"]
