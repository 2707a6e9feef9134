"""Find rule mentions: ``Rule 8``, ``rule #8``, ``Rules 4 and 6``, ``Rules 4, 6 & 7``.

One implementation serves both the agent docs' claims and the replies' citations, so
what counts as naming a rule never differs between the two. ``Rule 60`` never names
rule ``6``: ids are matched as whole tokens.

Example:
    >>> sorted(rule_mentions("Per Rules 4 and 6, and rule #12; not Rule 60's twin."))
    ['12', '4', '6', '60']
"""

from __future__ import annotations

import re

_ID = r"[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*"
_NUMERIC_ID = r"(?=[A-Za-z.-]*\d)[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*"
_MENTION = re.compile(
    rf"\brules?(?:\s+|\s*#\s*|\s*\u2116\s*)({_ID})\b"
    rf"((?:\s*(?:,|&|/|\+|\band\b|\bor\b|,\s*and\b)\s*#?\s*{_NUMERIC_ID}\b)*)",
    re.IGNORECASE,
)
_SPLIT = re.compile(rf"#?\s*({_NUMERIC_ID})\b")


def rule_mentions(text: str, known: frozenset[str] | set[str] | None = None) -> set[str]:
    """Every rule id that ``text`` names as ``Rule <id>`` (or a list of them).

    An id with a digit always counts; one without (``Rule A``) only when it is in ``known``,
    so prose such as "any rule is a hard stop" names nothing.
    """
    found: set[str] = set()
    for m in _MENTION.finditer(text):
        first = _norm(m.group(1))
        if any(ch.isdigit() for ch in first) or (known is not None and first in known):
            found.add(first)
        elif m.group(2):
            continue
        if m.group(2):
            found.update(_norm(x) for x in _SPLIT.findall(m.group(2)))
    return found


def _norm(rule_id: str) -> str:
    # "Rule 08" and "Rule 8" are the same rule; non-numeric ids keep their case-folded form.
    return str(int(rule_id)) if rule_id.isdigit() else rule_id.casefold()


def normalize_rule_id(rule_id: str | int) -> str:
    """The canonical string form of a rule id (``8``, ``"08"`` → ``"8"``)."""
    return _norm(str(rule_id).strip())


__all__ = ["normalize_rule_id", "rule_mentions"]
