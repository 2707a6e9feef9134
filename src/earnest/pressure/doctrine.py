"""Read doctrine rules from ``### <id>. <title>`` headings.

A rule's body is the text up to the next heading of the same or a higher level. A body
line ``Aliases: a; b`` (or ``Also cited as: ...``) declares aliases that count as citing it.

Example:
    >>> rules = parse_doctrine("### 8. Never present a workaround\\nFix the cause.\\n")
    >>> rules["8"].title, rules["8"].body
    ('Never present a workaround', 'Fix the cause.')
"""

from __future__ import annotations

import re
from pathlib import Path

from earnest.errors import InputError
from earnest.pressure.citations import normalize_rule_id
from earnest.pressure.models import Rule
from earnest.textfile import read_text

_RULE_HEADING = re.compile(r"^###\s+([A-Za-z0-9][\w.-]*?)\.\s+(\S.*?)\s*#*\s*$")
_ANY_HEADING = re.compile(r"^(#{1,6})\s")
_ALIAS_LINE = re.compile(
    r"^\s*(?:[*_]{0,2})(?:aliases|also cited as)(?:[*_]{0,2})\s*:\s*(.+)$", re.I
)
_FENCE = re.compile(r"^\s*(```|~~~)")


def parse_doctrine(
    text: str, extra_aliases: dict[str, tuple[str, ...]] | None = None
) -> dict[str, Rule]:
    """Parse rules from doctrine markdown; later duplicates of an id are ignored."""
    extra_aliases = extra_aliases or {}
    lines = text.removeprefix("\ufeff").splitlines()
    rules: dict[str, Rule] = {}
    current: tuple[str, str, int] | None = None
    body: list[str] = []
    in_fence = False

    def flush() -> None:
        if current is None:
            return
        rid, title, line = current
        aliases: list[str] = []
        kept: list[str] = []
        for b in body:
            m = _ALIAS_LINE.match(b)
            if m:
                aliases.extend(a.strip().strip("`*_\"'") for a in re.split(r"[;,]", m.group(1)))
            else:
                kept.append(b)
        aliases.extend(extra_aliases.get(rid, ()))
        if rid not in rules:
            rules[rid] = Rule(
                id=rid,
                title=title,
                body="\n".join(kept).strip(),
                aliases=tuple(a for a in dict.fromkeys(aliases) if a),
                line=line,
            )

    for number, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
        if not in_fence:
            m = _RULE_HEADING.match(line)
            if m:
                flush()
                current = (normalize_rule_id(m.group(1)), m.group(2).strip(), number)
                body = []
                continue
            h = _ANY_HEADING.match(line)
            if h and len(h.group(1)) <= 3:
                flush()
                current = None
                body = []
                continue
        if current is not None:
            body.append(line)
    flush()
    return rules


def duplicate_rule_headings(text: str) -> list[tuple[str, int, int]]:
    """Rule ids whose heading appears more than once: (id, first line, repeated line)."""
    first: dict[str, int] = {}
    dups: list[tuple[str, int, int]] = []
    in_fence = False
    for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        m = None if in_fence else _RULE_HEADING.match(line)
        if m:
            rid = normalize_rule_id(m.group(1))
            if rid in first:
                dups.append((rid, first[rid], number))
            else:
                first[rid] = number
    return dups


def read_doctrine(path: Path) -> str:
    """The doctrine's text (a byte-order mark dropped: it would hide rule 1's heading)."""
    return read_text(path, "doctrine file")


def load_doctrine(
    path: Path, extra_aliases: dict[str, tuple[str, ...]] | None = None, text: str | None = None
) -> dict[str, Rule]:
    """Read the doctrine at ``path`` (or parse ``text`` already read from it)."""
    rules = parse_doctrine(read_doctrine(path) if text is None else text, extra_aliases)
    if not rules:
        raise InputError(path, None, "no rules found (expected headings like '### 1. Title')")
    return rules


__all__ = ["duplicate_rule_headings", "load_doctrine", "parse_doctrine", "read_doctrine"]
