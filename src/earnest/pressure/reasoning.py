"""Split a reply's visible reasoning from its answer: ``<think>…</think>`` and its kin.

Reasoning is not the answer. Models that think aloud write a draft (often with a draft
``CHOICE:`` line, or a rule they later drop) before they answer; servers that do not separate
it put it in the message text between ``<think>`` tags (DeepSeek-R1, QwQ, Qwen3 and most
OpenAI-compatible servers of open-weight models). Envelopes that do separate it (Anthropic
``thinking`` blocks, ``reasoning_content``, Responses API ``reasoning`` items) are read by
:mod:`earnest.pressure.envelopes`; this module handles the inline form, so both reach the
verdict the same way: the decision and the citations are read from the answer only.

Rules, decided:

- a block runs from ``<think>`` (also ``<thinking>``, ``<reasoning>``, any case) to the
  matching close tag; several blocks are all reasoning;
- a close tag with no opening tag before it (servers that strip the opening tag) makes all the
  text before it reasoning;
- an opening tag that is never closed (the reply was cut while thinking) makes all the text
  after it reasoning.

The scan is linear: it only ever moves forward with :meth:`str.find`.

Example:
    >>> split_reasoning("<think>CHOICE: A? no.</think>\\nCHOICE: C")
    ('\\nCHOICE: C', 'CHOICE: A? no.')
    >>> split_reasoning("draft\\n</think>CHOICE: B")
    ('CHOICE: B', 'draft\\n')
    >>> split_reasoning("CHOICE: B")
    ('CHOICE: B', '')
"""

from __future__ import annotations

_TAGS: tuple[str, ...] = ("think", "thinking", "reasoning")
# What may follow a "<" for it to start a tag: an opening tag, then a close tag.
_OPEN: tuple[str, ...] = tuple(f"{tag}>" for tag in _TAGS)
_CLOSE: tuple[str, ...] = tuple(f"/{tag}>" for tag in _TAGS)
_ANY: tuple[str, ...] = _OPEN + _CLOSE


def split_reasoning(text: str, low: str | None = None) -> tuple[str, str]:
    """``(answer, reasoning)`` of ``text``; ``low`` is ``text.lower()`` when the caller has it.

    Text without a reasoning tag comes back unchanged with ``""`` as its reasoning.
    """
    if "<" not in text:  # the common case: no tag at all
        return text, ""
    spans = _spans(text, _same_length(text, text.lower() if low is None else low))
    if spans is None:
        return text, ""
    return _cut(text, spans[0]), _joined(text, spans[1])


def split_answer(text: str, low: str) -> tuple[str, str, str]:
    """``(answer, reasoning, answer.lower())``, as :func:`split_reasoning` splits ``text``;
    ``low`` is ``text.lower()``.

    The answer's lower-case form is cut from ``low`` when ``text`` is ASCII (lowering it is
    letter by letter), instead of lowering the answer again.

        >>> split_answer("<think>Rule 8?</think>CHOICE: B", "<think>rule 8?</think>choice: b")
        ('CHOICE: B', 'Rule 8?', 'choice: b')
    """
    if "<" not in text:
        return text, "", low
    spans = _spans(text, _same_length(text, low))
    if spans is None:
        return text, "", low
    answer = _cut(text, spans[0])
    return (
        answer,
        _joined(text, spans[1]),
        (_cut(low, spans[0]) if text.isascii() else answer.lower()),
    )


def _same_length(text: str, low: str) -> str:
    # Lowering moved offsets (a few characters lower to two): find tags in a same-length copy.
    if len(low) == len(text):
        return low
    return "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    return "".join([text[a:b] for a, b in spans])


def _joined(text: str, spans: list[tuple[int, int]]) -> str:
    return "\n".join([part for part in (text[a:b] for a, b in spans) if part])


def _spans(text: str, low: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
    """Where the answer and the reasoning of ``text`` lie (``low``: a lower-case copy of the
    same length); ``None`` when it holds no reasoning tag.

    Tags are found by going from one "<" to the next and looking at what follows it: one
    pass, however many tags and stray "<" the text holds."""
    at = _next_tag(low, 0, _ANY)
    if at < 0:
        return None
    answer: list[tuple[int, int]] = []
    reasoning: list[tuple[int, int]] = []
    pos = 0
    if low.startswith("/", at + 1):
        # A close tag before any opening tag: the server dropped the opening tag.
        end = low.index(">", at)
        reasoning.append((0, at))
        pos = end + 1
        at = _next_tag(low, pos, _OPEN)
    n = len(text)
    while pos < n:
        if at < 0:
            answer.append((pos, n))
            break
        answer.append((pos, at))
        close = low.index(">", at)
        tag = low[at + 1 : close]
        end = low.find(f"</{tag}>", close + 1)
        if end < 0:  # never closed: cut while thinking
            reasoning.append((close + 1, n))
            break
        reasoning.append((close + 1, end))
        pos = end + len(tag) + 3
        at = _next_tag(low, pos, _OPEN)
    return answer, reasoning


def _next_tag(low: str, pos: int, tags: tuple[str, ...]) -> int:
    """Where the first ``<`` at or after ``pos`` that starts one of ``tags`` (what follows the
    ``<``) stands; ``-1`` when none does."""
    at = low.find("<", pos)
    while at >= 0 and not low.startswith(tags, at + 1):
        at = low.find("<", at + 1)
    return at


def join_reasoning(*parts: str) -> str:
    """The non-empty ``parts`` joined by a blank line."""
    return "\n\n".join(p for p in parts if p)


__all__ = ["join_reasoning", "split_answer", "split_reasoning"]
