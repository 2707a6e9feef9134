"""The excuse matcher's two ways of cutting a reply into sentences agree exactly.

``match_words`` marks each sentence end as a token of its own so one split finds both the words
and the sentences; a reply that holds the mark character itself is cut the older way, by
splitting each sentence again. Both must give the same sentence masks, hence the same matches.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from earnest.pressure.models import Rationalization
from earnest.pressure.rationalizations import _MARK, _MARK_SPACED, _Matcher, _translate

EXCUSES = (
    Rationalization("The operator explicitly asked for the retry.", "No."),
    Rationalization("A temporary override is fine; we will fix it tomorrow.", "No."),
    Rationalization("Blocking the customers is worse than skipping the check.", "No."),
)
WORDS = ("rule", "override", "customers")
PIECES = [
    "The operator",
    "explicitly asked",
    "for the retry",
    "temporary override",
    "fix it tomorrow",
    "blocking customers",
    "skipping the check",
    "rule 4",
    ". ",
    "!",
    "?\n",
    ";",
    ":",
    "\n\n",
    " ",
    "  \t",
    "x",
    "'s",
]

text_st = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(text_st)
def test_marked_and_split_sentences_agree(reply: str) -> None:
    matcher = _Matcher(EXCUSES, frozenset({"retry"}), WORDS)
    text = _translate(reply.lower())
    marked = text.replace("\n", _MARK_SPACED).split()
    plain = text.split()
    assert [t for t in marked if t != _MARK] == plain
    split = matcher._split_sentences(text, list(map(matcher.classes.__getitem__, plain)))
    assert matcher._marked_sentences(list(map(matcher.classes.__getitem__, marked))) == split


@settings(max_examples=200, deadline=None)
@given(text_st)
def test_a_reply_holding_the_mark_matches_as_with_a_space(reply: str) -> None:
    # The mark character is not whitespace: a lone one is a token matching nothing, as a lone
    # "x" is. So a reply with a standalone mark (the slow path) matches as one with "x".
    matcher = _Matcher(EXCUSES, frozenset({"retry"}), WORDS)
    with_mark = reply + f" {_MARK} " + reply
    with_x = reply + " x " + reply
    assert matcher.match_words(with_mark, 0.6) == matcher.match_words(with_x, 0.6)


def test_the_mark_survives_a_cleared_token_cache() -> None:
    matcher = _Matcher(EXCUSES, frozenset(), WORDS)
    reply = "The operator explicitly asked. For the retry, yes."
    before = matcher.match_words(reply, 0.6)
    for i in range(200_002):
        matcher.classes[f"t{i}"] = 0
    matcher.classes["fresh-token"]  # over the bound: the cache is cleared and reseeded
    assert matcher.classes[_MARK] == matcher.sentence_bit
    assert matcher.match_words(reply, 0.6) == before
    assert before[0]


AWKWARD = st.text(
    alphabet=st.sampled_from(
        list("operatorexplicitlyaskedretry ")
        + list(".!?;:'’‘\"-—_\t\r\n\x0b\x0c\x1c\x1d\x85\u2028\u00a0\u3000\x00")
        + ["İ", "ß", "ﬁ", "K", "Σ", "\u0307", "#", "8"]
    ),
    max_size=120,
)


@settings(max_examples=400, deadline=None)
@given(AWKWARD)
def test_sentences_agree_on_awkward_text(reply: str) -> None:
    # Lowering, translation and both whitespace notions: the marked cut equals the plain one
    # whenever the reply does not hold the mark (the only case the marked cut is used).
    matcher = _Matcher(EXCUSES, frozenset(), WORDS)
    text = _translate(reply.lower())
    plain = text.split()
    split = matcher._split_sentences(text, list(map(matcher.classes.__getitem__, plain)))
    if _MARK not in text:
        marked = text.replace("\n", _MARK_SPACED).split()
        assert matcher._marked_sentences(list(map(matcher.classes.__getitem__, marked))) == split
