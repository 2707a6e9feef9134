"""The scorer's shortcuts agree with the plain computations they replace.

``judge`` reads a failed reply's words once, for its excuses and for citation prefilter words
together (``fixture_rationalizations_and_words``), and lets ``RuleCitations.cited`` use that
instead of scanning the reply once per title. These tests check each claim that rests on, on
arbitrary text as well as on the scoring corpus.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_corpus import ODD_FIXTURES, ODD_RULES, replies, suites

from earnest.pressure.citations import (
    RuleCitations,
    citations_for,
    normalize_rule_id,
    phrase_pattern,
)
from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.rationalizations import (
    _TABLE,
    _Matcher,
    fixture_rationalizations,
    fixture_rationalizations_and_words,
)
from earnest.pressure.verdict import _LINE_BREAK

# Characters that lowering, translating or splitting treat specially, plus plain letters.
AWKWARD = st.text(
    alphabet=st.sampled_from(
        list("rulestubchangeworkaroundREALfix ")
        + list(".!?;:'’‘\"-—_\t\r\n\x0b\x0c\x1c\x1d\x85\u2028\u00a0\u3000")
        + ["İ", "ß", "ﬁ", "K", "Σ", "ǅ", "\u0307", "#", "№", "8", "0"]
    ),
    max_size=80,
)


def _mask(words: tuple[str, ...], low: str) -> int:
    return sum(1 << i for i, w in enumerate(words) if w in low)


def test_translation_maps_one_to_one_and_never_touches_letters_or_digits() -> None:
    for key, value in _TABLE.items():
        assert isinstance(value, str) and len(value) == 1
        assert not chr(key).isalnum() and not value.isalnum()


def test_line_break_class_is_exactly_where_splitlines_breaks() -> None:
    breaks = {c for c in map(chr, range(0x110000)) if len(f"a{c}b".splitlines()) == 2}
    matched = {c for c in map(chr, range(0x110000)) if _LINE_BREAK.fullmatch(c)}
    assert breaks == matched


def test_citation_words_are_letters_and_digits() -> None:
    for rules, _ in suites().values():
        words = citations_for(rules).words
        assert words[0] == "rule"
        assert all(w.isalnum() for w in words)
        assert len(set(words)) == len(words)


def test_extra_words_must_be_letters_and_digits() -> None:
    with pytest.raises(ValueError, match="letters and digits"):
        _Matcher((), frozenset(), ("real-fix",))


@settings(max_examples=400, deadline=None)
@given(st.one_of(replies().map(lambda r: unwrap_envelope(r[3]).text), AWKWARD))
def test_word_presence_from_tokens_equals_substring_search(text: str) -> None:
    words = citations_for(ODD_RULES).words
    fixture = ODD_FIXTURES["ODD-7"]
    low = text.lower()
    matched, present = fixture_rationalizations_and_words(fixture, text, words, low=low)
    assert present == _mask(words, low)
    assert matched == fixture_rationalizations(fixture, text)


@settings(max_examples=400, deadline=None)
@given(replies(), AWKWARD)
def test_cited_with_word_presence_equals_scanning(
    sample: tuple[str, str, tuple[str, ...] | None, str], extra: str
) -> None:
    name, _, _, response = sample
    rules, _ = suites()[name]
    citations = citations_for(rules)
    text = unwrap_envelope(response).text + extra
    low = text.lower()
    plain = citations.cited(text, low)
    present = _mask(citations.words, low)
    assert citations.cited(text, low, present) == plain
    mentioned = citations.mentioned(text, low, present)
    assert mentioned == citations.mentioned(text, low)
    assert citations.cited(text, low, present, found=mentioned) == plain
    for rule_id in map(normalize_rule_id, rules):
        cites = citations.cites(rule_id, low, mentioned)
        assert cites == (rule_id in plain)
        if cites:
            assert citations.cited(text, low, found=mentioned | {rule_id}) == plain


def test_rule_citations_built_by_hand_keep_every_pattern() -> None:
    # A pattern that phrase_pattern did not make has no known second word: it is just run.
    custom = re.compile(r"real\s*fix")
    built = RuleCitations(
        frozenset({"8", "9"}),
        (("8", "real", custom), ("9", "escalate", phrase_pattern("escalate instead") or custom)),
    )
    assert built.cited("the realfix", None) == {"8"}
    assert built.cited("ESCALATE, instead!", None) == {"9"}
    assert built.cited("escalate later", None) == set()
    present = _mask(built.words, "the realfix")
    assert built.cited("the realfix", None, present) == {"8"}


# --- issue 10, item 10: shortcuts of the speed work ---------------------------------------

FENCE_TEXT = st.text(alphabet=st.sampled_from(list(" \t\n\r`~ab\u2028")), max_size=60)


@settings(max_examples=1000, deadline=None)
@given(st.one_of(FENCE_TEXT, replies().map(lambda r: unwrap_envelope(r[3]).text)))
def test_fence_marks_are_what_the_fence_pattern_matches(text: str) -> None:
    from earnest.pressure.parse import _FENCE, _fence_marks

    want = [(m.start(), m.end(), m.group(1)) for m in _FENCE.finditer(text)]
    assert _fence_marks(text) == want


def _unwrap_once_plainly(text: str) -> object:
    # What envelopes._unwrap_once did before its JSONL shortcut: the whole text through the
    # decoder first, then line by line.
    from earnest.pressure import envelopes
    from earnest.safejson import loads

    head = text.lstrip()[:1]
    if head not in ("{", '"', "["):
        return None
    stripped = text.strip()
    try:
        value = loads(stripped)
    except (ValueError, RecursionError):
        return envelopes._unwrap_jsonl(stripped) if head == "{" else None
    if isinstance(value, str):
        return envelopes.Unwrapped(value, "json-string")
    if isinstance(value, dict):
        return envelopes._unwrap_object(value)
    return envelopes._unwrap_once(text)  # arrays: untouched by the shortcut


_EVENT = st.sampled_from(
    [
        '{"type": "system", "subtype": "init", "session_id": "s"}',
        '{"type": "result", "subtype": "success", "is_error": false, "result": "CHOICE: B"}',
        '{"type":"assistant","session_id":"s","message":{"content":[{"type":"text","text":"x"}]}}',
        '{"type": "result", "result": "a\u2028b", "session_id": "s"}',
        '{"choices": [{"message": {"content": "CHOICE: A"}, "finish_reason": "stop"}]}',
        '{\n  "type": "result",\n  "is_error": false,\n  "result": "CHOICE: C"\n}',
        '{"type": "result"',
        "[1, 2]",
        '"CHOICE: D"',
        "null",
        "{}",
        "not json",
        "",
    ]
)


@settings(max_examples=1000, deadline=None)
@given(
    st.lists(_EVENT, min_size=1, max_size=4),
    st.lists(
        st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\x0b", " \n", "\n\n"]),
        min_size=4,
        max_size=4,
    ),
)
def test_event_logs_read_as_without_the_first_line_shortcut(
    events: list[str], breaks: list[str]
) -> None:
    from earnest.pressure.envelopes import _unwrap_once

    text = "".join(e + b for e, b in zip(events, breaks, strict=False))
    assert _unwrap_once(text) == _unwrap_once_plainly(text)


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(
        replies().map(lambda r: unwrap_envelope(r[3]).text.lower()),
        AWKWARD.map(str.lower),
        st.text(max_size=40),  # lone surrogates, astral characters, anything
    ),
    st.sampled_from(["example", "odd"]),
)
def test_word_presence_in_one_pass_equals_substring_search(low: str, name: str) -> None:
    from earnest.pressure.citations import word_presence

    words = citations_for(suites()[name][0]).words
    find = word_presence(words)
    if find is None:
        pytest.skip("the fast extra (ahocorasick-rs) is not installed")
    assert find(low) == _mask(words, low)
    # Words that are not letters and digits, and words inside words, too.
    odd = ("straße", "i̇stanbul", "rule", "rules", "ru", "—", "\U0001f600", "a b")
    assert word_presence(odd) is not None
    assert word_presence(odd)(low) == _mask(odd, low)  # type: ignore[misc]


def test_judge_is_the_same_without_the_one_pass_word_search() -> None:
    # The fast extra only replaces scans by one pass: judgements are identical without it.
    from speed_golden import MODES, load

    from earnest.pressure.verdict import judge

    golden = load()["bench"][::7]
    rules, fixtures = suites()["example"]
    citations = citations_for(rules)
    if citations.presence is None:
        pytest.skip("the fast extra (ahocorasick-rs) is not installed")
    with_pass = [
        judge(fixtures[g["fixture_id"]], rules, g["response"], **MODES[g["mode"]]) for g in golden
    ]
    saved = citations.presence
    object.__setattr__(citations, "presence", None)
    try:
        without = [
            judge(fixtures[g["fixture_id"]], rules, g["response"], **MODES[g["mode"]])
            for g in golden
        ]
    finally:
        object.__setattr__(citations, "presence", saved)
    assert with_pass == without


def test_rule_citations_pickle_and_rebuild_their_one_pass_search() -> None:
    import pickle

    rules = suites()["odd"][0]
    built = RuleCitations.for_rules(rules)
    again = pickle.loads(pickle.dumps(built))
    assert again == built and again.words == built.words
    assert (again.presence is None) == (built.presence is None)
    low = "per the friday rule and the freeze, no stubs in plans"
    assert again.cited(low, low) == built.cited(low, low) == {"6", "7", "x-1"}
