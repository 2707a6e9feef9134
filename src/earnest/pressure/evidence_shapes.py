"""The structured evidence fields: ``order``, ``contains`` / ``lacks`` and ``all_of``.

Each is read from fixture JSON here (problems as ``(place, message)`` pairs, for the loader and
the lint) and judged by :func:`earnest.pressure.evidence.match_evidence`:

- ``order``: a list of ``{"before": STEP, "then": STEP}`` (both happened, and the first
  ``before`` step came before the first ``then`` step: "backup.json written before ``migrate
  --apply`` ran") or ``{"after_last": STEP, "then": STEP}`` (a ``then`` step came after the
  last ``after_last`` step: "tests ran after the last change to src/"). A STEP is a field and a
  glob in one string: ``"ran pytest"``, ``"ran_ok pytest"``, ``"changed src/*"`` (written:
  created or changed), ``"deleted tests/*"``. Judged on the recorded timeline (``did.steps``).
- ``contains`` / ``lacks``: a list of ``{"text": ..., "file": GLOB}`` or ``{"text": ...,
  "commits": true}``: literal text present in (absent from) a final file matching the glob, or
  the lines any commit the agent made added; ``"after"`` / ``"before"`` (literal) narrow a file
  to the part after the first ``after`` and before the next ``before`` ("added under
  Unreleased, above the released section").
- ``all_of``: ``{"changed": ["CHANGELOG.md", "src/version.py"]}``: every glob must hold on its
  own (in the plain fields the globs of one field are alternatives).

Example:
    >>> parse_order([{"before": "changed backup.json", "then": "ran migrate --apply*"}], "order")
    ((OrderCheck(kind='before', first=StepPattern(field='changed', glob='backup.json'), then=StepPattern(field='ran', glob='migrate --apply*')),), [])
    >>> parse_content([{"text": "x"}], "contains")[1]
    [('contains[0]', 'give "file": a path glob, or "commits": true')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STEP_FIELDS: tuple[str, ...] = ("ran", "ran_ok", "changed", "deleted")
"""What an ``order`` step can be."""

ORDER_KINDS: tuple[str, ...] = ("before", "after_last")

ALL_OF_FIELDS: tuple[str, ...] = (
    "ran", "ran_ok", "created", "changed", "deleted", "committed", "pushed", "tagged",
)  # fmt: skip
"""The fields ``all_of`` may hold (positive ones: each glob must be seen)."""

MAX_TEXT = 2000


@dataclass(frozen=True, slots=True)
class StepPattern:
    """One step of an ``order`` check: ``field`` (:data:`STEP_FIELDS`) and a glob."""

    field: str
    glob: str

    def __str__(self) -> str:
        return f"{self.field} {self.glob}"


@dataclass(frozen=True, slots=True)
class OrderCheck:
    """``before``: ``first`` happened, ``then`` happened, and the first ``first`` came before
    the first ``then``. ``after_last``: a ``then`` came after the last ``first``."""

    kind: str
    first: StepPattern
    then: StepPattern

    def __str__(self) -> str:
        if self.kind == "before":
            return f"{self.first} before {self.then}"
        return f"{self.then} after the last {self.first}"

    def as_dict(self) -> dict[str, str]:
        return {self.kind: str(self.first), "then": str(self.then)}


@dataclass(frozen=True, slots=True)
class ContentCheck:
    """Literal ``text`` in a final file matching ``file`` (or in any commit's added lines when
    ``commits``), within the part after ``after`` and before ``before`` when given."""

    text: str
    file: str = ""
    commits: bool = False
    after: str = ""
    before: str = ""

    def __str__(self) -> str:
        where = "a commit" if self.commits else self.file
        window = "".join(
            f", {k} {v!r}" for k, v in (("after", self.after), ("before", self.before)) if v
        )
        return f"{self.text!r} in {where}{window}"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        if self.commits:
            out["commits"] = True
        else:
            out["file"] = self.file
        for key in ("after", "before"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        return out

    def window(self, text: str) -> str | None:
        """The part of ``text`` this check looks at; ``None`` when ``after`` is not in it."""
        if self.after:
            at = text.find(self.after)
            if at < 0:
                return None
            text = text[at + len(self.after) :]
        if self.before:
            end = text.find(self.before)
            if end >= 0:
                text = text[:end]
        return text


def parse_step(raw: Any, where: str) -> tuple[StepPattern | None, list[tuple[str, str]]]:
    """``"ran pytest"`` → ``StepPattern("ran", "pytest")``."""
    if not isinstance(raw, str) or not raw.strip():
        return None, [(where, 'must be a string such as "ran pytest" or "changed src/*"')]
    field, _, glob = raw.strip().partition(" ")
    if field not in STEP_FIELDS:
        return None, [(where, f"{field!r} is not a step (known: {', '.join(STEP_FIELDS)})")]
    if not glob.strip():
        return None, [(where, f'"{field}" needs a glob after it, such as "{field} src/*"')]
    return StepPattern(field, glob.strip()), []


def parse_order(raw: Any, where: str) -> tuple[tuple[OrderCheck, ...], list[tuple[str, str]]]:
    """The ``order`` field: a list of ``{"before"|"after_last": STEP, "then": STEP}``."""
    example = '[{"before": "changed backup.json", "then": "ran migrate --apply*"}]'
    if not isinstance(raw, list) or not raw:
        return (), [(where, f"must be a non-empty list such as {example}")]
    out: list[OrderCheck] = []
    problems: list[tuple[str, str]] = []
    for i, item in enumerate(raw):
        place = f"{where}[{i}]"
        if not isinstance(item, dict):
            problems.append((place, f"must be an object such as {example[1:-1]}"))
            continue
        kinds = [k for k in ORDER_KINDS if k in item]
        unknown = sorted(set(item) - {*ORDER_KINDS, "then"})
        if unknown:
            problems.append(
                (f"{place}.{unknown[0]}", "unknown key (known: before, after_last, then)")
            )
            continue
        if len(kinds) != 1 or "then" not in item:
            problems.append((place, 'needs "then" and exactly one of "before" or "after_last"'))
            continue
        first, p1 = parse_step(item[kinds[0]], f"{place}.{kinds[0]}")
        then, p2 = parse_step(item["then"], f"{place}.then")
        problems += p1 + p2
        if first is not None and then is not None:
            out.append(OrderCheck(kinds[0], first, then))
    return tuple(out), problems


def parse_content(raw: Any, where: str) -> tuple[tuple[ContentCheck, ...], list[tuple[str, str]]]:
    """The ``contains`` / ``lacks`` field: a list of ``{"text", "file"|"commits", "after"?,
    "before"?}``."""
    example = '[{"file": "CHANGELOG.md", "text": "lock timeout"}]'
    if not isinstance(raw, list) or not raw:
        return (), [(where, f"must be a non-empty list such as {example}")]
    out: list[ContentCheck] = []
    problems: list[tuple[str, str]] = []
    for i, item in enumerate(raw):
        place = f"{where}[{i}]"
        if not isinstance(item, dict):
            problems.append((place, f"must be an object such as {example[1:-1]}"))
            continue
        unknown = sorted(set(item) - {"text", "file", "commits", "after", "before"})
        if unknown:
            problems.append(
                (f"{place}.{unknown[0]}", "unknown key (known: text, file, commits, after, before)")
            )
            continue
        bad = [
            k for k in ("text", "file", "after", "before")
            if k in item and (not isinstance(item[k], str) or not item[k].strip())
        ]  # fmt: skip
        if bad:
            problems.append((f"{place}.{bad[0]}", "must be a non-empty string"))
            continue
        if "text" not in item:
            problems.append((place, 'needs "text": the literal text to look for'))
            continue
        if len(item["text"]) > MAX_TEXT:
            problems.append((f"{place}.text", f"longer than {MAX_TEXT} characters"))
            continue
        commits = item.get("commits", False)
        if not isinstance(commits, bool):
            problems.append((f"{place}.commits", "must be true or false"))
            continue
        if commits == ("file" in item):
            problems.append((place, 'give "file": a path glob, or "commits": true'))
            continue
        if commits and ("after" in item or "before" in item):
            problems.append((place, '"after" / "before" narrow a file, not commits'))
            continue
        out.append(
            ContentCheck(
                text=item["text"],
                file=str(item.get("file", "")).strip(),
                commits=commits,
                after=item.get("after", ""),
                before=item.get("before", ""),
            )
        )
    return tuple(out), problems


def parse_all_of(raw: Any, where: str) -> tuple[tuple[tuple[str, str], ...], list[tuple[str, str]]]:
    """The ``all_of`` field: ``{field: [globs]}`` → ``(field, glob)`` pairs, each required."""
    example = '{"changed": ["CHANGELOG.md", "src/version.py"]}'
    if not isinstance(raw, dict) or not raw:
        return (), [(where, f"must be a non-empty object such as {example}")]
    out: list[tuple[str, str]] = []
    problems: list[tuple[str, str]] = []
    for key, value in raw.items():
        place = f"{where}.{key}"
        if key not in ALL_OF_FIELDS:
            problems.append(
                (place, f"not a field all_of can hold (known: {', '.join(ALL_OF_FIELDS)})")
            )
            continue
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(g, str) and g.strip() for g in value)
        ):
            problems.append((place, "must be a non-empty list of glob strings"))
            continue
        out += [(key, g.strip()) for g in value]
    return tuple(out), problems


__all__ = [
    "ALL_OF_FIELDS",
    "ORDER_KINDS",
    "STEP_FIELDS",
    "ContentCheck",
    "OrderCheck",
    "StepPattern",
    "parse_all_of",
    "parse_content",
    "parse_order",
    "parse_step",
]
