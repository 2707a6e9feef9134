"""Two more views of coverage: by agent, and how the pressures are spread.

- **By agent**: every agent doc, the rules it claims and the fixtures that test it. An agent
  with no fixture at all is never measured, whatever its claims say.
- **Pressure histogram**: how many fixtures stack each pressure, how many stack each pair,
  and which pairs never appear together: a suite that always pairs *time* with *authority*
  says nothing about *sunk_cost* under *social* pressure.

Both are views: they never fail coverage by themselves (the rules table does that).

Example:
    >>> h = pressure_histogram([("time", "authority", "social"), ("time", "social", "economic")])
    >>> h.counts["time"], h.pair_counts[("time", "social")], ("sunk_cost", "social") in h.never_seen
    (2, 2, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from earnest.pressure.models import PRESSURES, Suite
from earnest.pressure.suite import find_agent

AgentStatus = Literal["tested", "no-fixtures", "no-claims"]


@dataclass(frozen=True, slots=True)
class AgentCoverage:
    """One agent doc: what it claims, and which loaded fixtures test it."""

    agent: str
    file: str
    claimed: tuple[str, ...]
    fixtures: tuple[str, ...]
    rules_tested: tuple[str, ...]

    @property
    def status(self) -> AgentStatus:
        if self.fixtures:
            return "tested"
        return "no-fixtures" if self.claimed else "no-claims"

    @property
    def untested_claims(self) -> tuple[str, ...]:
        """Claimed rules no fixture of this agent targets."""
        return tuple(r for r in self.claimed if r not in self.rules_tested)

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "file": self.file,
            "status": self.status,
            "claimed_rules": list(self.claimed),
            "fixtures": list(self.fixtures),
            "untested_claims": list(self.untested_claims),
        }


@dataclass(frozen=True, slots=True)
class PressureHistogram:
    """Fixtures per known pressure and per unordered pair of them (in :data:`PRESSURES` order)."""

    fixtures: int
    counts: dict[str, int]
    pair_counts: dict[tuple[str, str], int]

    @property
    def never_seen(self) -> tuple[tuple[str, str], ...]:
        """Pairs of pressures no fixture stacks together."""
        return tuple(pair for pair, n in self.pair_counts.items() if n == 0)

    @property
    def unused(self) -> tuple[str, ...]:
        return tuple(p for p, n in self.counts.items() if n == 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "fixtures": self.fixtures,
            "counts": dict(self.counts),
            "unused": list(self.unused),
            "pairs": [
                {"pressures": list(pair), "fixtures": n} for pair, n in self.pair_counts.items()
            ],
            "never_seen_pairs": [list(pair) for pair in self.never_seen],
        }


def pressure_histogram(stacks: Iterable[Sequence[str]]) -> PressureHistogram:
    """Count each fixture's distinct known pressures, alone and in pairs."""
    counts = dict.fromkeys(PRESSURES, 0)
    pairs = dict.fromkeys(combinations(PRESSURES, 2), 0)
    order = {p: i for i, p in enumerate(PRESSURES)}
    n = 0
    for stack in stacks:
        n += 1
        known = sorted({p for p in stack if p in order}, key=order.__getitem__)
        for p in known:
            counts[p] += 1
        for a, b in combinations(known, 2):
            pairs[(a, b)] += 1
    return PressureHistogram(n, counts, pairs)


def agent_coverage(suite: Suite) -> tuple[AgentCoverage, ...]:
    """Every agent doc of ``suite`` (in load order) with the loaded fixtures that test it."""
    fixtures: dict[str, list[str]] = {name: [] for name in suite.agents}
    rules: dict[str, list[str]] = {name: [] for name in suite.agents}
    for fx in suite.fixtures:
        doc = find_agent(suite, fx.agent)
        if doc is not None:
            fixtures[doc.name].append(fx.id)
            rules[doc.name].append(fx.rule)
    return tuple(
        AgentCoverage(
            agent=name,
            file=str(doc.path),
            claimed=doc.claimed_rules,
            fixtures=tuple(fixtures[name]),
            rules_tested=tuple(dict.fromkeys(rules[name])),
        )
        for name, doc in suite.agents.items()
    )


__all__ = [
    "AgentCoverage",
    "AgentStatus",
    "PressureHistogram",
    "agent_coverage",
    "pressure_histogram",
]
