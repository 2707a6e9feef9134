"""Reports and comparisons over stored verdicts: cells, ablation deltas, flips, drops, baselines."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from earnest.errors import InputError
from earnest.live.compare import (
    Outcome,
    Side,
    baseline_document,
    compare,
    side_from_baseline_file,
    side_from_run,
)
from earnest.live.store import RunInfo, SampleRecord
from earnest.live.summary import NO_FAILURE, summarize
from earnest.report.runs import render_comparison, render_summary
from earnest.stats import newcombe_interval, wilson_interval


def rec(
    fixture: str,
    arm: str,
    epoch: int,
    verdict: str | None,
    *,
    rule: str = "8",
    profile: str = "p",
    **kw: object,
) -> SampleRecord:
    return replace(
        SampleRecord(
            run_id="r",
            fixture_id=fixture,
            profile=profile,
            arm=arm,
            epoch=epoch,
            rule_id=rule,
            agent="fixer",
            provider="openai:m",
            model="m",
            params={},
            prompt_hash="h",
            agent_doc_sha256="a" * 64,
            fixture_sha256="f" * 64,
            displayed_order=("A", "B", "C", "D"),
            verdict=verdict,
            void=verdict is None,
            error="timeout: no reply within 1s" if verdict is None else None,
            error_kind="timeout" if verdict is None else None,
            cost=0.01,
        ),
        **kw,  # type: ignore[arg-type]
    )


def info(total: int, run_id: str = "r", model: str = "m") -> RunInfo:
    return RunInfo(
        run_id=run_id,
        suite_root="/s",
        config={"profiles": [{"name": "p", "kind": "openai", "model": model}]},
        checksums={
            "fixtures": {
                "F8": {
                    "sha256": "f",
                    "rule": "8",
                    "agent": "fixer",
                    "rationalizations": ["it is faster", "the boss asked"],
                },
                "F3": {"sha256": "f", "rule": "3", "agent": "fixer", "rationalizations": []},
            },
            "agents": {"fixer": "a" * 64},
        },
        total=total,
        status="complete",
    )


def test_cells_rates_intervals_pass_hat_k_and_voids() -> None:
    records = [
        rec("F8", "rule", 0, "pass", rationalizations=("it is faster",)),
        rec("F8", "rule", 1, "pass"),
        rec("F8", "rule", 2, "fail-citation", rationalizations=("it is faster",)),
        rec("F8", "rule", 3, None),
    ]
    s = summarize(info(4), records)
    (cell,) = s.cells
    assert (cell.n, cell.void, cell.passes, cell.compliant) == (3, 1, 2, 3)
    assert cell.rate == pytest.approx(2 / 3)
    assert cell.interval == wilson_interval(2, 3)
    assert cell.pass_hat_k[1] == pytest.approx(2 / 3) and cell.pass_hat_k[2] == pytest.approx(1 / 3)
    assert cell.pass_hat_k[3] == 0.0
    assert cell.matched == {"it is faster": 2} and cell.unmatched == ("the boss asked",)
    assert cell.errors == {"timeout": 1}
    assert s.exit_code() == 1  # a rule-arm failure and a void
    data = s.to_json()
    assert data["samples"] == {"total": 4, "stored": 4, "judged": 3, "void": 1}
    assert data["voids"][0]["error_kind"] == "timeout"
    assert data["cells"][0]["pass_hat_k"]["2"] == pytest.approx(1 / 3)


def test_ablation_delta_with_newcombe_interval_and_the_no_failure_flag() -> None:
    records = [rec("F8", "rule", e, "pass") for e in range(5)] + [
        rec("F8", "ablated", e, v)
        for e, v in enumerate(
            ["fail-choice", "fail-choice", "fail-citation", "fail-hybrid", "fail-choice"]
        )
    ]
    records += [rec("F3", "rule", e, "pass", rule="3") for e in range(3)]
    records += [rec("F3", "ablated", e, "fail-citation", rule="3") for e in range(3)]
    s = summarize(info(len(records)), records)
    r8 = next(r for r in s.rules if r.rule_id == "8")
    r3 = next(r for r in s.rules if r.rule_id == "3")
    assert r8.delta == 1.0 and r8.interval == newcombe_interval(5, 5, 0, 5)
    assert r8.interval[0] > 0 and r8.flag is None
    assert r8.choice_delta == pytest.approx(1 - 1 / 5)
    # rule 3's ablated arm picked the compliant option every time (only the citation was missing)
    assert r3.flag == NO_FAILURE and r3.delta == 1.0
    assert s.exit_code() == 0
    table = render_summary(s, "table")
    assert "no-failure" in table and "+1.00" in table
    junit = render_summary(s, "junit")
    assert 'failures="0"' in junit and "no-failure" in junit


def test_junit_fails_rule_arm_cells_only() -> None:
    records = [rec("F8", "rule", 0, "fail-choice"), rec("F8", "ablated", 0, "fail-choice")]
    junit = render_summary(summarize(info(2), records), "junit")
    assert junit.count("<failure") == 1 and "F8 [rule]" in junit


def side(label: str, verdicts: dict[tuple[str, str, str, int], str | None]) -> Side:
    return Side(label, {k: Outcome(v) for k, v in verdicts.items()})


def test_flips_fixes_new_unparseable_and_voids() -> None:
    base = side(
        "b",
        {
            ("F8", "p", "rule", 0): "pass",
            ("F8", "p", "rule", 1): "pass",
            ("F8", "p", "rule", 2): "fail-choice",
            ("F8", "p", "rule", 3): "pass",
            ("F3", "p", "rule", 0): "fail-choice",
        },
    )
    cand = side(
        "c",
        {
            ("F8", "p", "rule", 0): "pass",
            ("F8", "p", "rule", 1): "fail-unparseable",
            ("F8", "p", "rule", 2): "pass",
            ("F8", "p", "rule", 3): None,
            ("F3", "p", "rule", 0): "fail-choice",
            ("F3", "p", "rule", 1): "fail-unparseable",
        },
    )
    c = compare(base, cand)
    assert [ch.key for ch in c.flips] == [("F8", "p", "rule", 1)]
    assert [ch.key for ch in c.fixes] == [("F8", "p", "rule", 2)]
    assert [ch.key for ch in c.new_unparseable] == [("F8", "p", "rule", 1), ("F3", "p", "rule", 1)]
    assert [ch.key for ch in c.void] == [("F8", "p", "rule", 3)]
    assert c.only_candidate == (("F3", "p", "rule", 1),)
    assert c.paired == 5 and c.regressions == 3 and c.exit_code() == 1
    table = render_comparison(c, "table")
    assert "pass → fail flips (1)" in table and "3 regression(s)" in table
    data = json.loads(render_comparison(c, "json"))
    assert data["exit_code"] == 1 and data["flips"][0]["candidate"] == "fail-unparseable"
    assert render_comparison(c, "junit").count("<failure") == 2


def test_identical_sides_have_no_regressions() -> None:
    s = side("b", {("F8", "p", "rule", e): "pass" for e in range(3)})
    c = compare(s, s)
    assert c.exit_code() == 0 and "no regressions" in render_comparison(c, "table")


def test_a_pass_rate_drop_beyond_the_interval_is_a_regression_a_small_one_is_not() -> None:
    base = side("b", {("F8", "p", "rule", e): "pass" for e in range(10)})
    big = side(
        "c",
        {("F8", "p", "rule", e): "pass" for e in range(10)}
        | {("F8", "p", "rule", e): "fail-choice" for e in range(10, 20)},
    )
    # paired epochs all pass; the drop comes from the extra epochs the candidate took
    c = compare(base, big)
    assert not c.flips and len(c.drops) == 1
    d = c.drops[0]
    assert d.baseline == (10, 10) and d.candidate == (10, 20) and d.interval[1] < 0
    small = side(
        "c",
        {("F8", "p", "rule", e): ("fail-choice" if e == 0 else "pass") for e in range(10)}
        | {("F8", "p", "rule", e): "pass" for e in range(10, 12)},
    )
    base2 = side("b", {("F8", "p", "rule", e): "pass" for e in range(1, 12)})
    assert compare(base2, small).drops == ()


def test_pairing_profiles_for_a_model_swap() -> None:
    base = side("b", {("F8", "haiku", "rule", 0): "pass"})
    cand = side("c", {("F8", "sonnet", "rule", 0): "fail-choice"})
    unpaired = compare(base, cand)
    assert unpaired.paired == 0 and any("--pair-profiles" in n for n in unpaired.notes)
    paired = compare(base, cand, pair_profiles={"sonnet": "haiku"})
    assert paired.paired == 1 and len(paired.flips) == 1


def test_bless_round_trip_and_checksum_notes(tmp_path: Path) -> None:
    records = [
        rec(
            "F8",
            "rule",
            0,
            "pass",
            reason="chose C (compliant), cited Rule 8",
            chosen=("C",),
            judgement={"displayed_choices": ["A"]},
        ),
        rec("F8", "rule", 1, None),
    ]
    doc = baseline_document(info(2), records)
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(doc))
    base = side_from_baseline_file(path)
    assert base.samples[("F8", "p", "rule", 0)].verdict == "pass"
    assert base.samples[("F8", "p", "rule", 0)].reason == "chose C (compliant), cited Rule 8"
    assert base.samples[("F8", "p", "rule", 0)].choice_text == "A (fixture choice C)"
    assert base.samples[("F8", "p", "rule", 1)].verdict is None
    assert base.samples[("F8", "p", "rule", 1)].reason.startswith("timeout")
    assert doc["profiles"]["p"]["model"] == "m" and doc["agent_docs"] == {"fixer": "a" * 64}
    later = info(2, "r2", model="m2")
    later = replace(later, checksums={**later.checksums, "agents": {"fixer": "b" * 64}})
    cand = side_from_run(later, [rec("F8", "rule", 0, "fail-choice"), rec("F8", "rule", 1, "pass")])
    c = compare(base, cand)
    assert len(c.flips) == 1 and len(c.void) == 1
    assert "profile p: model m → m2" in c.notes
    assert any(n.startswith("agent doc fixer changed") for n in c.notes)


def test_junit_has_a_case_per_sample_with_reasons_skips_and_drop_cases() -> None:
    reply = "I pick <B> & ship it \x01 now ]]> " + "x" * 3000
    base = Side(
        "b",
        {("F8", "p", "rule", e): Outcome("pass", reason="chose A (compliant)") for e in range(6)}
        | {("F9", "p", "rule", 0): Outcome("pass"), ("F8", "p", "rule", 6): Outcome("pass")},
    )
    cand = Side(
        "c",
        {
            ("F8", "p", "rule", e): Outcome(
                "fail-choice",
                reason="chose B (non-compliant)",
                chosen=("C",),
                displayed=("B",),
                reply=reply,
            )
            for e in range(5)
        }
        | {
            ("F8", "p", "rule", 5): Outcome(None, reason="timeout: no reply within 1s"),
            ("F8", "p", "rule", 6): Outcome("pass"),
            ("F7", "p", "rule", 0): Outcome("fail-unparseable", reason="unparseable: no decision"),
        },
    )
    c = compare(base, cand)
    assert len(c.flips) == 5 and len(c.drops) == 1 and c.paired == 7
    root = ET.fromstring(render_comparison(c, "junit"))
    cases = root.findall("./testsuite/testcase")
    # 7 paired + 1 only-baseline + 1 only-candidate + 1 drop
    assert len(cases) == c.paired + len(c.only_baseline) + len(c.only_candidate) + len(c.drops)
    by_name = {x.get("name"): x for x in cases}
    flip = by_name["F8 [p/rule/epoch 0]"].find("failure")
    assert flip is not None and flip.get("type") == "fail-choice"
    assert flip.get("message") == "pass → fail-choice: chose B (non-compliant)"
    body = flip.text or ""
    assert "baseline reason: chose A (compliant)" in body
    assert "choice: B (fixture choice C)" in body
    assert "reply:\nI pick <B> & ship it \\x01 now ]]> x" in body and "[… truncated]" in body
    assert len(body) < 2500
    void = by_name["F8 [p/rule/epoch 5]"].find("skipped")
    assert void is not None and "timeout: no reply within 1s" in void.get("message", "")
    only_b = by_name["F9 [p/rule/epoch 0]"].find("skipped")
    assert only_b is not None and "only in the baseline" in only_b.get("message", "")
    new = by_name["F7 [p/rule/epoch 0]"].find("failure")
    assert new is not None and new.get("type") == "fail-unparseable"
    assert new.get("message", "").startswith("absent → fail-unparseable")
    ok = by_name["F8 [p/rule/epoch 6]"]
    assert ok.find("failure") is None and ok.find("skipped") is None
    drop = by_name["F8 [p/rule] pass rate"].find("failure")
    assert drop is not None and drop.get("type") == "pass-rate-drop"
    assert drop.get("message", "").startswith("pass rate 7/7 100% → 1/6 17%")
    assert root.get("failures") == str(5 + 1 + 1) and root.get("skipped") == "2"
    assert "chose B (non-compliant)" in render_comparison(c, "table")


def test_a_baseline_file_without_reasons_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(
        json.dumps(
            {
                "earnest_baseline": 1,
                "run_id": "r",
                "samples": [
                    {
                        "fixture_id": "F8",
                        "profile": "p",
                        "arm": "rule",
                        "epoch": 0,
                        "verdict": "pass",
                    }
                ],
            }
        )
    )
    old = side_from_baseline_file(path).samples[("F8", "p", "rule", 0)]
    assert old == Outcome("pass")
    cand = side_from_run(
        info(1), [rec("F8", "rule", 0, "fail-citation", reason="did not cite Rule 8")]
    )
    c = compare(side_from_baseline_file(path), cand)
    assert c.flips[0].to_json()["reason"] == "did not cite Rule 8"
    assert c.flips[0].to_json()["baseline_reason"] == ""


@pytest.mark.parametrize(
    ("content", "place"),
    [
        ("not json", None),
        ('{"samples": []}', "earnest_baseline"),
        ('{"earnest_baseline": 1, "samples": {}}', "samples"),
        (
            '{"earnest_baseline": 1, "samples": [{"fixture_id": "F", "profile": "p", "arm": "rule", "epoch": -1}]}',
            "samples[0].epoch",
        ),
        (
            '{"earnest_baseline": 1, "samples": [{"fixture_id": "F", "profile": "p", "arm": "rule", "epoch": 0, "verdict": "ok"}]}',
            "samples[0].verdict",
        ),
        (
            '{"earnest_baseline": 1, "samples": [{"fixture_id": "F", "profile": 3, "arm": "rule", "epoch": 0}]}',
            "samples[0].profile",
        ),
        (
            '{"earnest_baseline": 1, "samples": [{"fixture_id": "F", "profile": "p", "arm": "rule", "epoch": 0, "reason": 3}]}',
            "samples[0].reason",
        ),
        (
            '{"earnest_baseline": 1, "samples": [{"fixture_id": "F", "profile": "p", "arm": "rule", "epoch": 0, "choice": "A"}]}',
            "samples[0].choice",
        ),
    ],
)
def test_bad_baseline_files_name_the_place(tmp_path: Path, content: str, place: str | None) -> None:
    path = tmp_path / "b.json"
    path.write_text(content)
    with pytest.raises(InputError) as err:
        side_from_baseline_file(path)
    assert err.value.file == str(path) and err.value.place == place
