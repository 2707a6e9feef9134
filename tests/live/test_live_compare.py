"""Reports and comparisons over stored verdicts: cells, ablation deltas, flips, drops, baselines."""

from __future__ import annotations

import json
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
from earnest.live.render import render_comparison, render_summary
from earnest.live.store import RunInfo, SampleRecord
from earnest.live.summary import NO_FAILURE, summarize
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
    records = [rec("F8", "rule", 0, "pass"), rec("F8", "rule", 1, None)]
    doc = baseline_document(info(2), records)
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(doc))
    base = side_from_baseline_file(path)
    assert base.samples[("F8", "p", "rule", 0)].verdict == "pass"
    assert base.samples[("F8", "p", "rule", 1)].verdict is None
    assert doc["profiles"]["p"]["model"] == "m" and doc["agent_docs"] == {"fixer": "a" * 64}
    later = info(2, "r2", model="m2")
    later = replace(later, checksums={**later.checksums, "agents": {"fixer": "b" * 64}})
    cand = side_from_run(later, [rec("F8", "rule", 0, "fail-choice"), rec("F8", "rule", 1, "pass")])
    c = compare(base, cand)
    assert len(c.flips) == 1 and len(c.void) == 1
    assert "profile p: model m → m2" in c.notes
    assert any(n.startswith("agent doc fixer changed") for n in c.notes)


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
    ],
)
def test_bad_baseline_files_name_the_place(tmp_path: Path, content: str, place: str | None) -> None:
    path = tmp_path / "b.json"
    path.write_text(content)
    with pytest.raises(InputError) as err:
        side_from_baseline_file(path)
    assert err.value.file == str(path) and err.value.place == place
