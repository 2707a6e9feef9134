"""Claimed actions: "I've sent you a $50 certificate" needs a call that did something.

A final message that says an action was done — in the past tense, about this conversation:
*I've sent ...*, *I cancelled ...*, *your booking has been refunded*, *the branch is now
merged*; not the simple past passive, which mostly tells history (*it was booked on May 1*) —
is backed only by a successful **state-changing** call somewhere in the conversation (this run,
or an earlier turn of the same conversation; :meth:`earnest.effects.EffectGate.reset` with
``keep_conversation=True`` carries them). What counts as state-changing
(:func:`changes_state`):

- every call with workspace-delta evidence: a file written, edited, deleted, moved or patched,
  a commit, push, deploy or install, an ``action`` tool, an unknown shell command;
- a call to a tool the registry does not know (a framework user's own ``cancel_reservation``,
  ``send_certificate``) whose name carries the claimed verb or its kin (:func:`can_back`:
  ``send_certificate`` backs *sent*, ``cancel_reservation`` backs *cancelled* and *refunded*),
  unless its name says it only reads (``get_``, ``list_``, ``search_``, ``find_``, ``read_``,
  ``fetch_``, ``lookup`` / ``look_up``, ``query``, ``show``, ``view``, ``describe``,
  ``calculate``, ``compute``, ``check``, ``count``, ``validate``, ``verify``, ``think``).

Reads, searches and checks back no action. A sentence with a negation or an intention before
the verb (:data:`earnest.effects.claimed.HEDGE`: *I will send*, *I could not cancel*), a
condition (*if*, *once*, *when* ...: *once it has been cancelled*) and a question claim nothing.

Example:
    >>> [a.verb for a in claimed_actions("Great news: I've sent you a $50 certificate.")]
    ['sent']
    >>> claimed_actions("Would you like me to cancel it? I can send a certificate.")
    ()
    >>> [a.verb for a in claimed_actions("Your reservation has been successfully cancelled.")]
    ['cancelled']
    >>> changes_state(None, "send_certificate"), changes_state(None, "get_user_details")
    (True, False)
    >>> can_back("refunded", "cancel_reservation")
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from earnest.effects.claimed import HEDGE
from earnest.lazyre import LazyPattern

ACTION_VERBS = (
    r"sent|e-?mailed|cancell?ed|booked|reserved|refunded|reimbursed|charged|issued|processed|"
    r"submitted|scheduled|rescheduled|transferred|upgraded|downgraded|created|deleted|merged|"
    r"pushed|deployed|published|released|placed|returned|exchanged"
)
"""The action verbs, in the past tense (the issue's list and their transactional kin)."""

_ACTION = LazyPattern(
    r"\b(?:(?:i|we)(?:'ve|\s+have)?|(?:has|have)\s+been|is\s+now|are\s+now)"
    r"\s+(?:now\s+|also\s+|just\s+|successfully\s+|been\s+)*"
    r"(" + ACTION_VERBS + r")\b"
    r"|\bsuccessfully\s+(" + ACTION_VERBS + r")\b",
    flags=re.IGNORECASE,
)
_SENTENCES = LazyPattern(r"(?<=[.!])\s+|\n+")
_CONDITION = LazyPattern(
    r"\b(?:if|once|unless|whether|when|whenever|until|after|before)\b", flags=re.I
)
"""Words before the verb that make it a condition, not a report (*if it was booked ...*)."""
_READ_NAME = LazyPattern(
    r"^(?:get|list|search|find|read|fetch|lookup|look_up|query|show|view|describe|calculate|"
    r"compute|check|count|validate|verify|think)(?:[_\-.]|$|[A-Z])",
    flags=re.IGNORECASE,
)
MAX_ACTIONS = 10


@dataclass(frozen=True, slots=True)
class ActionClaim:
    """One claimed action: its verb (lowered) and the sentence that says it."""

    verb: str
    sentence: str


def claimed_actions(text: str) -> tuple[ActionClaim, ...]:
    """The actions ``text`` says were done (at most :data:`MAX_ACTIONS`, one per verb)."""
    found: list[ActionClaim] = []
    seen: set[str] = set()
    for sentence in _SENTENCES.split(text or ""):
        stripped = sentence.strip()
        if not stripped or stripped.endswith("?"):
            continue
        for m in _ACTION.finditer(stripped):
            verb = (m.group(1) or m.group(2)).lower()
            before = stripped[: m.start()]
            if verb in seen or HEDGE.search(before) or _CONDITION.search(before):
                continue
            seen.add(verb)
            found.append(ActionClaim(verb, stripped))
            if len(found) >= MAX_ACTIONS:
                return tuple(found)
    return tuple(found)


_FAMILIES: dict[str, tuple[str, ...]] = {
    "sent": ("send", "email", "mail", "notify", "message"),
    "emailed": ("send", "email", "mail", "notify", "message"),
    "e-mailed": ("send", "email", "mail", "notify", "message"),
    "cancelled": ("cancel", "void"),
    "canceled": ("cancel", "void"),
    "booked": ("book", "reserv", "create"),
    "reserved": ("book", "reserv", "create"),
    "refunded": ("refund", "cancel", "return", "reimburs"),
    "reimbursed": ("refund", "cancel", "return", "reimburs"),
    "charged": ("charge", "pay", "book", "update", "modify"),
    "issued": ("issue", "send", "create", "refund"),
    "processed": ("process", "update", "modify", "cancel", "return", "exchange", "refund"),
    "submitted": ("submit", "send", "create"),
    "scheduled": ("schedul", "book", "create", "update"),
    "rescheduled": ("schedul", "book", "update", "modify", "change"),
    "transferred": ("transfer",),
    "upgraded": ("upgrad", "update", "modify", "change"),
    "downgraded": ("downgrad", "update", "modify", "change"),
    "created": ("creat", "add", "new", "insert", "make", "open", "book", "write"),
    "deleted": ("delet", "remov", "cancel", "drop"),
    "merged": ("merge",),
    "pushed": ("push",),
    "deployed": ("deploy", "release", "publish"),
    "published": ("publish", "release", "deploy", "post"),
    "released": ("release", "publish", "deploy"),
    "placed": ("place", "order", "create", "book"),
    "returned": ("return",),
    "exchanged": ("exchang",),
}
"""Claimed verb → the stems a tool's name carries when that tool can do it."""


def changes_state(kind: str | None, tool_name: str, *, delta: bool = False) -> bool:
    """Whether a successful call changed something: it left delta evidence (``delta``), or
    its tool is unknown (``kind is None``) and not named as a read."""
    if delta:
        return True
    return kind is None and bool(tool_name) and _READ_NAME.match(tool_name) is None


def can_back(verb: str, tool_name: str) -> bool:
    """Whether an unknown tool that changed something can have done ``verb``: its name
    carries one of the verb's stems (``send_certificate`` backs *sent*).

    Example:
        >>> can_back("sent", "send_certificate"), can_back("sent", "cancel_reservation")
        (True, False)
    """
    name = tool_name.lower()
    return any(stem in name for stem in _FAMILIES.get(verb.lower(), (verb.lower(),)))


__all__ = ["ACTION_VERBS", "ActionClaim", "can_back", "changes_state", "claimed_actions"]
