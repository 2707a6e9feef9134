"""The cheaper ways every reply is now judged give what the plain ones they replaced gave.

Issue 10, item 10 made the work every reply pays cheaper: the reasoning split goes from one
``<`` to the next, decision lines are read without a generator and fences are found only for
a reply with two or more of them, a ``Judgement`` is built as its mutable twin. Each old,
straightforward version is kept here and compared with the new one on adversarial text.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from bisect import bisect_right
from dataclasses import FrozenInstanceError, fields
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from judge_corpus import collect, suites

from earnest.pressure import citations, envelopes, parse, verdict
from earnest.pressure.models import Choice, Fixture, Rationalization, Rule
from earnest.pressure.parse import parse_decision
from earnest.pressure.reasoning import split_answer, split_reasoning
from earnest.pressure.verdict import Judgement, judge

# --- the reasoning split ---------------------------------------------------------------------

_TAGS = ("think", "thinking", "reasoning")
_NEEDLES = ("think>", "thinking>", "reasoning>")


def _old_split(text: str, low: str | None = None) -> tuple[str, str]:
    """split_reasoning as it was: earliest open and close tag found by searching each tag."""
    if "<" not in text:
        return text, ""
    low = text.lower() if low is None else low
    if len(low) != len(text):
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text)
    if not any(tag in low for tag in _NEEDLES):
        return text, ""
    answer: list[str] = []
    reasoning: list[str] = []
    pos = 0
    first = True
    n = len(text)
    while pos < n:
        open_at, tag = _old_next(low, pos, "<")
        close_at, close_tag = _old_next(low, pos, "</")
        if first and close_at >= 0 and (open_at < 0 or close_at < open_at):
            reasoning.append(text[pos:close_at])
            pos = close_at + len(close_tag) + 3
            first = False
            continue
        first = False
        if open_at < 0:
            answer.append(text[pos:])
            break
        answer.append(text[pos:open_at])
        body = open_at + len(tag) + 2
        end = low.find(f"</{tag}>", body)
        if end < 0:
            reasoning.append(text[body:])
            break
        reasoning.append(text[body:end])
        pos = end + len(tag) + 3
    return "".join(answer), "\n".join(r for r in reasoning if r)


def _old_next(low: str, pos: int, lead: str) -> tuple[int, str]:
    best, best_tag = -1, ""
    for tag in _TAGS:
        at = low.find(lead + tag + ">", pos)
        if at >= 0 and (best < 0 or at < best):
            best, best_tag = at, tag
    return best, best_tag


TAGGY = st.lists(
    st.sampled_from(
        [
            "<think>",
            "</think>",
            "<thinking>",
            "</thinking>",
            "<reasoning>",
            "</reasoning>",
            "<THINK>",
            "</Thinking>",
            "<",
            ">",
            "/",
            "</",
            "<think",
            "think>",
            "ing>",
            "<<think>>",
            "CHOICE: B",
            "\n",
            " ",
            "x",
            "İ",
            "ß",
            "K",
        ]
    ),
    max_size=24,
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(TAGGY)
def test_reasoning_split_equals_the_tag_by_tag_search(text: str) -> None:
    assert split_reasoning(text) == _old_split(text)
    assert split_reasoning(text, text.lower()) == _old_split(text, text.lower())


@settings(max_examples=1000, deadline=None)
@given(TAGGY)
def test_answer_and_its_lower_case_form_are_split_together(text: str) -> None:
    answer, reasoning = _old_split(text)
    assert split_answer(text, text.lower()) == (answer, reasoning, answer.lower())


def test_reasoning_split_on_the_documented_forms() -> None:
    for text in (
        "<think>CHOICE: A? no.</think>\nCHOICE: C",
        "draft\n</think>CHOICE: B",
        "CHOICE: B",
        "a < b and c > d\nCHOICE: B",
        "<thinking>x</thinking>y<reasoning>z",
        "<think>a<reasoning>b</think>c</reasoning>d",
        "</reasoning>x</think>y",
    ):
        assert split_reasoning(text) == _old_split(text)


# --- decision lines --------------------------------------------------------------------------


def _old_decision_lines(text: str, low: str) -> list[parse._Line]:
    """_decision_lines as it was: fences found up front, from a generator of candidates."""
    lines: list[parse._Line] = []
    fences: tuple[tuple[int, int], ...] = ()
    if ("`" in text and "```" in text) or ("~" in text and "~~~" in text):
        fences = parse._fence_spans(text)
    starts = [a for a, _ in fences] if fences else []
    number, counted = 1, 0
    for start, raw in _old_candidates(text, low):
        read = parse._read_line.__wrapped__(raw)
        if read is None:
            continue
        number += text.count("\n", counted, start)
        counted = start
        fenced = False
        if fences:
            i = bisect_right(starts, start) - 1
            fenced = i >= 0 and start < fences[i][1]
        labels, stripped, fallbacks, value = read
        lines.append(parse._Line(number, labels, stripped, fenced, fallbacks, value))
    return lines


def _old_candidates(text: str, low: str):  # type: ignore[no-untyped-def]
    if len(low) != len(text):
        for m in parse._CANDIDATE.finditer(text):
            yield m.start(), m.group(0)
        return
    pos = low.find("choice")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        if parse._DECORATION_ONLY.fullmatch(text, start, pos):
            yield start, text[start:end]
        pos = low.find("choice", end)


DECISIONS = st.lists(
    st.sampled_from(
        [
            "CHOICE: B",
            "choice: a",
            "**CHOICE: C**",
            "> CHOICE: `D`",
            "CHOICE: <letter>",
            "CHOICE: B, otherwise D",
            "CHOICE： D",
            "CHOICE:",
            "- choice",
            "a choice: B",
            "```",
            "~~~",
            "````",
            "  ```text",
            "\n",
            "\r\n",
            " ",
            "Rule 8 says so.",
            "İ",
            "ẞ",
        ]
    ),
    max_size=16,
).map("".join)


@settings(max_examples=1000, deadline=None)
@given(DECISIONS)
def test_decision_lines_equal_the_generator_with_fences_up_front(text: str) -> None:
    low = text.lower()
    new, old = parse._decision_lines(text, low), _old_decision_lines(text, low)
    if len(old) > 1:
        assert new == old
    else:  # one line is used whether it is fenced or not: its flag is not worked out
        assert [line._replace(fenced=False) for line in old] == new
    with mock.patch.object(parse, "_decision_lines", _old_decision_lines):
        want = parse_decision(text, "ABCD"), parse_decision(text, "ABC", low=low)
    assert (parse_decision(text, "ABCD"), parse_decision(text, "ABC", low=low)) == want


# --- building a Judgement --------------------------------------------------------------------


def _corpus_judgements() -> list[Judgement]:
    docs = suites()
    got = []
    for name, fixture_id, order, response in collect(300):
        rules, fixtures = docs[name]
        got.append(judge(fixtures[fixture_id], rules, response, order))
    return got


def test_judgement_built_as_its_twin_is_one_built_by_its_constructor() -> None:
    judgements = _corpus_judgements()
    assert len({j.verdict for j in judgements}) >= 4
    for j in judgements:
        assert type(j) is Judgement
        again = Judgement(**{f.name: getattr(j, f.name) for f in fields(Judgement)})
        assert j == again and hash(j) == hash(again) and repr(j) == repr(again)
        assert j.as_dict() == again.as_dict()
        assert pickle.loads(pickle.dumps(j)) == j
    with pytest.raises(FrozenInstanceError):
        judgements[0].verdict = "pass"  # type: ignore[misc]


def test_every_judgement_field_is_set() -> None:
    fx = Fixture(
        "F-1",
        "fixer",
        "8",
        "t",
        "s",
        ("time",),
        (Choice("A", "retry", False), Choice("B", "fix", True)),
        "B",
        (Rationalization("the operator asked for it", "no"),),
    )
    j = judge(fx, {"8": Rule("8", "Never present a workaround")}, "Rule 8.\nCHOICE: B")
    for f in fields(Judgement):
        getattr(j, f.name)  # an unset slot raises AttributeError
    assert re.fullmatch(r"chose B \(compliant\), cited Rule 8", j.reason)


# --- JSON envelopes --------------------------------------------------------------------------

BIG = [
    "18446744073709551616",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "1234567890123456789",
    "1.2345678901234567890123",
    "1e19",
    "-0",
    "0.5",
    "7",
    '"1234567890123456789012"',
    '"CHOICE: B"',
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(BIG), max_size=6), st.booleans(), st.booleans())
def test_orjson_path_equals_the_standard_library_on_long_numbers(
    items: list[str], as_object: bool, as_bytes: bool
) -> None:
    """A value is taken from orjson when it holds no float; one with a float only when the
    text has no run of 19 digits (orjson makes an integer beyond 64 bits a float)."""
    pytest.importorskip("orjson")
    from earnest import fastjson

    fast = fastjson.fast_loads()
    if as_object:
        text = "{" + ", ".join(f'"k{i}": {x}' for i, x in enumerate(items)) + "}"
    else:
        text = "[" + ", ".join(items) + "]"
    data: str | bytes = text.encode() if as_bytes else text
    want, got = json.loads(data), fast(data)
    assert repr(got) == repr(want)
    assert [type(v) for v in (got.values() if as_object else got)] == [
        type(v) for v in (want.values() if as_object else want)
    ]


def test_orjson_refuses_what_it_cannot_read_in_a_str_as_in_bytes() -> None:
    pytest.importorskip("orjson")
    from earnest import fastjson

    fast = fastjson.fast_loads()
    for text in ('"\ud800"', '{"a": "\udfff"}', '"\\ud800"', "[NaN]", "[1e400]"):
        assert repr(fast(text)) == repr(json.loads(text))
    for text in ("\ufeff{}", "{} x", ""):
        with pytest.raises(ValueError) as caught:
            fast(text)
        with pytest.raises(ValueError) as plain:
            json.loads(text)
        assert str(caught.value) == str(plain.value)


@pytest.mark.parametrize("parser", ["stdlib", "orjson"])
def test_benchmark_mix_judged_as_in_the_golden_file_with_either_parser(parser: str) -> None:
    """The golden judgements hold with the standard library's parser and with orjson from
    the first document (the golden test itself runs with orjson after its warm-up)."""
    code = (
        "from speed_golden import judge_one, load\n"
        "bench = load()['bench']\n"
        "wrong = sum(judge_one('example', r['fixture_id'], r['mode'], r['response'])['digest']"
        " != r['digest'] for r in bench)\n"
        "print(len(bench), wrong)\n"
    )
    here = Path(__file__).resolve().parent
    env = {**os.environ, "EARNEST_JSON": parser, "PYTHONPATH": str(here)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2000", "0"]


# --- rule mentions ---------------------------------------------------------------------------

_OLD_HEAD = re.compile(r"rules?(?:\s*+[#\u2116]\s*+|\s++)", re.IGNORECASE)
_OLD_FIRST = re.compile(rf"({citations._ID})\b")


def _old_mentions(text: str, known: frozenset[str] | None) -> set[str]:
    """rule_mentions as it was: the head, then the first id, matched one after the other."""
    found: set[str] = set()
    low = text.lower()
    if len(low) != len(text):
        low = citations._same_length_lower(text)
    pos = low.find("rule")
    while pos >= 0:
        end = _old_mention_at(text, pos, known, found)
        pos = low.find("rule", end if end is not None else pos + 4)
    return found


def _old_mention_at(
    text: str, pos: int, known: frozenset[str] | None, found: set[str]
) -> int | None:
    if pos and (text[pos - 1].isalnum() or text[pos - 1] == "_"):
        return None
    head = _OLD_HEAD.match(text, pos)
    if head is None:
        return None
    first = _OLD_FIRST.match(text, head.end())
    if first is None:
        return None
    ids = citations._resolve(first.group(1), known)
    if not ids:
        return None
    found.update(ids)
    end = first.end()
    last = ids[-1]
    while True:
        more = citations._NEXT.match(text, end)
        if more is None:
            return end
        next_ids = citations._resolve(more.group(2), known)
        if not next_ids:
            return end
        if (
            more.group(1).lower() in citations._RANGE_WORDS
            and last.isdigit()
            and next_ids[0].isdigit()
        ):
            found.update(citations._range(int(last), int(next_ids[0])))
        found.update(next_ids)
        last = next_ids[-1]
        end = more.end()


MENTIONS = st.lists(
    st.sampled_from(
        [
            "rule", "Rule", "RULES", "rules", "ruleſ", "rulS", "Rule ", " ", "  ", "\n", "#", " # ",
            "\u2116", "8", "08", "12", "4-6", "A", "a", "x", "-", ".", "_", ",", " and ", " or ",
            "–", " through ", "compliant", "İ", "K", "ſ",
        ]
    ),
    max_size=16,
).map("".join)  # fmt: skip


@settings(max_examples=1500, deadline=None)
@given(MENTIONS, st.sampled_from([None, frozenset({"8", "a", "x", "12"})]))
def test_rule_mentions_equal_the_head_then_the_first_id(
    text: str, known: frozenset[str] | None
) -> None:
    assert citations.rule_mentions(text, known) == _old_mentions(text, known)


LINES = st.lists(
    st.sampled_from(
        [
            *(
                "\n",
                "\r",
                "\r\n",
                "\x0b",
                "\x0c",
                "\x1c",
                "\x1d",
                "\x1e",
                "\x85",
                "\u2028",
                "\u2029",
            ),
            *("a", "{}", " ", '{"type": "result"}', "é", "\t", "x" * 70, "\n" * 9),
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=2000, deadline=None)
@given(LINES)
def test_event_log_lines_are_what_splitlines_gives(text: str) -> None:
    assert envelopes._lines(text) == text.splitlines()


NUMBER = st.sampled_from(
    [7, -3, 2**63, -(2**63) - 1, 2**64, 10**30, 0.5, 1e19, 12345678901234567890123, True, None]
)
TEXT = st.sampled_from(["CHOICE: B", "Rule 8.\nCHOICE: A", "", "é CHOICE: C"])


@st.composite
def _numbered_envelope(draw: st.DrawFn) -> str:
    """An envelope of every kind with numbers beyond 64 bits put in its objects."""
    n, text = draw(NUMBER), draw(TEXT)
    kind = draw(st.integers(0, 7))
    if kind == 0:
        value: object = {"type": "result", "is_error": draw(st.booleans()), "result": text, "n": n}
    elif kind == 1:
        value = {
            "response": text,
            "stats": {"n": n},
            "error": draw(st.sampled_from([None, n, {"code": n}, {"message": "x", "code": n}])),
        }
    elif kind == 2:
        value = {
            "choices": [{"index": n, "finish_reason": "stop", "message": {"content": text}}],
            "usage": n,
        }
    elif kind == 3:
        value = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "usage": {"n": n},
        }
    elif kind == 4:
        value = {
            "object": "response",
            "output": [{"type": "message", "content": [{"type": "output_text", "text": text}]}],
            "n": n,
            "error": draw(st.sampled_from([None, {"message": "m", "n": n}])),
        }
    elif kind == 5:
        value = {"type": "error", "error": {"code": n, "type": "overloaded"}}
    elif kind == 6:
        value = {"error": {"message": draw(st.sampled_from(["", "busy"])), "code": n}}
    else:
        events = [
            {"type": "system", "session_id": "s", "n": n},
            {"type": "result", "session_id": "s", "result": text, "is_error": False, "cost": n},
        ]
        return (
            "\n".join(json.dumps(e) for e in events) if draw(st.booleans()) else json.dumps(events)
        )
    return json.dumps(value)  # fmt: skip


@settings(max_examples=1000, deadline=None)
@given(_numbered_envelope())
def test_envelopes_read_loosely_are_read_as_exactly(envelope: str) -> None:
    """Long numbers may be read as floats (orjson), yet every unwrapped field is what the
    exact reading gives: an error object printed whole is read again, exactly."""
    pytest.importorskip("orjson")
    from earnest import fastjson

    with mock.patch.object(fastjson, "_parse", fastjson._orjson_parse()):
        assert "\n" in envelope or fastjson.parse_loose(envelope) is not None
        got = envelopes.unwrap_envelope(envelope)
    assert got == envelopes._unwrap(envelope, exact=True)
    with mock.patch.object(fastjson, "_parse", fastjson._stdlib):
        assert fastjson.parse_loose(envelope) is None
        assert envelopes.unwrap_envelope(envelope) == got


# --- lowering --------------------------------------------------------------------------------


def test_latin1_lowering_table_is_str_lower_for_every_latin1_character() -> None:
    every = "".join(map(chr, range(256)))
    assert verdict._lower(every) == every.lower()
    assert len(verdict._LATIN1_LOWER) == 256


@settings(max_examples=1000, deadline=None)
@given(
    st.text(alphabet=st.sampled_from([*map(chr, range(256)), "Σ", "İ", "€", "\udfff", "ǅ", "K"]))
)
def test_lowering_is_str_lower(text: str) -> None:
    assert verdict._lower(text) == text.lower()


def test_unwrapped_built_as_its_twin_is_one_built_by_its_constructor() -> None:
    texts = ["CHOICE: B", '{"type": "result", "is_error": false, "result": "x"}', '"\\"y\\""']
    texts += [response for *_, response in collect(200)]
    kinds = set()
    for text in texts:
        u = envelopes.unwrap_envelope(text)
        kinds.add(u.envelope)
        assert type(u) is envelopes.Unwrapped
        again = envelopes.Unwrapped(u.text, u.envelope, u.error, u.reasoning, u.stop)
        assert u == again and hash(u) == hash(again) and repr(u) == repr(again)
        assert pickle.loads(pickle.dumps(u)) == u
    assert len(kinds) >= 5
    with pytest.raises(FrozenInstanceError):
        u.text = "x"  # type: ignore[misc]
