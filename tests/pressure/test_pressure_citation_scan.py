"""Issue 10, citations: ``rule\\nRule 2``, unknown ids kept apart, ranges, ``Rule 2-compliant``,
hyphenated titles. Each case was scored wrongly before the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from earnest.pressure.citations import citations_for, rule_mentions
from earnest.pressure.fixtures import build_fixture
from earnest.pressure.models import Fixture, Rule
from earnest.pressure.verdict import judge
from suitekit import fixture_data

RULES = {str(i): Rule(str(i), f"Plain rule number {i}") for i in range(1, 13)}
RULES["8"] = Rule("8", "Never present work-arounds")


def fixture(rule: int) -> Fixture:
    ff = build_fixture(fixture_data(rule=rule), Path("FX.json"))
    assert ff.fixture is not None, ff.diagnostics
    return ff.fixture


@pytest.mark.parametrize("sep", ["\n", " ", "\n\n", ":\n"])
def test_rule_word_before_a_mention_does_not_hide_it(sep: str) -> None:
    reply = f"This is the rule{sep}Rule 2 says the test ships with the change.\n\nCHOICE: C"
    j = judge(fixture(2), RULES, reply)
    assert j.verdict == "pass", j.reason
    assert rule_mentions(f"see the rule{sep}Rule 2") == {"2"}


def test_cited_rules_lists_only_the_doctrines_rules() -> None:
    j = judge(fixture(8), RULES, "Rule 8 and Rule 42 apply.\n\nCHOICE: C")
    assert j.verdict == "pass"
    assert j.cited_rules == ("8",)
    assert j.unknown_rules == ("42",)
    assert j.as_dict()["unknown_rules"] == ["42"]


@pytest.mark.parametrize(
    "text",
    [
        "Rules 1–4 apply",
        "Rules 1-4 apply",
        "Rules 1 through 4 apply",
        "Rules 1 to 4",
        "rules 1 — 4",
    ],
)
def test_a_range_cites_every_rule_in_it(text: str) -> None:
    assert rule_mentions(text) == {"1", "2", "3", "4"}
    j = judge(fixture(3), RULES, text + ".\n\nCHOICE: C")
    assert j.verdict == "pass", j.reason
    assert j.cited_rules == ("1", "2", "3", "4")


def test_a_word_joined_to_the_id_is_not_part_of_it() -> None:
    assert rule_mentions("This plan is Rule 2-compliant.") == {"2"}
    j = judge(fixture(2), RULES, "The plan is Rule 2-compliant.\n\nCHOICE: C")
    assert j.verdict == "pass", j.reason
    # a doctrine id with a hyphen is still read whole
    doctrine = {"R-2": Rule("R-2", "Tests first")}
    assert citations_for(doctrine).mentioned("per Rule R-2") == {"r-2"}


@pytest.mark.parametrize(
    "text",
    ["never present work-arounds", "NEVER present work arounds", "never present workarounds"],
)
def test_a_hyphenated_title_matches_with_a_space_or_none(text: str) -> None:
    assert citations_for(RULES).cited(text) == {"8"}
    j = judge(fixture(8), RULES, f"I will {text}.\n\nCHOICE: C")
    assert j.verdict == "pass", j.reason


def test_near_misses_of_a_hyphenated_title_still_miss() -> None:
    assert citations_for(RULES).cited("never present a work-around") == set()
    assert citations_for(RULES).cited("never present workaroundsx") == set()
