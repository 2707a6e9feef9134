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
from bisect import bisect_right
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

DecisionStatus = Literal["choice", "hybrid", "unparseable"]
UnparseableReason = Literal["empty", "no_decision", "unknown_label"]

UNPARSEABLE_REASONS: tuple[str, ...] = ("empty", "no_decision", "unknown_label")

# A candidate line: decoration, then "choice", then more decoration, then ":".
# Every run of blanks or decoration is possessive (``*+``): what follows it can never start
# with the same characters, so giving some back could never help, and never retrying them keeps
# each match linear in the line (a long run of spaces used to cost a pass per character).
_CANDIDATE = re.compile(r"^[ \t>#*_~`$+\-•\d.)]*+choice[ \t*_~`$]*+[:：](.*)$", re.I | re.M)
_DECORATION_ONLY = re.compile(r"[ \t>#*_~`$+\-•\d.)]*")
_DECORATION = re.compile(r"[*_~`$]+")
_LEAD = re.compile(
    r"^(?:[ \t]*+(?:>|#{1,6}(?=[ \t]|$)|[-*+•](?=[ \t])|\d{1,3}[.)](?=[ \t])))*[ \t]*+"
)
# The full-width colon "：" is how Chinese (and Japanese) replies write the decision line.
_KEYWORD = re.compile(r"^choice[ \t]*+[:：][ \t]*+", re.I)
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.M)
_PLACEHOLDER = re.compile(
    r"^[(\[<{]?[ \t]*+(?:letter|label|option|x|your (?:choice|letter)|\.\.\.|…)[ \t]*+[)\]>}]?[ \t]*+$",
    re.I,
)
_LABEL = re.compile(
    r"^(?:option[ \t]++)?[(\[<{]?[ \t]*+([A-Za-z])(?![A-Za-z0-9'’])[ \t]*+[)\]>}]?",
    re.I,
)
_MORE = re.compile(
    r"[ \t]*+(?:,[ \t]*+(?:and|or)\b|,|/|&|\+|;|\||\band/or\b|\band\b|\bor\b)[ \t]*+"
    r"(?:option[ \t]++)?[(\[<{]?[ \t]*+([A-Za-z])(?![A-Za-z0-9'’])[ \t]*+[)\]>}]?",
    re.I,
)
_LIST_END = re.compile(
    r"[ \t]*+(?:$|[.,;:!?)\]>}/&+|—–-]|(?:,[ \t]*+)?(?:and|or)[ \t]++[(\[<{]?[A-Za-z](?![A-Za-z0-9]))",
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
    fallbacks: tuple[tuple[str, int], ...] = ()
    value: str = ""


def parse_decision(
    text: str,
    labels: Collection[str],
    *,
    low: str | None = None,
    options: Mapping[str, str] | None = None,
) -> Decision:
    """Read the decision in ``text`` given the displayed ``labels`` (``"ABCD"`` or a sequence);
    ``low`` is ``text.lower()`` when the caller already has it; ``options`` maps each displayed
    label to its option's text, so a letter inside an option's own text quoted on the decision
    line is never read as a second choice."""
    if not text or text.isspace():
        return Decision("unparseable", reason="empty", detail="the reply is empty")
    read = _found_lines(text, text.lower() if low is None else low)
    if len(read) == 1:
        # The common reply, one decision line naming one letter: the general path below gives
        # the same result for it, more slowly.
        _, number, (seen, _, fallbacks, _) = read[0]
        one = len(seen) == 1 and not fallbacks and seen[0] != "?"
        if one and seen[0] in _shown(labels):
            return _choice(seen, number)
    found = _as_lines(text, read)
    shown_now = _shown(labels)
    found = [_with_fallbacks(d, shown_now, options) if d.fallbacks else d for d in found]
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


_CHOICES: dict[tuple[tuple[str, ...], int], Decision] = {}


def _choice(letters: tuple[str, ...], number: int) -> Decision:
    """The ``choice`` of one letter on line ``number``: frozen, so the same few (a letter, a
    line near the end of a reply) are shared rather than built for every reply."""
    key = (letters, number)
    hit = _CHOICES.get(key)
    if hit is None:
        hit = Decision("choice", letters, None, "", (number,))
        if len(_CHOICES) >= 4096:
            _CHOICES.clear()
        _CHOICES[key] = hit
    return hit


def _with_fallbacks(line: _Line, shown: frozenset[str], options: Mapping[str, str] | None) -> _Line:
    """``line`` with its fallback letters added: those that are displayed labels and do not lie
    inside an option's own text quoted on the line."""
    spans = _option_spans(line.value, options) if options else ()
    extra = [
        letter
        for letter, at in line.fallbacks
        if letter in shown and not any(a <= at < b for a, b in spans)
    ]
    if not extra:
        return line
    letters = tuple(dict.fromkeys((*line.letters, *extra)))
    return line._replace(letters=letters)


def _option_spans(value: str, options: Mapping[str, str]) -> tuple[tuple[int, int], ...]:
    """Where each option's text (case ignored) occurs in a decision value."""
    low = value.lower()
    spans: list[tuple[int, int]] = []
    for needle in _needles(tuple(options.values())):
        at = low.find(needle)
        while at >= 0:
            spans.append((at, at + len(needle)))
            at = low.find(needle, at + len(needle))
    return tuple(spans)


@lru_cache(maxsize=1024)
def _needles(texts: tuple[str, ...]) -> tuple[str, ...]:
    """The option ``texts`` as :func:`_option_spans` looks for them: lower case, runs of
    whitespace as one space, no final full stop, at least three characters (memoised: the
    same fixture's options come with every reply to it)."""
    return tuple(
        needle
        for needle in (" ".join(text.lower().split()).rstrip(".") for text in texts)
        if len(needle) >= 3
    )


_Read = tuple[tuple[str, ...], str, tuple[tuple[str, int], ...], str]
"""What :func:`_read_line` makes of a decision line."""


def _decision_lines(text: str, low: str) -> list[_Line]:
    return _as_lines(text, _found_lines(text, low))


def _found_lines(text: str, low: str) -> list[tuple[int, int, _Read]]:
    """(offset, line number, reading) of every decision line."""
    found: list[tuple[int, int, _Read]] = []
    # Line numbers are counted on from the previous decision line, never from the start of
    # the reply again: a reply of many decision lines costs one pass, not one per line.
    number, counted = 1, 0
    for start, raw in _candidates(text, low):
        # Decision lines repeat across replies ("CHOICE: B"): each distinct one is read once.
        read = _read_line(raw) if len(raw) <= _MEMO_LINE else _read_line.__wrapped__(raw)
        if read is None:
            continue
        number += text.count("\n", counted, start)
        counted = start
        found.append((start, number, read))
    return found


def _as_lines(text: str, found: list[tuple[int, int, _Read]]) -> list[_Line]:
    # Fences only decide which of several decision lines count (a single one is used, fenced
    # or not): their spans are found, in one linear pass, for a reply of two or more, and only
    # when it has a fence at all. One-character probes first: memchr is ~20x cheaper than a
    # three-character search.
    if len(found) > 1 and (("`" in text and "```" in text) or ("~" in text and "~~~" in text)):
        fences = _fence_spans(text)
        starts = [a for a, _ in fences]
        lines: list[_Line] = []
        for start, number, (labels, stripped, fallbacks, value) in found:
            i = bisect_right(starts, start) - 1  # spans are disjoint and in order
            fenced = i >= 0 and start < fences[i][1]
            lines.append(_Line(number, labels, stripped, fenced, fallbacks, value))
        return lines
    return [
        _Line(n, labels, stripped, False, fallbacks, value)
        for _, n, (labels, stripped, fallbacks, value) in found
    ]


_MEMO_LINE = 200
"""Longer candidate lines are read without the memo, so it holds at most ~1 MB."""


@lru_cache(maxsize=4096)
def _read_line(
    raw: str,
) -> tuple[tuple[str, ...], str, tuple[tuple[str, int], ...], str] | None:
    """(labels, stripped line, fallback letters with their offsets in the value, the value)
    of a decision line; ``None`` when ``raw`` is not one."""
    value = _value(raw)
    if value is None:
        return None
    labels, fallbacks = _labels_in(value)
    return labels, raw.strip(), fallbacks, value


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


def _candidates(text: str, low: str) -> list[tuple[int, str]]:
    """(offset, line) of every line where ``choice`` follows only decoration."""
    if len(low) != len(text):  # lowering changed offsets: use the (slower) regex scan
        return [(m.start(), m.group(0)) for m in _CANDIDATE.finditer(text)]
    # Jumping between occurrences of "choice" beats a multi-line regex scan ~10x. Only the
    # first "choice" of a line can follow nothing but decoration, so each line is looked at
    # once: the scan then resumes at the next line (linear however many a line holds). A list,
    # not a generator: most replies hold one or two, and a plain loop is cheaper.
    found: list[tuple[int, str]] = []
    pos = low.find("choice")
    n = len(text)
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        if end < 0:
            end = n
        # A line that starts with the word needs no decoration check.
        if start == pos or _DECORATION_ONLY.fullmatch(text, start, pos):
            found.append((start, text[start:end]))
        pos = low.find("choice", end)
    return found


def _value(line: str) -> str | None:
    """The text after ``CHOICE:`` if ``line`` is a decision line, else ``None``."""
    plain = _DECORATION.sub("", line)
    plain = _LEAD.sub("", plain, count=1)
    m = _KEYWORD.match(plain)
    if m is None:
        return None
    return plain[m.end() :].strip()


def _labels_in(value: str) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...]]:
    """The letters a decision value names (``()`` for a blank or placeholder, ``("?",)`` for a
    value that is not a label at all), and the fallback letters after them with their offsets
    (see :func:`_fallbacks`)."""
    if not value or _PLACEHOLDER.match(value):
        return (), ()
    m = _LABEL.match(value)
    if m is None:
        return ("?",), ()
    letters = [m.group(1).upper()]
    pos = m.end()
    # Matched in place (never sliced): a list of 100,000 labels costs one pass.
    while True:
        more = _MORE.match(value, pos)
        if more is None:
            break
        letter = more.group(1)
        ends_list = _LIST_END.match(value, more.end()) is not None
        if ends_list or (letter.isupper() and letter != "I"):
            letters.append(letter.upper())
            pos = more.end()
        else:
            break
    return tuple(dict.fromkeys(letters)), _fallbacks(value, pos)


