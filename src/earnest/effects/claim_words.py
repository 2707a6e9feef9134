"""The cheap pre-check in front of the claim grammar: can this message contain a claim at all?

:func:`earnest.effects.claims.extract_claims` finds a claim only where the message carries one
of its trigger words: a file verb (*created*, *fixed*, *renamed* ...), a test word (*test*,
*pass*, *green*), a run word (*ran*, *run*, *executed*) or an action verb (*sent*, *booked* ...,
:data:`earnest.effects.actions.ACTION_VERBS`) or a git claim (*committed*, *pushed*). :func:`may_claim` looks for those words with
plain substring tests — no regular expression, no import — so a stop whose final message has
none of them ("Still done.", "Here is the summary you asked for.") never imports or compiles
the claim grammar. It is a necessary condition only: ``may_claim(text) is False`` implies
``extract_claims(text) == ()``; a ``True`` costs nothing but the full check.

The claim patterns match case-insensitively (``re.IGNORECASE``), so the text is case-folded
first; the one character that pattern matching folds to an ASCII letter and ``str.casefold``
does not is the dotless ``ı`` (it matches ``i``), mapped here too.
``tests/effects/test_effects_claim_words.py`` holds the agreement with the full grammar.

Example:
    >>> may_claim("Still done (3)."), may_claim("Done: I CREATED notes.md.")
    (False, True)
"""

from __future__ import annotations

TRIGGERS: tuple[str, ...] = (
    # file verbs (claims._FILE_VERBS, claims._RENAME); "rewrote"/"rewritten"/"reformatted"
    # contain "wrote"/"written"/"formatted"
    "created", "wrote", "written", "added", "generated", "introduced", "scaffolded", "saved",
    "updated", "edited", "fixed", "modified", "changed", "refactored", "patched", "adjusted",
    "amended", "replaced", "extended", "formatted", "deleted", "removed", "erased",
    "renamed", "moved",
    # tests pass (claims._TESTS_PASS): every pattern names a test, a pass or green
    "test", "pass", "green",
    # ran (claims._RAN_CMD, _RAN_KIND, _RAN_WORD): ran, re-ran, executed, have run, 've run
    "ran", "run", "executed",
    # claimed actions (actions.ACTION_VERBS): "e-mailed"/"emailed" contain "mailed",
    # "cancelled"/"canceled" contain "cancel", "rescheduled" contains "scheduled"
    "sent", "mailed", "cancel", "booked", "reserved", "refunded", "reimbursed", "charged",
    "issued", "processed", "submitted", "scheduled", "transferred", "upgraded", "downgraded",
    "merged", "pushed", "deployed", "published", "released", "placed", "returned", "exchanged",
    # git claims (git_claims.CLAIM): committed, pushed
    "committed",
)  # fmt: skip
"""Each claim pattern's match contains one of these (case-folded)."""

_FOLD_EXTRA = {0x131: "i"}  # "ı" matches "i" under re.IGNORECASE; casefold keeps it


def may_claim(text: str) -> bool:
    """Whether ``text`` carries a word a claim needs (``False``: it claims nothing)."""
    if not text:
        return False
    folded = text.casefold().translate(_FOLD_EXTRA)
    return any(word in folded for word in TRIGGERS)


__all__ = ["TRIGGERS", "may_claim"]
