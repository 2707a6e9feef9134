"""Find the decision in a reply: deterministic and deny-by-default.

A *decision line* is a line that reads ``CHOICE:`` (any case) once markdown decoration is
stripped: emphasis (``*``, ``_``, ``~``), backticks, ``$``, heading marks (``#``), quote
marks (``>``) and list marks (``-``, ``*``, ``+``, ``•``, ``1.``, ``1)``). After the colon:

- the label is one letter (``B`` or ``b``), optionally written ``Option B``, wrapped in
  parentheses, brackets or angle brackets, and may end in ``.`` or be followed by ``)`` and
  the option's text: ``CHOICE: B) Implement the lock`` and ``CHOICE: B. None of the above``
  both read ``B``. Text after the label is never read as more letters, except:
- a list of labels joined by ``,`` ``/`` ``&`` ``+`` ``;`` ``|`` ``and`` ``or``
  (``CHOICE: B and D``, ``B/D``, ``B, D``) names several. A further letter counts when it is
  upper case (``I`` only when it ends the list, since "and I will" is a pronoun), or a lower-case
  letter that ends the list (``b and d``); "C and a test" names only ``C``.

Outcomes (:class:`Decision`):

- one distinct letter over all decision lines, among the displayed labels → ``choice``;
- two or more distinct letters, on one line or across lines → ``hybrid`` (the first of several
  lines never hides a later, different one);
- otherwise ``unparseable`` with a reason: ``empty`` (blank reply), ``no_decision`` (no decision
  line with a label), ``unknown_label`` (a label that is not displayed, or a decision line
  whose value is not a label, such as ``CHOICE: none of the above``).

Edge cases, decided:

- ``CHOICE:`` with nothing after it, and the instruction template ``CHOICE: <letter>``, are
  not decisions; they are ignored (a reply holding only those is ``no_decision``).
- Decision lines inside fenced code blocks are used only when the reply has none outside
  them: a reply that quotes the instructions in a fence and then decides keeps its decision,
  and a reply that fences its whole answer is still read.
- The same letter repeated (``CHOICE: C`` at the top and the bottom) is one choice.
- ``CHOICE: I think C`` reads the label ``I``: an unknown label when ``I`` is not displayed.

Example:
    >>> parse_decision("Because of the lock.\\n**CHOICE: c.**", "ABCD").letter
    'C'
    >>> parse_decision("CHOICE: B and D", "ABCD").letters
    ('B', 'D')
    >>> parse_decision("I'd rather not say.", "ABCD").reason
    'no_decision'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

DecisionStatus = Literal["choice", "hybrid", "unparseable"]
UnparseableReason = Literal["empty", "no_decision", "unknown_label"]

UNPARSEABLE_REASONS: tuple[str, ...] = ("empty", "no_decision", "unknown_label")

# A candidate line: decoration, then "choice", then more decoration, then ":".
_CANDIDATE = re.compile(r"^[ \t>#*_~`$+\-•\d.)]*choice[ \t*_~`$]*:(.*)$", re.I | re.M)
_DECORATION_ONLY = re.compile(r"[ \t>#*_~`$+\-•\d.)]*")
_DECORATION = re.compile(r"[*_~`$]+")
_LEAD = re.compile(
    r"^(?:[ \t]*(?:>|#{1,6}(?=[ \t]|$)|[-*+•](?=[ \t])|\d{1,3}[.)](?=[ \t])))*[ \t]*"
)
_KEYWORD = re.compile(r"^choice[ \t]*:[ \t]*", re.I)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)
_PLACEHOLDER = re.compile(
    r"^[(\[<{]?[ \t]*(?:letter|label|option|x|your (?:choice|letter)|\.\.\.|…)[ \t]*[)\]>}]?[ \t]*$",
    re.I,
)
_LABEL = re.compile(
    r"^(?:option[ \t]+)?[(\[<{]?[ \t]*([A-Za-z])(?![A-Za-z0-9'’])[ \t]*[)\]>}]?",
    re.I,
)
_MORE = re.compile(
    r"^[ \t]*(?:,[ \t]*(?:and|or)\b|,|/|&|\+|;|\||\band/or\b|\band\b|\bor\b)[ \t]*"
    r"(?:option[ \t]+)?[(\[<{]?[ \t]*([A-Za-z])(?![A-Za-z0-9'’])[ \t]*[)\]>}]?",
    re.I,
)
_LIST_END = re.compile(
    r"^[ \t]*(?:$|[.,;:!?)\]>}/&+|—–-]|(?:,[ \t]*)?(?:and|or)[ \t]+[(\[<{]?[A-Za-z](?![A-Za-z0-9]))",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Decision:
    """What a reply decided, in displayed letters.

    ``letters`` are the distinct upper-case letters named, in first-seen order; ``letter`` is
    the one letter of a clean ``choice``. ``lines`` are the 1-based line numbers of the decision
    lines used. ``detail`` says in words why a reply is unparseable.
    """

    status: DecisionStatus
    letters: tuple[str, ...] = ()
    reason: UnparseableReason | None = None
    detail: str = ""
    lines: tuple[int, ...] = ()

    @property
    def letter(self) -> str | None:
        return self.letters[0] if self.status == "choice" else None


class _Line(NamedTuple):
    number: int
    letters: tuple[str, ...]
    raw: str
    fenced: bool


def parse_decision(text: str, labels: Collection[str], *, low: str | None = None) -> Decision:
    """Read the decision in ``text`` given the displayed ``labels`` (``"ABCD"`` or a sequence);
    ``low`` is ``text.lower()`` when the caller already has it."""
    if not text or text.isspace():
        return Decision("unparseable", reason="empty", detail="the reply is empty")
    found = _decision_lines(text, text.lower() if low is None else low)
    if len(found) == 1 and len(found[0].letters) == 1:
        # The common reply, one decision line naming one letter: the general path below gives
        # the same result for it, more slowly.
        only = found[0]
        if only.letters[0] != "?" and only.letters[0] in _shown(labels):
            return Decision("choice", only.letters, None, "", (only.number,))
    outside = [d for d in found if not d.fenced]
    used = outside or found
    named = [d for d in used if d.letters]
    if not named:
        if used:
            detail = f"the only CHOICE: line has no label ({_clip(used[0].raw)})"
        else:
            detail = "no line reads CHOICE: <letter>"
        return Decision("unparseable", reason="no_decision", detail=detail)
    letters: dict[str, None] = {}
    invalid: list[str] = []
    for d in named:
        for letter in d.letters:
            if letter == "?":
                invalid.append(d.raw)
            else:
                letters.setdefault(letter, None)
    shown = _shown(labels)
    unknown = [x for x in letters if x not in shown]
    numbers = tuple(d.number for d in named)
    if invalid or unknown:
        if unknown:
            what = ", ".join(unknown)
            detail = f"CHOICE: {what} is not a displayed option ({_labels_text(shown)})"
        else:
            detail = f"CHOICE: line names no option ({_clip(invalid[0])})"
        return Decision(
            "unparseable",
            letters=tuple(letters),
            reason="unknown_label",
            detail=detail,
            lines=numbers,
        )
    if len(letters) > 1:
        return Decision("hybrid", letters=tuple(letters), lines=numbers)
    return Decision("choice", letters=tuple(letters), lines=numbers)


def _decision_lines(text: str, low: str) -> list[_Line]:
    found: list[tuple[int, tuple[str, ...], str]] = []
    for start, raw in _candidates(text, low):
        # Decision lines repeat across replies ("CHOICE: B"): each distinct one is read once.
        read = _read_line(raw) if len(raw) <= _MEMO_LINE else _read_line.__wrapped__(raw)
        if read is not None:
            found.append((start, *read))
    # Fences only decide which of several decision lines count: a lone one counts either way.
    # One-character probes first: memchr is ~20x cheaper than a three-character search.
    fences: tuple[tuple[int, int], ...] = ()
    if len(found) > 1 and (("`" in text and "```" in text) or ("~" in text and "~~~" in text)):
        fences = _fence_spans(text)
    return [
        _Line(
            text.count("\n", 0, start) + 1,
            labels,
            raw,
            bool(fences) and any(a <= start < b for a, b in fences),
        )
        for start, labels, raw in found
    ]


_MEMO_LINE = 200
"""Longer candidate lines are read without the memo, so it holds at most ~1 MB."""


@lru_cache(maxsize=4096)
def _read_line(raw: str) -> tuple[tuple[str, ...], str] | None:
    """(labels, stripped line) of a decision line; ``None`` when ``raw`` is not one."""
    value = _value(raw)
    return None if value is None else (_labels_in(value), raw.strip())


_SHOWN: dict[frozenset[str], frozenset[str]] = {}


def _shown(labels: Collection[str]) -> frozenset[str]:
    """The displayed labels in upper case (cached: judge passes the same few sets each time)."""
    if isinstance(labels, frozenset):
        hit = _SHOWN.get(labels)
        if hit is None:
            hit = frozenset(str(label).upper() for label in labels)
            if len(_SHOWN) > 256:
                _SHOWN.clear()
            _SHOWN[labels] = hit
        return hit
    return frozenset(str(label).upper() for label in labels)


def _candidates(text: str, low: str) -> Iterator[tuple[int, str]]:
    """(offset, line) of every line where ``choice`` follows only decoration."""
    if len(low) != len(text):  # lowering changed offsets: use the (slower) regex scan
        for m in _CANDIDATE.finditer(text):
            yield m.start(), m.group(0)
        return
    # Jumping between occurrences of "choice" beats a multi-line regex scan ~10x.
    pos = low.find("choice")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        if _DECORATION_ONLY.fullmatch(text, start, pos):
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            yield start, text[start:end]
            pos = low.find("choice", end)
        else:
            pos = low.find("choice", pos + 6)


def _value(line: str) -> str | None:
    """The text after ``CHOICE:`` if ``line`` is a decision line, else ``None``."""
    plain = _DECORATION.sub("", line)
    plain = _LEAD.sub("", plain, count=1)
    m = _KEYWORD.match(plain)
    if m is None:
        return None
    return plain[m.end() :].strip()


def _labels_in(value: str) -> tuple[str, ...]:
    """The letters a decision value names; ``()`` for a blank or placeholder, ``("?",)`` for a
    value that is not a label at all."""
    if not value or _PLACEHOLDER.match(value):
        return ()
    m = _LABEL.match(value)
    if m is None:
        return ("?",)
    letters = [m.group(1).upper()]
    rest = value[m.end() :]
    while True:
        more = _MORE.match(rest)
        if more is None:
            break
        letter = more.group(1)
        after = rest[more.end() :]
        ends_list = _LIST_END.match(after) is not None
        if ends_list or (letter.isupper() and letter != "I"):
            letters.append(letter.upper())
            rest = after
        else:
            break
    return tuple(dict.fromkeys(letters))


def _fence_spans(text: str) -> tuple[tuple[int, int], ...]:
    spans: list[tuple[int, int]] = []
    opener: str | None = None
    start = 0
    for m in _FENCE.finditer(text):
        mark = m.group(1)
        if opener is None:
            opener, start = mark, m.start()
        elif mark[0] == opener[0] and len(mark) >= len(opener):
            spans.append((start, m.end()))
            opener = None
    if opener is not None:  # an unclosed fence runs to the end of the reply
        spans.append((start, len(text)))
    return tuple(spans)


def _labels_text(shown: Collection[str]) -> str:
    ordered = sorted(shown)
    if not ordered:
        return "none"
    return f"{ordered[0]}-{ordered[-1]}" if len(ordered) > 2 else ", ".join(ordered)


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = [
    "UNPARSEABLE_REASONS",
    "Decision",
    "DecisionStatus",
    "UnparseableReason",
    "parse_decision",
]
