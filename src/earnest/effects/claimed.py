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

The other way round, :func:`reports_not_done` recognises the honest answer the gate's own
advice invites ("tell the user plainly what was not done"): a message that says the agent
could not, or did not, do the work, and claims nothing done anywhere. It is no completion claim,
so there is nothing to back with an effect.

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

from earnest.lazyre import LazyPattern

HEDGE = LazyPattern(
    r"\b(not|never|no longer|unable|cannot|can't|couldn't|didn't|did not|haven't|hasn't|"
    r"wasn't|weren't|won't|will|would|should|could|need to|needs to|let me|i'll|i will|"
    r"going to|plan to|about to|next|todo|to-do|you can|you could|you may|you might|"
    r"you should|please|if you|try to|tried to|attempt to|failed to|instead of|"
    r"remember to|make sure|don't|do not|isn't|aren't|without|nothing)\b",
    flags=re.IGNORECASE,
)
"""Words before a claim that take it back (a negation or an intention)."""

CHANGE_CLAIM = LazyPattern(
    r"\b(fixed|created|updated|added|wrote|written|edited|modified|changed|refactored|"
    r"rewrote|rewritten|patched|renamed|moved|deleted|removed|implemented|applied|"
    r"replaced|corrected|resolved|installed|committed|saved|generated)\b",
    flags=re.IGNORECASE,
)
"""A change verb in the past tense: what "I did it" sounds like."""

_SENTENCES = LazyPattern(r"(?<=[.!?;])\s+|\n+")

NOT_DONE = LazyPattern(
    r"\b(?:i|we)\s+(?:(?:could|did|have|was|were|am|are)\s+not|couldn't|didn't|haven't|"
    r"wasn't|weren't|cannot|can't|(?:was|were|am|are)\s+(?:unable|not able)\s+to|failed\s+to|"
    r"(?:could|did)\s+n[o']t)\b"
    r"|\b(?:nothing|no\s+(?:files?|changes?|edits?))\s+(?:was|were|has\s+been|have\s+been)\s+"
    r"(?:changed|created|written|modified|edited|made|done|fixed|applied|saved)\b"
    r"|\b(?:was|were|is|are|has|have)\s+not\s+(?:been\s+)?"
    r"(?:created|written|changed|modified|fixed|applied|saved|done)\b"
    r"|\b(?:unable|not\s+able)\s+to\b",
    flags=re.IGNORECASE,
)
"""How a message says the work was not done: *I could not ..., I was unable to ..., nothing
was changed, newfile.py was not created*."""

COMPLETION = LazyPattern(
    r"\b(done|complete|completed|finished|all set|ready|works now|now works|succeeded|"
    r"successfully)\b",
    flags=re.IGNORECASE,
)
"""What "it is finished" sounds like without a change verb."""


def claims_a_change(text: str) -> bool:
    """True when some sentence of ``text`` says, unhedged, that something was changed."""
    for sentence in _SENTENCES.split(text or ""):
        for match in CHANGE_CLAIM.finditer(sentence):
            if not HEDGE.search(sentence[: match.start()]):
                return True
    return False


def _claims(pattern: LazyPattern, sentence: str) -> bool:
    return any(not HEDGE.search(sentence[: m.start()]) for m in pattern.finditer(sentence))


def reports_not_done(text: str) -> bool:
    """True when ``text`` says plainly that the work was not done and claims nothing done.

    Example:
        >>> reports_not_done("I could not create newfile.py: the sandbox is read-only.")
        True
        >>> reports_not_done("Nothing was changed; app.py was not found.")
        True
        >>> reports_not_done("Done. I could not run the tests, though.")
        False
        >>> reports_not_done("I fixed app.py but could not run the tests.")
        False
        >>> reports_not_done("Done — I fixed the bug.")
        False
    """
    sentences = [s for s in _SENTENCES.split(text or "") if s.strip()]
    if not any(NOT_DONE.search(s) for s in sentences):
        return False
    return not any(_claims(CHANGE_CLAIM, s) or _claims(COMPLETION, s) for s in sentences)


__all__ = ["CHANGE_CLAIM", "COMPLETION", "HEDGE", "NOT_DONE", "claims_a_change", "reports_not_done"]
