"""Load a whole suite from its folder: config, doctrine, agent docs, fixture files.

Example:
    >>> from pathlib import Path
    >>> suite = load_suite(Path("examples/suite"))  # doctest: +SKIP
    >>> len(suite.rules) >= 8  # doctest: +SKIP
    True
"""

from __future__ import annotations

from pathlib import Path

from earnest.errors import InputError
from earnest.pressure.agents import load_agent_doc
from earnest.pressure.config import load_config
from earnest.pressure.doctrine import load_doctrine
from earnest.pressure.fixtures import fixture_paths, load_fixture_file
from earnest.pressure.models import AgentDoc, Suite


def agent_paths(root: Path, patterns: tuple[str, ...]) -> list[Path]:
    seen: dict[Path, None] = {}
    for pattern in patterns:
        for p in sorted(root.glob(pattern)):
            if p.is_file():
                seen.setdefault(p, None)
    return list(seen)


def load_suite(root: str | Path = ".") -> Suite:
    """Load the suite at ``root``. Raises :class:`InputError` for a suite that cannot be read at all;
    defects in single fixtures are kept as diagnostics for lint to report."""
    root = Path(root)
    config = load_config(root)
    rules = load_doctrine(config.doctrine, config.aliases)
    agents: dict[str, AgentDoc] = {}
    for path in agent_paths(root, config.agents):
        doc = load_agent_doc(path, config.claims_heading, frozenset(rules))
        if doc.name in agents:
            raise InputError(
                path, "name", f"agent name {doc.name!r} is also used by {agents[doc.name].path}"
            )
        agents[doc.name] = doc
    files = tuple(load_fixture_file(p) for p in fixture_paths(config.fixtures))
    return Suite(config=config, rules=rules, agents=agents, fixture_files=files)


def find_agent(suite: Suite, name: str) -> AgentDoc | None:
    """An agent doc by front-matter ``name``, or else by file stem."""
    doc = suite.agents.get(name)
    if doc is not None:
        return doc
    for d in suite.agents.values():
        if d.path.stem == name:
            return d
    return None


__all__ = ["agent_paths", "find_agent", "load_suite"]