# A lone letter in the text after the decision: a candidate second option.
_LONE = re.compile(r"(?<![A-Za-z0-9'’_-])([A-Za-z])(?![A-Za-z0-9'’_-])")
# The word before a letter (skipping "option"/"plan"), read backwards from the letter.
_WORD_BEFORE = re.compile(r"([A-Za-z']+)[^A-Za-z0-9']{0,4}$")
_NEGATIONS = frozenset(
    [
        "not",
        "never",
        "no",
        "nor",
        "than",
        "over",
        "vs",
        "versus",
        "against",
        "without",
        "except",
        "excluding",
        "instead",
        "reject",
        "rejecting",
        "rejected",
        "avoid",
        "avoiding",
        "skip",
        "skipping",
        "drop",
        "dropping",
    ]
)
# Words that introduce a second option kept in reserve: "or A", "then A", "otherwise A".
_FALLBACK_CUES = frozenset(
    [
        "or",
        "then",
        "otherwise",
        "else",
        "with",
        "and",
        "plus",
        "alternatively",
        "fallback",
        "backup",
        "failing",
        "to",
    ]
)
_FILLERS = frozenset({"option", "plan", "choice", "to"})


def _fallbacks(value: str, pos: int) -> tuple[tuple[str, int], ...]:
    """Letters after the decision that keep a second option alive (``B, otherwise D``,
    ``D (or B if …)``, ``A, then D if …``, ``B, with D as the fallback``): (letter, offset).

    A letter counts unless the word before it negates it (``not D``, ``rather than D``,
    ``instead of D``). ``A`` and ``I`` are also English words, so they count only after a cue
    (``or A``, ``then A``) or when no word follows them; a lower-case letter only after a cue
    with no word following (``or d.``). The caller keeps only displayed labels, outside the
    option texts quoted on the line.
    """
    out: list[tuple[str, int]] = []
    for m in _LONE.finditer(value, pos):
        letter = m.group(1)
        at = m.start()
        before = _word_before(value, at, pos)
        if before in _NEGATIONS or (before == "of" and _word_before_word(value, at, pos)):
            continue
        followed = _followed_by_word(value, m.end())
        if letter.islower() or letter in "AI":
            if before not in _FALLBACK_CUES and before != "option" and followed:
                continue
            # "and I will", "or a test": a pronoun or an article, not an option.
            if (letter.islower() or letter == "I") and followed and before != "option":
                continue
        out.append((letter.upper(), at))
    return tuple(out)


