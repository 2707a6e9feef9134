"""Find rule mentions: ``Rule 8``, ``rule #8``, ``Rules 4 and 6``, ``Rules 4, 6 & 7``.

One implementation serves both the agent docs' claims and the replies' citations, so
what counts as naming a rule never differs between the two. ``Rule 60`` never names
rule ``6``: ids are matched as whole tokens.

A rule is also cited by its title or a declared alias, compared ignoring case and
punctuation (:func:`contains_phrase`); :func:`citation_forms` lists every form of one rule
that a text contains. Lint uses it to find prompts that hand the citation to the agent.

Example:
    >>> sorted(rule_mentions("Per Rules 4 and 6, and rule #12; not Rule 60's twin."))
    ['12', '4', '6', '60']
    >>> contains_phrase("We never *present a work-around*!", "Present a workaround")
    False
    >>> contains_phrase("Never present a workaround, ever.", "never present a WORKAROUND")
    True
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earnest.pressure.models import Rule

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


_NON_WORD = re.compile(r"[\W_]+")


def normalize_phrase(text: str) -> str:
    """Case-folded words separated by single spaces: punctuation and markup do not count."""
    return _NON_WORD.sub(" ", text.casefold()).strip()


def contains_phrase(text: str, phrase: str, *, normalized: bool = False) -> bool:
    """Whether ``phrase`` occurs in ``text`` as whole words, ignoring case and punctuation.

    With ``normalized=True`` both arguments are already :func:`normalize_phrase` output
    (a caller checking many phrases against one text normalizes the text once).
    """
    if not normalized:
        text, phrase = normalize_phrase(text), normalize_phrase(phrase)
    return bool(phrase) and f" {phrase} " in f" {text} "


def citation_forms(
    text: str, rule: Rule, known: frozenset[str] | set[str] | None = None
) -> tuple[str, ...]:
    """Every form in which ``text`` cites ``rule``: ``Rule <id>``, its title, its aliases.

    Each form is returned as the user would recognise it, e.g. ``("Rule 8", "title 'Fix the
    cause'")``; an empty tuple means the text does not cite the rule.
    """
    found: list[str] = []
    if rule.id in rule_mentions(text, known):
        found.append(f"Rule {rule.id}")
    norm = normalize_phrase(text)
    if contains_phrase(norm, normalize_phrase(rule.title), normalized=True):
        found.append(f"title {rule.title!r}")
    for alias in rule.aliases:
        if contains_phrase(norm, normalize_phrase(alias), normalized=True):
            found.append(f"alias {alias!r}")
    return tuple(found)


def cites_rule(text: str, rule: Rule, known: frozenset[str] | set[str] | None = None) -> bool:
    """Whether ``text`` cites ``rule`` by id, title or alias."""
    return bool(citation_forms(text, rule, known))


__all__ = [
    "citation_forms",
    "cites_rule",
    "contains_phrase",
    "normalize_phrase",
    "normalize_rule_id",
    "rule_mentions",
]
