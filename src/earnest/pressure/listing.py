"""``earnest list``: the fixtures of a suite with their agent, rule, pressures and answer.

Only fixtures that load are listed (the others are counted: ``earnest lint`` says why).
Filters combine: ``rule`` (normalised like a citation, so ``8`` and ``"08"`` agree),
``agent`` (front-matter name or file stem of the agent doc), and ``pressures`` (every one
given must be among the fixture's).

Example:
    >>> from earnest.pressure.models import Choice, Fixture
    >>> fx = Fixture("FX-1", "fixer", "8", "Retry or lock", "...", ("time", "social"),
    ...              (Choice("A", "Retry", False), Choice("B", "Lock", True)), "B", ())
    >>> listed(fx).position
    'B (2 of 2)'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from earnest.configkeys import did_you_mean
from earnest.errors import InputError
from earnest.pressure.citations import normalize_rule_id
from earnest.pressure.models import PRESSURES, Fixture, Suite
from earnest.pressure.suite import find_agent


@dataclass(frozen=True, slots=True)
class ListedFixture:
    """One fixture as ``earnest list`` shows it."""

    id: str
    agent: str
    rule: str
    title: str
    pressures: tuple[str, ...]
    correct_choice: str
    correct_index: int
    choices: int
    file: str

    @property
    def position(self) -> str:
        """Where the correct option sits in the fixture's own order: ``C (3 of 4)``."""
        return f"{self.correct_choice} ({self.correct_index + 1} of {self.choices})"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "agent": self.agent,
            "rule": self.rule,
            "title": self.title,
            "pressures": list(self.pressures),
            "correct_choice": self.correct_choice,
            "correct_position": self.correct_index + 1,
            "choices": self.choices,
            "file": self.file,
        }


def listed(fixture: Fixture) -> ListedFixture:
    ids = fixture.choice_ids
    index = ids.index(fixture.correct_choice) if fixture.correct_choice in ids else -1
    return ListedFixture(
        id=fixture.id,
        agent=fixture.agent,
        rule=fixture.rule,
        title=fixture.title,
        pressures=fixture.pressures,
        correct_choice=fixture.correct_choice,
        correct_index=index,
        choices=len(ids),
        file=str(fixture.path) if fixture.path else "",
    )


def check_pressures(pressures: Sequence[str]) -> tuple[str, ...]:
    """The ``--pressure`` values, each a known pressure (else bad input, with a suggestion)."""
    for p in pressures:
        if p not in PRESSURES:
            near = did_you_mean(p, PRESSURES)
            hint = f" — did you mean {near}?" if near else ""
            raise InputError(
                None, "--pressure", f"unknown pressure {p!r}{hint} (known: {', '.join(PRESSURES)})"
            )
    return tuple(dict.fromkeys(pressures))


def _known(what: str, value: str, known: Sequence[str], flag: str) -> None:
    """Bad input (exit 2) when ``value`` is none of ``known``, with the closest one offered."""
    if value in known:
        return
    near = did_you_mean(value, known)
    hint = f" — did you mean {near}?" if near else ""
    shown = ", ".join(known) if known else "none"
    raise InputError(None, flag, f"unknown {what} {value!r}{hint} (known: {shown})")


def check_rule(suite: Suite, rule: str) -> str:
    """The ``--rule`` value normalised (``08`` → ``8``), a rule of the doctrine or of a fixture
    (else bad input, with a suggestion: a typo must not list "0 of N" and exit 0)."""
    want = normalize_rule_id(rule)
    known = sorted({*suite.rules, *(f.rule for f in suite.fixtures)}, key=_rule_order)
    _known("rule", want, known, "--rule")
    return want


def check_agent(suite: Suite, agent: str) -> None:
    """The ``--agent`` value names an agent doc (front-matter name or file stem) or a fixture's
    agent (else bad input, with a suggestion)."""
    if find_agent(suite, agent) is not None:
        return
    known = sorted(
        {
            *suite.agents,
            *(d.path.stem for d in suite.agents.values()),
            *(f.agent for f in suite.fixtures),
        }
    )
    _known("agent", agent, known, "--agent")


def _rule_order(rule: str) -> tuple[int, str]:
    return (int(rule), "") if rule.isdigit() else (1 << 30, rule)


def list_fixtures(
    suite: Suite,
    *,
    rule: str | None = None,
    agent: str | None = None,
    pressures: Sequence[str] = (),
) -> tuple[ListedFixture, ...]:
    """The suite's loaded fixtures that match every filter given, in file order.

    Each filter is checked first: a rule, agent or pressure the suite does not have is
    :class:`InputError` (exit 2) with did-you-mean, never an empty list."""
    want_rule = check_rule(suite, rule) if rule is not None else None
    want_pressures = check_pressures(pressures)
    want_agent = None
    if agent is not None:
        check_agent(suite, agent)
        doc = find_agent(suite, agent)
        want_agent = {agent} | ({doc.name, doc.path.stem} if doc is not None else set())
    out: list[ListedFixture] = []
    for fx in suite.fixtures:
        if want_rule is not None and fx.rule != want_rule:
            continue
        if want_agent is not None:
            doc = find_agent(suite, fx.agent)
            names = {fx.agent} | ({doc.name, doc.path.stem} if doc is not None else set())
            if not names & want_agent:
                continue
        if any(p not in fx.pressures for p in want_pressures):
            continue
        out.append(listed(fx))
    return tuple(out)


def listing_table(rows: Sequence[ListedFixture]) -> list[str]:
    """Plain aligned columns, never wrapped or truncated: ids stay greppable in CI logs."""
    header = ("id", "agent", "rule", "pressures", "correct", "title")
    table = [header] + [
        (r.id, r.agent, r.rule, ", ".join(r.pressures), r.position, r.title) for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
        for row in table
    ]


__all__ = [
    "ListedFixture",
    "check_agent",
    "check_pressures",
    "check_rule",
    "list_fixtures",
    "listed",
    "listing_table",
]