def _word_before(value: str, at: int, floor: int) -> str:
    """The lower-case word before offset ``at`` (not before ``floor``), skipping one filler
    word ("option", "plan"); ``""`` when there is none."""
    window = value[max(floor, at - 40) : at]
    m = _WORD_BEFORE.search(window)
    if m is None:
        return ""
    word = m.group(1).lower()
    if word in _FILLERS and word != "to":
        prev = _WORD_BEFORE.search(window[: m.start()])
        if prev is not None:
            return prev.group(1).lower()
    return word


def _word_before_word(value: str, at: int, floor: int) -> bool:
    """Whether the two words before ``at`` read "instead of" (a negation)."""
    window = value[max(floor, at - 40) : at].lower()
    return _INSTEAD_OF.search(window) is not None


_INSTEAD_OF = re.compile(r"\binstead[ \t]+of(?:[ \t]+(?:option|plan))?[^a-z0-9]{0,4}$")


def _followed_by_word(value: str, end: int) -> bool:
    """Whether a word (two or more letters) follows offset ``end`` on the line."""
    return _NEXT_WORD.match(value, end) is not None


_NEXT_WORD = re.compile(r"[.,;:!?)\]'’\"]{0,3}[ \t]+[A-Za-z]{2}")


def _fence_spans(text: str) -> tuple[tuple[int, int], ...]:
    spans: list[tuple[int, int]] = []
    opener: str | None = None
    start = 0
    for at, end, mark in _fence_marks(text):
        if opener is None:
            opener, start = mark, at
        elif mark[0] == opener[0] and len(mark) >= len(opener):
            spans.append((start, end))
            opener = None
    if opener is not None:  # an unclosed fence runs to the end of the reply
        spans.append((start, len(text)))
    return tuple(spans)


def _fence_marks(text: str) -> list[tuple[int, int, str]]:
    """(line start, mark end, mark) of every line that opens with a fence mark, in order: what
    ``_FENCE.finditer(text)`` matches, found by jumping between the occurrences of the two marks
    (a multi-line regex tries every position of the reply; this looks at a few)."""
    found: list[tuple[int, int, str]] = []
    for three in ("```", "~~~"):
        pos = text.find(three)
        while pos >= 0:
            line = text.rfind("\n", 0, pos) + 1
            # Only a line's first occurrence can follow nothing but its indentation: the scan
            # goes on at the next line either way.
            newline = text.find("\n", pos)
            if pos - line <= 3 and _INDENT.fullmatch(text, line, pos):
                run = _RUNS[three].match(text, pos)
                assert run is not None  # the three characters at pos at least
                found.append((line, run.end(), run.group()))
            pos = text.find(three, newline) if newline >= 0 else -1
    found.sort()
    return found


_INDENT = re.compile(r"[ \t]*")
_RUNS = {"```": re.compile("`+"), "~~~": re.compile("~+")}


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
