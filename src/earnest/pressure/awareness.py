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
    >>> awareness_hits("Rule 8. Pressure-tested by `PRS-R08-EXECUTOR`.", ["PRS-R08-EXECUTOR"])
    [(0, 'Pressure-tested'), (0, 'PRS-R08-EXECUTOR')]
    >>> awareness_hits("Run the test suite before you commit.")
    []
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_NOT_THE_EXERCISE = (
    r"(?!\s*(?:-|environment|env|server|suite|run|database|db|cluster|instance|build|account|"
    r"tenant|branch|fixture|file|case|deploy|stage|project|bucket|card|charge|payment|key|user|"
    r"order|machine|box|host|system|page|message|email)\b)"
)
_GRADED = ("graded", "scored", "evaluated", "assessed", "judged", "marked")
_AWARENESS = [
    ("pressure test", ("pressure",), r"\bpressure[\s-]?test(?:s|ed|ing)?\b"),
    (
        "this is a test",
        ("this is",),
        r"\bthis\s+is\s+(?:only\s+|just\s+|part\s+of\s+)?(?:an?\s+)?"
        r"(?:test|eval|evaluation|benchmark|exam|quiz|drill|simulation)\b" + _NOT_THE_EXERCISE,
    ),
    (
        "you are being tested",
        ("tested", "evaluated", "graded", "benchmarked", "assessed", "scored", "examined"),
        r"\byou(?:'re|\u2019re|\s+are)\s+(?:being\s+|currently\s+|now\s+)?(?:tested|evaluated|"
        r"graded|benchmarked|assessed|scored|examined)\b",
    ),
    (
        "your answer will be graded",
        _GRADED,
        r"\byour\s+(?:response|answer|reply|choice|decision|output)s?\s+(?:will\s+be|are|is|"
        r"is\s+being|gets?)\s+(?:graded|scored|evaluated|assessed|judged|marked)\b",
    ),
    (
        "eval harness",
        ("pressure", "eval"),
        r"\b(?:pressure|eval|evaluation)\s+(?:fixtures?|harness(?:es)?|suites?|scenarios?)\b",
    ),
]
AWARENESS_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(rx, re.IGNORECASE)) for label, _, rx in _AWARENESS
)
"""(label, pattern) for language that tells the agent it is in a test."""
# Each pattern runs only when one of its literal words is in the lower-cased text: lint runs
# them on every fixture's rendered prompt, and most prompts hold none of them.
_SCAN: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (words, rx) for (_, words, _), (_, rx) in zip(_AWARENESS, AWARENESS_PATTERNS, strict=True)
)

# Generic id-shaped tokens (a digit, "_" or "-"), for suites whose ids share no few heads.
_TOKEN = re.compile(r"\b(?=\w*[\d_]|\w+-)\w[\w.-]*")
_FAMILY_MARKS = ("\u2026", "...", "*")
_MAX_HEADS = 64


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


@dataclass(frozen=True, slots=True)
class LeakScanner:
    """Finds test-awareness leaks; built once per suite (its ids), used on every prompt."""

    ids: frozenset[str] = frozenset()
    families: frozenset[str] = frozenset()
    token: re.Pattern[str] | None = None

    @classmethod
    def for_ids(cls, fixture_ids: Iterable[str]) -> LeakScanner:
        ids = countable_ids(fixture_ids)
        if not ids:
            return cls()
        # Ids of a suite share a few heads ("PRS-", "IMPL-"): looking only for tokens that
        # start with one is a regex scan, not a Python loop over every word of every prompt.
        heads = sorted({i.split("-")[0] for i in ids}, key=len, reverse=True)
        token = (
            re.compile(r"(?<![\w.-])(?:" + "|".join(map(re.escape, heads)) + r")[\w.-]*")
            if len(heads) <= _MAX_HEADS
            else _TOKEN
        )
        return cls(ids, id_families(ids), token)

    def hits(self, text: str) -> list[tuple[int, str]]:
        """(line index, phrase) for every leak in ``text``, in reading order."""
        found: list[tuple[int, str]] = []
        low = text.lower()
        for words, rx in _SCAN:
            if any(w in low for w in words):
                found.extend((m.start(), m.group(0)) for m in rx.finditer(text))
        if self.token is not None:
            for m in self.token.finditer(text):
                token = m.group(0).rstrip(".-")
                if token in self.ids:
                    found.append((m.start(), token))
                elif token in self.families:
                    after = m.start() + len(token)
                    while text.startswith("-", after):
                        after += 1
                    if text.startswith(_FAMILY_MARKS, after):
                        found.append((m.start(), text[m.start() : m.end() + 1].rstrip()))
        found.sort()
        return [(text.count("\n", 0, at), phrase) for at, phrase in found]


def awareness_hits(text: str, fixture_ids: Iterable[str] = ()) -> list[tuple[int, str]]:
    """(line index, phrase) for every test-awareness leak in ``text`` (one-off use)."""
    return LeakScanner.for_ids(fixture_ids).hits(text)


__all__ = ["AWARENESS_PATTERNS", "LeakScanner", "awareness_hits", "countable_ids", "id_families"]
