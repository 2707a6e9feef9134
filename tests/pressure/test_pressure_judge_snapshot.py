"""Scoring was optimised for speed; these tests prove no judgement moved.

``snapshots/judge_snapshot.json.gz`` was written by ``judge_corpus.py`` with the scorer as it
was before the optimisation: the example suite's recorded replies and some 3,500
Hypothesis-generated replies built from everything scoring is sensitive to. Every field of
every judgement (verdict, reason, criteria, cited rules, matched rationalizations and their
scores) must come out identical.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from hypothesis import given, settings
from judge_corpus import SNAPSHOT, example_judgements, judge_record, replies, suites

from earnest.pressure.citations import citations_for, normalize_rule_id
from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.rationalizations import match_rationalizations
from earnest.pressure.reasoning import split_reasoning
from earnest.pressure.verdict import judge


@pytest.fixture(scope="module")
def snapshot() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress(SNAPSHOT.read_bytes()))
    return data


def _diff(want: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
    return {k: {"snapshot": want.get(k), "now": got.get(k)} for k in want if want[k] != got.get(k)}


def test_snapshot_covers_every_verdict_and_form(snapshot: dict[str, Any]) -> None:
    generated = snapshot["generated"]
    assert len(generated) >= 3000
    verdicts = {g["judgement"]["verdict"] for g in generated}
    assert verdicts == {"pass", "fail-choice", "fail-citation", "fail-hybrid", "fail-unparseable"}
    assert sum(1 for g in generated if g["judgement"]["matched_rationalizations"]) >= 500
    assert sum(1 for g in generated if g["judgement"]["envelope"]) >= 300
    assert sum(1 for g in generated if len(g["judgement"]["cited_rules"]) >= 3) >= 300


def test_example_suite_replies_judged_as_in_the_snapshot(snapshot: dict[str, Any]) -> None:
    want = snapshot["example_suite"]
    got = example_judgements()
    assert len(got) == len(want) == 27
    for i, (w, g) in enumerate(zip(want, got, strict=True), 1):
        assert g == w, f"line {i}: {_diff(w, g)}"


def test_generated_replies_judged_as_in_the_snapshot(snapshot: dict[str, Any]) -> None:
    wrong = []
    for g in snapshot["generated"]:
        order = tuple(g["order"]) if g["order"] is not None else None
        now = judge_record(g["suite"], g["fixture_id"], order, g["response"])
        if now != g["judgement"]:
            wrong.append((g["fixture_id"], g["response"][:200], _diff(g["judgement"], now)))
    assert not wrong, f"{len(wrong)} judgements changed; first: {wrong[:3]}"


@settings(max_examples=300, deadline=None)
@given(replies())
def test_judgement_agrees_with_the_public_matchers(
    sample: tuple[str, str, tuple[str, ...] | None, str],
) -> None:
    # judge takes shortcuts (it only needs the targeted rule to decide a verdict); its
    # cited_rules and matched excuses must still be exactly what the public functions find.
    name, fixture_id, order, response = sample
    rules, fixtures = suites()[name]
    fx = fixtures[fixture_id]
    j = judge(fx, rules, response, order)
    text, _ = split_reasoning(unwrap_envelope(response).text)
    cited = citations_for(rules).cited(text)
    known = set(citations_for(rules).known) | {normalize_rule_id(fx.rule)}
    assert set(j.cited_rules) == cited & known
    assert set(j.unknown_rules) == cited - known
    if j.verdict != "pass":
        background = (fx.scenario, fx.title, *(c.text for c in fx.choices))
        assert j.matched_rationalizations == match_rationalizations(
            fx.rationalizations, text, background=background
        )
    else:
        assert j.matched_rationalizations == ()
