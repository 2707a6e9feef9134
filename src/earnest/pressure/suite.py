"""Load a whole suite from its folder: config, doctrine, agent docs, fixture files.

Example:
    >>> from pathlib import Path
    >>> suite = load_suite(Path("examples/suite"))  # doctest: +SKIP
    >>> len(suite.rules) >= 8  # doctest: +SKIP
    True
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from earnest.errors import InputError
from earnest.pressure.agents import load_agent_doc
from earnest.pressure.config import load_config
from earnest.pressure.doctrine import duplicate_rule_headings, load_doctrine, read_doctrine
from earnest.pressure.fixtures import load_fixture_file, scan_fixture_folder
from earnest.pressure.models import AgentDoc, Diagnostic, Suite


def agent_paths(root: Path, patterns: tuple[str, ...]) -> list[Path]:
    """The files the ``agents`` patterns match, in pattern order; folders are skipped.

    FIFOs and devices are kept, so that reading them fails (unread) and lint names them.
    """
    seen: dict[Path, None] = {}
    for pattern in patterns:
        try:
            matches = sorted(root.glob(pattern))
        except (ValueError, NotImplementedError) as exc:  # checked by the config; belt and braces
            raise InputError(root, "suite.agents", f"bad glob pattern {pattern!r}: {exc}") from None
        for p in matches:
            if not p.is_dir() and (p.exists() or p.is_symlink()):
                seen.setdefault(p, None)
    return list(seen)


def load_suite(root: str | Path = ".") -> Suite:
    """Load the suite at ``root``.

    Raises :class:`InputError` only for a suite that cannot be read at all (no config, no
    doctrine). Defects in single files (a fixture, an agent doc, a repeated rule heading) are
    kept as diagnostics, so lint can report every defect of every file in one run.
    """
    root = Path(root)
    config = load_config(root)
    text = read_doctrine(config.doctrine)
    rules = load_doctrine(config.doctrine, config.aliases, text=text)
    diags = [
        Diagnostic(
            str(config.doctrine),
            f"line {again}",
            f"rule {rid} is defined again (first at line {first}); the repeat is ignored",
            "duplicate-rule",
        )
        for rid, first, again in duplicate_rule_headings(text)
    ]
    agents: dict[str, AgentDoc] = {}
    for path in agent_paths(root, config.agents):
        try:
            doc = load_agent_doc(path, config.claims_heading, frozenset(rules))
        except InputError as exc:
            diags.append(Diagnostic(str(path), exc.place or "", exc.message, "invalid-agent-doc"))
            continue
        if doc.name in agents:
            diags.append(
                Diagnostic(
                    str(path),
                    "front matter: name",
                    f"agent name {doc.name!r} is also used by {agents[doc.name].path}",
                    "duplicate-agent-name",
                )
            )
            continue
        agents[doc.name] = doc
    where = "tool.earnest.suite" if config.config_file.name == "pyproject.toml" else "suite"
    if not agents and not any(d.code == "invalid-agent-doc" for d in diags):
        diags.append(
            Diagnostic(
                str(config.config_file),
                f"{where}.agents",
                f"no agent doc matches {', '.join(config.agents)} under {root}",
                "no-agent-docs",
            )
        )
    if not config.fixtures.is_dir():
        what = "is not a folder" if config.fixtures.exists() else "does not exist"
        diags.append(
            Diagnostic(
                str(config.config_file),
                f"{where}.fixtures",
                f"fixtures folder {config.fixtures} {what}",
                "missing-fixtures-folder",
            )
        )
    paths, walk_diags = scan_fixture_folder(config.fixtures)
    diags.extend(walk_diags)
    files = tuple(load_fixture_file(p) for p in paths)
    return Suite(
        config=config, rules=rules, agents=agents, fixture_files=files, diagnostics=tuple(diags)
    )


def with_citation(suite: Suite, citation: str | None) -> Suite:
    """``suite`` judged under another citation mode (``--no-citation``: ``"optional"``);
    ``None`` keeps the configured one."""
    if citation is None or citation == suite.config.citation:
        return suite
    return dataclasses.replace(suite, config=dataclasses.replace(suite.config, citation=citation))


def find_agent(suite: Suite, name: str) -> AgentDoc | None:
    """An agent doc by front-matter ``name``, or else by file stem."""
    doc = suite.agents.get(name)
    if doc is not None:
        return doc
    for d in suite.agents.values():
        if d.path.stem == name:
            return d
    return None


__all__ = ["agent_paths", "find_agent", "load_suite", "with_citation"]
