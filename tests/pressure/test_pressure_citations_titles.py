"""Citations by title and alias (RuleCitations) and the fast path of rule_mentions."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from earnest.pressure.citations import (
    _mention_at,
    citations_for,
    normalize_phrase,
    rule_mentions,
)
from earnest.pressure.models import Rule

RULES = {
    "3": Rule("3", "Do it with tests", aliases=("test-first rule",)),
    "8": Rule("8", "Never present a workaround"),
    "A": Rule("A", "Ask first"),
}


def test_title_ignoring_case_and_punctuation() -> None:
    c = citations_for(RULES)
    assert c.cited("we DO it — with tests!") == {"3"}
    assert c.cited("Never present a... workaround") == {"8"}
    assert c.cited("never presented a workaround") == set()
    assert c.cited("do it with testsuite") == set()  # whole words only
    assert c.cited("undo it with tests") == set()


def test_alias_and_non_numeric_ids() -> None:
    c = citations_for(RULES)
    assert c.cited("the Test First rule") == {"3"}
    assert c.cited("Rule A applies") == {"A".casefold()}
    assert c.cited("ask first.") == {"A".casefold()}


def test_cache_is_per_rules_object() -> None:
    assert citations_for(RULES) is citations_for(RULES)
    other = dict(RULES)
    assert citations_for(other) is not citations_for(RULES)


def test_normalize_phrase() -> None:
    assert normalize_phrase("  Never-present: a *workaround*! ") == "never present a workaround"


def _reference(text: str, known: frozenset[str] | None) -> set[str]:
    """rule_mentions with its starts found by a plain case-insensitive regex scan instead of
    ``str.find`` on the lowered text (the fast path must agree with it)."""
    found: set[str] = set()
    end = 0
    for m in re.finditer(r"\brule", text, re.IGNORECASE):
        if m.start() < end:
            continue
        stop = _mention_at(text, m.start(), known, found)
        end = stop if stop is not None else m.start() + 4
    return found


tokens = st.sampled_from(
    [
        "rule",
        "Rule",
        "RULES",
        "rules",
        "#",
        "8",
        "12",
        "60",
        "a",
        "and",
        "or",
        ",",
        "&",
        " ",
        "x",
        "ruler",
        "B",
        "İ",
        "ß",
        "\n",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(tokens, max_size=14), st.sampled_from([None, frozenset({"a", "b"})]))
def test_fast_path_agrees_with_a_plain_scan(parts: list[str], known: frozenset[str] | None) -> None:
    text = "".join(parts)
    assert rule_mentions(text, known) == _reference(text, known)


def test_word_boundary_before_rule() -> None:
    assert rule_mentions("xrule 8 and rule 9") == {"9"}
    assert re.search("8", "Rule 8") is not None
