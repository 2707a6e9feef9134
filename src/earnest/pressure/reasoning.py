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
# "<think" finds "<think>" and "<thinking>"; a close tag always follows its opening one or
# stands for it, and "</think" ends in "think>" too, so three probes cover all six tags.
_NEEDLES: tuple[str, ...] = ("think>", "thinking>", "reasoning>")


def split_reasoning(text: str, low: str | None = None) -> tuple[str, str]:
    """``(answer, reasoning)`` of ``text``; ``low`` is ``text.lower()`` when the caller has it.

    Text without a reasoning tag comes back unchanged with ``""`` as its reasoning.
    """
    if "<" not in text:  # the common case: no tag at all
        return text, ""
    low = text.lower() if low is None else low
    if len(low) != len(text):  # lowering moved offsets: find tags in a same-length copy
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)
    if not any(tag in low for tag in _NEEDLES):
        return text, ""
    answer: list[str] = []
    reasoning: list[str] = []
    pos = 0
    first = True
    n = len(text)
    seen: dict[str, int] = {}
    while pos < n:
        open_at, tag = _next_tag(low, pos, "<", seen)
        close_at, close_tag = _next_tag(low, pos, "</", seen)
        if first and close_at >= 0 and (open_at < 0 or close_at < open_at):
            # A close tag before any opening tag: the server dropped the opening tag.
            reasoning.append(text[pos:close_at])
            pos = close_at + len(close_tag) + 3
            first = False
            continue
        first = False
        if open_at < 0:
            answer.append(text[pos:])
            break
        answer.append(text[pos:open_at])
        body = open_at + len(tag) + 2
        end = low.find(f"</{tag}>", body)
        if end < 0:  # never closed: cut while thinking
            reasoning.append(text[body:])
            break
        reasoning.append(text[body:end])
        pos = end + len(tag) + 3
    return "".join(answer), "\n".join(r for r in reasoning if r)


def _next_tag(low: str, pos: int, lead: str, seen: dict[str, int]) -> tuple[int, str]:
    """The first ``<tag>`` (``lead`` ``"<"``) or ``</tag>`` (``"</"``) at or after ``pos``.

    ``seen`` remembers each tag's next occurrence (``-1``: none left), so a tag is searched
    for again only once the scan has passed it: the whole split stays linear."""
    best, best_tag = -1, ""
    for tag in _TAGS:
        key = lead + tag + ">"
        at = seen.get(key, -2)
        if at == -2 or 0 <= at < pos:
            at = low.find(key, pos)
            seen[key] = at
        if at >= 0 and (best < 0 or at < best):
            best, best_tag = at, tag
    return best, best_tag


def join_reasoning(*parts: str) -> str:
    """The non-empty ``parts`` joined by a blank line."""
    return "\n\n".join(p for p in parts if p)


__all__ = ["join_reasoning", "split_reasoning"]
