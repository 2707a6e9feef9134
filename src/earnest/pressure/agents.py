"""Read agent docs: markdown with optional YAML front matter and a claims section.

The claims section is the text under the heading named by the suite's ``claims_heading``
(any heading level), up to the next heading of the same or a higher level. The claimed
rules are the ``Rule <id>`` mentions inside it. The ``ablated`` body is the doc with
that section removed: the RED baseline of a live run.

Example:
    >>> doc = parse_agent_doc("---\\nname: fixer\\n---\\n# Fixer\\n## Working Rules\\n- Rule 8\\n## Tools\\nx\\n",
    ...                       path=Path("fixer.md"), claims_heading="Working Rules")
    >>> doc.name, doc.claimed_rules, "Rule 8" in doc.ablated_body
    ('fixer', ('8',), False)
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.pressure.citations import rule_mentions
from earnest.pressure.models import AgentDoc
from earnest.textfile import BOM, read_text

# The title is cut from the closing hashes in Python: a lazy ``(.*?)\s*#*\s*$`` retried the
# tail at every character of a heading line (quadratic on "# # # # ...").
_HEADING = re.compile(r"^(#{1,6})\s++(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def split_front_matter(text: str, path: Path) -> tuple[dict[str, Any], str, int]:
    """Return (front matter, body, number of lines the front matter took)."""
    if text.startswith(BOM):  # left in, it hides the opening "---": front matter in the prompt
        text = text[1:]
    if not text.startswith("---"):
        return {}, text, 0
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text, 0
    for i in range(1, len(lines)):
        if lines[i].strip() in {"---", "..."}:
            import yaml

            try:
                data = yaml.safe_load("\n".join(lines[1:i])) or {}
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                place = f"line {mark.line + 2}" if mark is not None else "front matter"
                raise InputError(path, place, f"invalid YAML front matter: {exc}") from None
            if not isinstance(data, dict):
                raise InputError(path, "front matter", "must be a YAML mapping")
            return data, "\n".join(lines[i + 1 :]).lstrip("\n"), i + 1
    raise InputError(path, "line 1", "front matter opened with '---' is never closed")


def _normalize_heading(text: str) -> str:
    return re.sub(r"[\s*_`:]+", " ", text).strip().casefold()


def find_section(body: str, heading: str) -> tuple[str | None, int, int, int]:
    """Locate the section under ``heading``: (text, start line index, end line index, level)."""
    lines = body.split("\n")
    want = _normalize_heading(heading)
    in_fence = False
    start = level = -1
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = _HEADING.match(line)
        if not m:
            continue
        if start < 0:
            if _normalize_heading(m.group(2).rstrip().rstrip("#").rstrip()) == want:
                start, level = i, len(m.group(1))
        elif len(m.group(1)) <= level:
            return "\n".join(lines[start + 1 : i]).strip("\n"), start, i, level
    if start < 0:
        return None, -1, -1, -1
    return "\n".join(lines[start + 1 :]).strip("\n"), start, len(lines), level


def parse_agent_doc(
    text: str, *, path: Path, claims_heading: str, known_rules: frozenset[str] | None = None
) -> AgentDoc:
    front, body, fm_lines = split_front_matter(text, path)
    name = front.get("name")
    if name is not None and not isinstance(name, str):
        raise InputError(path, "front matter: name", "must be a string")
    section, start, end, _ = find_section(body, claims_heading)
    if section is None:
        ablated = body
        claimed: tuple[str, ...] = ()
    else:
        lines = body.split("\n")
        ablated = "\n".join(lines[:start] + lines[end:])
        claimed = tuple(sorted(rule_mentions(section, known_rules), key=_sort_key))
    return AgentDoc(
        name=name or path.stem,
        path=path,
        front_matter=front,
        body=body,
        claims_section=section,
        claimed_rules=claimed,
        ablated_body=ablated,
        claims_line=(start + 1 + fm_lines) if section is not None else 0,
    )


def _sort_key(rule_id: str) -> tuple[int, str]:
    return (int(rule_id), "") if rule_id.isdigit() else (1 << 30, rule_id)


def load_agent_doc(
    path: Path, claims_heading: str, known_rules: frozenset[str] | None = None
) -> AgentDoc:
    text = read_text(path, "agent doc")
    return parse_agent_doc(text, path=path, claims_heading=claims_heading, known_rules=known_rules)


__all__ = ["find_section", "load_agent_doc", "parse_agent_doc", "split_front_matter"]
