"""A JSON document written and redacted in one streaming pass, in bounded pieces.

``earnest trajectory convert`` writes one JSON line per trajectory; a long session's line is
megabytes. Serializing it whole and then redacting the whole string held three copies of it
and ran every rule over all of it (issue 27: a 50 MB transcript took 2.5x as long and 50 MB
more with redaction as without). Here the document is serialized element by element
(:func:`json_pieces`, byte for byte ``json.dumps(value, ensure_ascii=False)``) and
:func:`scrub_pieces` redacts segments of about :data:`SEGMENT` characters as they are written,
so redaction holds one segment, not the line, and a rule whose needle is not in a segment is
not run over it.

A segment ends only where no rule of :mod:`earnest.redact` can match across the cut, so the
result is exactly ``earnest.redact.scrub`` of the whole text
(``tests/trajectory/test_redact_stream.py`` compares them):

- after a JSON object's closing ``}`` (a list element): no secret's characters include ``}``,
  a rule's look-behind sees no token character there either way, and a key/value rule
  (``aws_secret_access_key": "...``) cannot pass a ``}``;
- not within :data:`AWS_REACH` characters after an AWS key id (its secret is looked for up to
  120 characters further, across anything);
- not after a ``-----BEGIN ... PRIVATE KEY-----`` header that has no footer yet in the segment
  (that rule spans anything up to the footer): the segment grows until it has one.
  (Checked by where the last header and the last footer are, not by running the rule.)

Example:
    >>> doc = {"messages": [{"text": "hi"}, {"text": "sk-ant-api03-" + "a" * 20}]}
    >>> "".join(scrub_pieces(json_pieces(doc), segment=1))
    '{"messages": [{"text": "hi"}, {"text": "[REDACTED:anthropic-api-key]"}]}'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from earnest.redact import RULES, enabled, redact

SEGMENT = 1 << 18
"""Characters a segment reaches before it is redacted and written (where a cut is safe)."""

AWS_REACH = 512
"""How far after an AWS key id the pair rule can still match (id 20, gap <= 120, secret 40,
an earlier rule's label): no cut within this many characters after one."""

_AWS_IDS = ("AKIA", "ASIA", "A3T")
_PRIVATE_KEY = next(rule for rule in RULES if rule.id == "private-key")
_HEADER = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY")
_BEGIN = re.compile(r"-----BEGIN(?=[ A-Z0-9_-]{0,100}PRIVATE KEY)")  # where a header starts
_HEADER_TAIL = len("PRIVATE KEY BLOCK-----")
_HEADER_REACH = len("-----BEGIN") + 100 + len("PRIVATE KEY")
_FOOTER = re.compile(r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----")


def json_pieces(value: Any, depth: int = 2) -> Iterator[str]:
    """``json.dumps(value, ensure_ascii=False)`` in pieces: the top ``depth`` levels of objects
    and lists piece by piece, anything deeper (and every leaf) as one ``json.dumps`` each.

    Example:
        >>> "".join(json_pieces({"a": [1, {"b": None}], "c": {}}))
        '{"a": [1, {"b": null}], "c": {}}'
    """
    plain = isinstance(value, dict) and not all(isinstance(key, str) for key in value)
    if depth <= 0 or not isinstance(value, (dict, list)) or not value or plain:
        yield json.dumps(value, ensure_ascii=False)
        return
    if isinstance(value, dict):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            yield (", " if i else "") + json.dumps(key, ensure_ascii=False) + ": "
            yield from json_pieces(item, depth - 1)
        yield "}"
        return
    yield "["
    for i, item in enumerate(value):
        if i:
            yield ", "
        yield from json_pieces(item, depth - 1)
    yield "]"


def _may_cut(text: str) -> bool:
    """Whether ``text`` (a segment ending with a JSON object's ``}``) can be redacted apart
    from what follows it."""
    tail = text[-AWS_REACH:]
    if any(needle in tail for needle in _AWS_IDS):
        return False
    if not _PRIVATE_KEY.may_match(text):
        return True
    # First the quick answer: every header's match ends in the text when a footer starts at
    # least 16 characters after where the last header can end (scans for literal dashes,
    # where running the rule walks every header's key body, again at each later try).
    begin = max((m.start() for m in _BEGIN.finditer(text)), default=-1)
    if begin < 0:
        return True
    # The header ends at most 22 characters ("PRIVATE KEY BLOCK-----") after its last
    # "PRIVATE KEY", which starts within 100 characters after "-----BEGIN".
    header_end = text.rfind("PRIVATE KEY", begin, begin + _HEADER_REACH) + _HEADER_TAIL
    if any(m.start() >= header_end + 16 for m in _FOOTER.finditer(text, header_end)):
        return True
    # Else the rule itself: a header inside an earlier match (a quoted key with a body too
    # short to end it) starts no match of its own.
    end = 0
    for match in _PRIVATE_KEY.pattern.finditer(text):
        end = match.end()
    return _HEADER.search(text, end) is None


def scrub_pieces(pieces: Iterable[str], segment: int = SEGMENT) -> Iterator[str]:
    """``pieces`` redacted (:func:`earnest.redact.redact`) in segments of about ``segment``
    characters, each cut after a piece ending with ``}`` where no rule can match across it;
    joined, exactly the redaction of the whole text."""
    held: list[str] = []
    size = 0
    due = segment  # the size at which a cut is tried next
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= due and piece.endswith("}"):
            text = "".join(held)
            if _may_cut(text):
                yield redact(text)
                held.clear()
                size = 0
                due = segment
            else:  # tried again a segment later: each text is looked at a bounded number of times
                held[:] = [text]
                due = size + segment
    if held:
        yield redact("".join(held))


def scrub_json(value: Any) -> Iterator[str]:
    """What a writer writes for the JSON document ``value``: its pieces, redacted in segments
    unless redaction is off (``--no-redact``), in one pass."""
    pieces = json_pieces(value)
    return scrub_pieces(pieces) if enabled() else pieces


__all__ = ["AWS_REACH", "SEGMENT", "json_pieces", "scrub_json", "scrub_pieces"]
