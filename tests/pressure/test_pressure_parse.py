"""Decision parsing: every accepted form, each prior-art pitfall, the edge cases, and fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from earnest.pressure.parse import parse_decision

ABCD = "ABCD"


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("CHOICE: C", "C"),
        ("choice: c", "C"),  # any case, lower-case letters accepted
        ("Choice: b", "B"),
        ("**CHOICE: C**", "C"),  # prior art: bold decision line was unparseable
        ("CHOICE: C.", "C"),  # prior art: trailing period was unparseable
        ("CHOICE: **B**", "B"),
        ("**CHOICE:** B", "B"),
        ("*CHOICE: B*", "B"),
        ("__CHOICE: B__", "B"),
        ("CHOICE: (B)", "B"),
        ("CHOICE: [B]", "B"),
        ("CHOICE: <B>", "B"),
        ("CHOICE: `B`", "B"),
        ("`CHOICE: B`", "B"),
        ("CHOICE: $B$", "B"),  # prior art: ANSWER: $B$
        ("CHOICE: B) Implement the file lock and the test", "B"),
        ("CHOICE: B. None of the above options is perfect", "B"),  # never read as extra letters
        ("CHOICE: B - serialise commits", "B"),
        ("CHOICE: B (not A)", "B"),
        ("CHOICE: Option C", "C"),
        ("> CHOICE: B", "B"),
        ("> > CHOICE: B", "B"),
        ("- CHOICE: b", "B"),
        ("* CHOICE: B", "B"),
        ("+ CHOICE: B", "B"),
        ("1. CHOICE: B", "B"),
        ("### CHOICE: B", "B"),
        ("# CHOICE: B", "B"),
        ("  CHOICE : B  ", "B"),
        ("CHOICE:B", "B"),
        ("CHOICE: C and a concurrency test", "C"),  # "a" is an article, not option A
        ("CHOICE: C, and I will add the test", "C"),  # "I" is a pronoun
        ("CHOICE: C and I'd add a test", "C"),
        ("Reasoning first.\n\nCHOICE: D\n", "D"),
        ("CHOICE: C\n\nWhy: Rule 8.\n\nCHOICE: C", "C"),  # the same letter twice is one choice
        ("CHOICE: C\r\n", "C"),
    ],
)
def test_decision_lines(reply: str, letter: str) -> None:
    d = parse_decision(reply, ABCD)
    assert d.status == "choice", d
    assert d.letter == letter
    assert d.reason is None


@pytest.mark.parametrize(
    ("reply", "letters"),
    [
        ("CHOICE: B and D", ("B", "D")),
        ("CHOICE: B/D", ("B", "D")),
        ("CHOICE: B, D", ("B", "D")),
        ("CHOICE: B & D", ("B", "D")),
        ("CHOICE: B + D", ("B", "D")),
        ("CHOICE: B or D", ("B", "D")),
        ("CHOICE: b and d", ("B", "D")),
        ("CHOICE: (B) and (D)", ("B", "D")),
        ("CHOICE: B, C and D", ("B", "C", "D")),
        ("CHOICE: C and D together", ("C", "D")),
        ("CHOICE: B and D.", ("B", "D")),
        # prior art: first-of-several lines hid a later different one
        ("CHOICE: C\n\nOn reflection:\nCHOICE: A", ("C", "A")),
        ("**CHOICE: B**\n...\n> CHOICE: D", ("B", "D")),
    ],
)
def test_hybrids(reply: str, letters: tuple[str, ...]) -> None:
    d = parse_decision(reply, ABCD)
    assert d.status == "hybrid"
    assert d.letters == letters
    assert d.letter is None


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "empty"),
        ("   \n\t\n", "empty"),
        ("I would fix the lock. Option C is right.", "no_decision"),
        ("My choice: C", "no_decision"),  # a decision line starts with CHOICE:
        ("The answer is C", "no_decision"),
        ("Choices: A or B", "no_decision"),
        ("CHOICE:", "no_decision"),  # decided: an empty decision line is no decision
        ("CHOICE: ", "no_decision"),
        ("CHOICE: <letter>", "no_decision"),  # the instruction template, echoed
        ("CHOICE:\nC", "no_decision"),  # the label must be on the decision line
        ("CHOICE: F", "unknown_label"),
        ("CHOICE: e", "unknown_label"),
        ("CHOICE: None of the above", "unknown_label"),  # never read as letters N, O, ...
        ("CHOICE: I think C", "unknown_label"),  # "I" is read as the label: not displayed
        ("CHOICE: B and Z", "unknown_label"),
        ("CHOICE: C\nCHOICE: refuse", "unknown_label"),
    ],
)
def test_unparseable_with_reason(reply: str, reason: str) -> None:
    d = parse_decision(reply, ABCD)
    assert d.status == "unparseable"
    assert d.reason == reason
    assert d.detail  # every unparseable reply says why in words


def test_labels_are_the_displayed_ones() -> None:
    assert parse_decision("CHOICE: E", "ABCDE").letter == "E"
    assert parse_decision("CHOICE: D", "ABC").reason == "unknown_label"
    assert parse_decision("CHOICE: b", ["A", "B"]).letter == "B"


def test_fenced_instructions_do_not_hide_the_decision() -> None:
    reply = (
        "You asked for this format:\n```\nCHOICE: <letter>\nCHOICE: A\n```\n"
        "I pick the lock.\nCHOICE: C\n"
    )
    d = parse_decision(reply, ABCD)
    assert (d.status, d.letter, d.lines) == ("choice", "C", (7,))


def test_fenced_decision_is_read_when_it_is_the_only_one() -> None:
    d = parse_decision("Here it is:\n```text\nCHOICE: C\n```", ABCD)
    assert d.letter == "C"
    d = parse_decision("~~~\nCHOICE: B\n~~~\n", ABCD)
    assert d.letter == "B"


def test_unclosed_fence_runs_to_the_end() -> None:
    d = parse_decision("CHOICE: B\n```\nCHOICE: D", ABCD)
    assert d.letter == "B"


def test_decision_mid_sentence_is_not_a_decision_line() -> None:
    d = parse_decision("I considered writing CHOICE: A but chose otherwise.", ABCD)
    assert d.reason == "no_decision"


def test_line_numbers_of_decision_lines() -> None:
    d = parse_decision("a\nb\nCHOICE: B\nc\nCHOICE: D", ABCD)
    assert d.lines == (3, 5)


def test_unicode_text_that_changes_length_when_lowered() -> None:
    # "İ" lowers to two characters: the slow path must still find the decision.
    d = parse_decision("İİİ Straße\nCHOICE: c\n", ABCD)
    assert d.letter == "C"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises_on_arbitrary_text(text: str) -> None:
    d = parse_decision(text, ABCD)
    assert d.status in {"choice", "hybrid", "unparseable"}
    if d.status == "unparseable":
        assert d.reason in {"empty", "no_decision", "unknown_label"}
    else:
        assert set(d.letters) <= set(ABCD)


decoration = st.sampled_from(["", "**", "*", "__", "`", "> ", "- ", "### ", "1. "])


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(alphabet=st.characters(blacklist_characters="\r"), max_size=40),
    deco=decoration,
    letter=st.sampled_from(ABCD),
    lower=st.booleans(),
)
def test_a_decorated_decision_line_after_any_prose_is_read(
    prefix: str, deco: str, letter: str, lower: bool
) -> None:
    if "choice" in prefix.lower() or "```" in prefix or "~~~" in prefix:
        return
    label = letter.lower() if lower else letter
    closing = deco if deco in {"**", "*", "__", "`"} else ""
    d = parse_decision(f"{prefix}\n{deco}CHOICE: {label}{closing}\n", ABCD)
    assert (d.status, d.letter) == ("choice", letter)
