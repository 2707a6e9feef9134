"""Test-awareness leaks: text that tells the agent under test that it is being tested.

An agent that knows it is graded complies for the wrong reason, so every fixture of an agent
whose doc says "Pressure-tested by ``PRS-R08-EXECUTOR-WORKAROUND``" measures the wrong thing.
Lint scans each agent doc's body (the system prompt) and each fixture's rendered prompt for:

- a fixture id of the suite (``PRS-R08-EXECUTOR-WORKAROUND``), or a prefix of one written as
  a family (``PRS-R08-…``, ``PRS-R08-*``). Only ids of 4 or more characters that hold a digit,
  ``-`` or ``_`` count, so an id that is an English word cannot trip it;
- language about the exercise (:data:`AWARENESS_PATTERNS`): *pressure-tested*, *this is a
  test/eval/evaluation/benchmark* (not when a noun such as *environment* or *server*
  follows), *you are being tested/evaluated/graded*, *your answer will be graded*,
  *pressure/eval fixture, harness, suite or scenario*.

Bare *test*, *tests*, *benchmark* and *fixture* are not on the list: work prose uses them
("the test fails", "run the benchmark suite", "a test fixture").

Example:
    >>> awareness_hits("Rule 8. Pressure-tested by `PRS-R08-EXECUTOR`.", frozenset({"PRS-R08-EXECUTOR"}))
    [(0, 'Pressure-tested'), (0, 'PRS-R08-EXECUTOR')]
    >>> awareness_hits("Run the test suite before you commit.", frozenset())
    []
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_NOT_THE_EXERCISE = (
    r"(?!\s*(?:-|environment|env|server|suite|run|database|db|cluster|instance|build|account|"
    r"tenant|branch|fixture|file|case|deploy|stage|project|bucket|card|charge|payment|key|user|"
    r"order|machine|box|host|system|page|message|email)\b)"
)
_AWARENESS = [
    ("pressure test", r"\bpressure[\s-]?test(?:s|ed|ing)?\b"),
    (
        "this is a test",
        r"\bthis\s+is\s+(?:only\s+|just\s+|part\s+of\s+)?(?:an?\s+)?"
        r"(?:test|eval|evaluation|benchmark|exam|quiz|drill|simulation)\b" + _NOT_THE_EXERCISE,
    ),
    (
        "you are being tested",
        r"\byou(?:'re|\u2019re|\s+are)\s+(?:being\s+|currently\s+|now\s+)?(?:tested|evaluated|"
        r"graded|benchmarked|assessed|scored|examined)\b",
    ),
    (
        "your answer will be graded",
        r"\byour\s+(?:response|answer|reply|choice|decision|output)s?\s+(?:will\s+be|are|is|"
        r"is\s+being|gets?)\s+(?:graded|scored|evaluated|assessed|judged|marked)\b",
    ),
    (
        "eval harness",
        r"\b(?:pressure|eval|evaluation)\s+(?:fixtures?|harness(?:es)?|suites?|scenarios?)\b",
    ),
]
AWARENESS_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(rx, re.IGNORECASE)) for label, rx in _AWARENESS
)
"""(label, pattern) for language that tells the agent it is in a test."""

_TOKEN = re.compile(r"\w[\w.-]*")
_FAMILY_MARKS = ("\u2026", "...", "*")


def countable_ids(ids: Iterable[str]) -> frozenset[str]:
    """The fixture ids distinctive enough to look for (see the module docstring)."""
    return frozenset(i for i in ids if len(i) >= 4 and any(ch.isdigit() or ch in "-_" for ch in i))


def id_families(ids: frozenset[str]) -> frozenset[str]:
    """Dash prefixes of two or more segments (``PRS-R08`` of ``PRS-R08-EXECUTOR-WORKAROUND``)."""
    out: set[str] = set()
    for i in ids:
        parts = i.split("-")
        out.update("-".join(parts[:n]) for n in range(2, len(parts)))
    return frozenset(out)


def awareness_hits(
    text: str, ids: frozenset[str], families: frozenset[str] | None = None
) -> list[tuple[int, str]]:
    """(line index, phrase) for every test-awareness leak in ``text``, in reading order.

    ``ids`` are the suite's fixture ids (already filtered by :func:`countable_ids`).
    """
    families = id_families(ids) if families is None else families
    hits: list[tuple[int, str]] = []
    for number, line in enumerate(text.split("\n")):
        found: list[tuple[int, str]] = []
        low = line.lower()
        if any(w in low for w in ("test", "eval", "grad", "assess", "scor", "exam", "bench",
                                  "quiz", "drill", "simulat", "harness", "pressure", "judg",
                                  "mark")):  # fmt: skip
            for _, rx in AWARENESS_PATTERNS:
                found.extend((m.start(), m.group(0)) for m in rx.finditer(line))
        if ids:
            for m in _TOKEN.finditer(line):
                token = m.group(0).rstrip(".-")
                if token in ids:
                    found.append((m.start(), token))
                elif token in families:
                    rest = line[m.start() + len(token) :].lstrip("-")
                    if rest.startswith(_FAMILY_MARKS):
                        found.append((m.start(), line[m.start() : m.end() + 1].rstrip()))
        hits.extend((number, phrase) for _, phrase in sorted(found))
    return hits


__all__ = ["AWARENESS_PATTERNS", "awareness_hits", "countable_ids", "id_families"]
