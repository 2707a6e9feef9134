"""Does a final message claim it changed something? For runs whose request is not known.

A headless log often has no prompt in it (``codex exec --json`` and Claude Code's
``stream-json`` do not record the ``-p`` text), so :func:`~earnest.effects.expected_effect_class`
has nothing to read. The agent's own words then say what was promised: "Done — I fixed the
bug" claims a workspace change, and a claim of a change with no effect is a completion without
effect whether or not the request was recorded.

:func:`claims_a_change` looks, sentence by sentence, for a change verb in the past tense
(*fixed, created, updated, added, wrote, edited, renamed, deleted, implemented, applied ...*)
that no negation or intention before it takes back (*not*, *didn't*, *will*, *let me*, *you can*
... — :data:`HEDGE`, the same words the strict-claims grammar uses).

Example:
    >>> claims_a_change("Done — I fixed the bug in app.py.")
    True
    >>> claims_a_change("I did not change anything; the code already handles it.")
    False
    >>> claims_a_change("The function returns the sum of the list.")
    False
"""

from __future__ import annotations

import re

HEDGE = re.compile(
    r"\b(not|never|no longer|unable|cannot|can't|couldn't|didn't|did not|haven't|hasn't|"
    r"wasn't|weren't|won't|will|would|should|could|need to|needs to|let me|i'll|i will|"
    r"going to|plan to|about to|next|todo|to-do|you can|you could|you may|you might|"
    r"you should|please|if you|try to|tried to|attempt to|failed to|instead of|"
    r"remember to|make sure|don't|do not|isn't|aren't|without|nothing)\b",
    re.IGNORECASE,
)
"""Words before a claim that take it back (a negation or an intention)."""

CHANGE_CLAIM = re.compile(
    r"\b(fixed|created|updated|added|wrote|written|edited|modified|changed|refactored|"
    r"rewrote|rewritten|patched|renamed|moved|deleted|removed|implemented|applied|"
    r"replaced|corrected|resolved|installed|committed|saved|generated)\b",
    re.IGNORECASE,
)
"""A change verb in the past tense: what "I did it" sounds like."""

_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


def claims_a_change(text: str) -> bool:
    """True when some sentence of ``text`` says, unhedged, that something was changed."""
    for sentence in _SENTENCES.split(text or ""):
        for match in CHANGE_CLAIM.finditer(sentence):
            if not HEDGE.search(sentence[: match.start()]):
                return True
    return False


__all__ = ["CHANGE_CLAIM", "HEDGE", "claims_a_change"]
