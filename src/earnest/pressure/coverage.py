"""Coverage: which claimed rules have fixtures, and does the suite say so honestly?

:func:`coverage_report` fails, naming each cause, when

- fewer fixtures load than ``min_fixtures`` (the suite cannot silently shrink);
- a fixture's agent doc does not exist, its rule is not in the doctrine, or its agent does not
  claim its rule;
- the claimed-but-uncovered rules differ from ``[suite.debt]`` in either direction: the debt
  grew (a claimed rule has no fixture and is not in the debt) or the debt is stale (a rule in
  the debt is covered now, is no longer claimed, or is not in the doctrine).

The report also carries two views that never fail it (:mod:`earnest.pressure.coverage_views`):
coverage by agent (an agent with no fixture is never measured) and the pressure histogram
(fixtures per pressure and per pair of pressures, and the pairs no fixture stacks).

A fixture *covers* its rule only when it loaded, its agent doc exists and that agent claims the
rule: a fixture that measures nothing covers nothing.

Example:
    >>> row = CoverageRow("8", "Fix the cause", ("implementer",), ("FIX-1",), "covered")
    >>> row.status, row.fixtures
    ('covered', ('FIX-1',))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from earnest.pressure.citations import normalize_rule_id
from earnest.pressure.coverage_views import (
    AgentCoverage,
    PressureHistogram,
    agent_coverage,
    pressure_histogram,
)
from earnest.pressure.models import Suite
from earnest.pressure.suite import find_agent

RowStatus = Literal["covered", "debt", "uncovered", "unclaimed"]


@dataclass(frozen=True, slots=True)
class CoverageRow:
    """One doctrine rule: the agents that claim it and the fixtures that cover it."""

    rule: str
    title: str
    agents: tuple[str, ...]
    fixtures: tuple[str, ...]
    status: RowStatus
    debt_reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "title": self.title,
            "status": self.status,
            "agents": list(self.agents),
            "fixtures": list(self.fixtures),
            "debt_reason": self.debt_reason or None,
        }


@dataclass(frozen=True, slots=True)
class CoverageFailure:
    """One reason coverage fails, with a stable ``code`` and the file it is about."""

    code: str
    message: str
    file: str = ""

    def render(self) -> str:
        return (
            f"{self.file}: {self.message} [{self.code}]"
            if self.file
            else (f"{self.message} [{self.code}]")
        )

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "file": self.file, "message": self.message}


@dataclass(frozen=True, slots=True)
class CoverageReport:
    rows: tuple[CoverageRow, ...]
    failures: tuple[CoverageFailure, ...]
    fixtures: int
    min_fixtures: int
    unloaded: int = 0
    by_agent: tuple[AgentCoverage, ...] = ()
    pressures: PressureHistogram | None = None

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        """The shape ``earnest coverage``, ``earnest check`` and the report write
        (``docs/formats.md``)."""
        return {
            "ok": self.ok,
            "fixtures": self.fixtures,
            "min_fixtures": self.min_fixtures,
            "unloaded": self.unloaded,
            "rules": [r.to_json() for r in self.rows],
            "failures": [f.to_json() for f in self.failures],
            "agents": [a.to_json() for a in self.by_agent],
            "pressures": (
                self.pressures.to_json()
                if self.pressures is not None
                else pressure_histogram(()).to_json()
            ),
        }


def coverage_report(suite: Suite) -> CoverageReport:
    """Rows for every doctrine rule and every cause of failure (none: ``report.ok``)."""
    config = suite.config
    failures: list[CoverageFailure] = []
    fixtures = suite.fixtures
    unloaded = sum(1 for f in suite.fixture_files if f.fixture is None)
    if len(fixtures) < config.min_fixtures:
        extra = f" ({unloaded} more file(s) do not load: run `earnest lint`)" if unloaded else ""
        failures.append(
            CoverageFailure(
                "too-few-fixtures",
                f"{len(fixtures)} fixture(s) load, min_fixtures is {config.min_fixtures}{extra}",
                str(config.fixtures),
            )
        )

    claimed_by: dict[str, list[str]] = {rid: [] for rid in suite.rules}
    for agent_doc in suite.agents.values():
        for rid in agent_doc.claimed_rules:
            if rid in claimed_by:
                claimed_by[rid].append(agent_doc.name)

    covering: dict[str, list[str]] = {rid: [] for rid in suite.rules}
    for fx in fixtures:
        file = str(fx.path) if fx.path else fx.id
        doc = find_agent(suite, fx.agent)
        if doc is None:
            failures.append(
                CoverageFailure(
                    "unknown-agent",
                    f"fixture {fx.id}: agent doc {fx.agent!r} does not exist",
                    file,
                )
            )
        if fx.rule not in suite.rules:
            failures.append(
                CoverageFailure(
                    "unknown-rule",
                    f"fixture {fx.id}: rule {fx.rule} is not in the doctrine {config.doctrine}",
                    file,
                )
            )
            continue
        if doc is None:
            continue
        if fx.rule not in doc.claimed_rules:
            failures.append(
                CoverageFailure(
                    "rule-not-claimed",
                    f"fixture {fx.id}: agent {doc.name!r} does not claim Rule {fx.rule} "
                    f"under {config.claims_heading!r} ({doc.path})",
                    file,
                )
            )
            continue
        covering[fx.rule].append(fx.id)

    debt = {normalize_rule_id(k): v for k, v in config.debt.items()}
    cfg = str(config.config_file)
    rows: list[CoverageRow] = []
    for rid, rule in suite.rules.items():
        agents = tuple(sorted(claimed_by[rid]))
        ids = tuple(covering[rid])
        status: RowStatus
        if ids:
            status = "covered"
        elif not agents:
            status = "unclaimed"
        elif rid in debt:
            status = "debt"
        else:
            status = "uncovered"
        rows.append(CoverageRow(rid, rule.title, agents, ids, status, debt.get(rid, "")))
        targeted = [fx.id for fx in fixtures if fx.rule == rid]
        if status == "uncovered":
            why = (
                f" ({', '.join(targeted)} target(s) it but do not count: see above)"
                if targeted
                else ""
            )
            failures.append(
                CoverageFailure(
                    "debt-missing",
                    f"debt grew: rule {rid} ({rule.title}) is claimed by {', '.join(agents)} "
                    f"and is not in [suite.debt], but no fixture covers it{why}",
                    cfg,
                )
            )
        elif rid in debt and status == "covered":
            failures.append(
                CoverageFailure(
                    "debt-stale",
                    f"debt is stale: rule {rid} is in [suite.debt] but fixture(s) "
                    f"{', '.join(ids)} cover it now; remove it from the debt",
                    cfg,
                )
            )
        elif rid in debt and status == "unclaimed":
            failures.append(
                CoverageFailure(
                    "debt-stale",
                    f"debt is stale: rule {rid} is in [suite.debt] but no agent claims it; "
                    "remove it from the debt",
                    cfg,
                )
            )
    for rid in debt:
        if rid not in suite.rules:
            failures.append(
                CoverageFailure(
                    "debt-stale",
                    f"debt is stale: rule {rid} is in [suite.debt] but not in the doctrine "
                    f"{config.doctrine}",
                    cfg,
                )
            )
    return CoverageReport(
        rows=tuple(rows),
        failures=tuple(failures),
        fixtures=len(fixtures),
        min_fixtures=config.min_fixtures,
        unloaded=unloaded,
        by_agent=agent_coverage(suite),
        pressures=pressure_histogram(fx.pressures for fx in fixtures),
    )


__all__ = ["CoverageFailure", "CoverageReport", "CoverageRow", "coverage_report"]
