"""coverage_report: rows, and each failure cause named (debt in both directions)."""

from __future__ import annotations

from pathlib import Path

from suite_factory import FIXER, good_fixture, write_suite

from earnest.pressure import coverage_report, load_suite
from earnest.pressure.coverage import CoverageReport


def report(root: Path) -> CoverageReport:
    return coverage_report(load_suite(root))


def causes(rep: CoverageReport) -> list[str]:
    return [f.code for f in rep.failures]


def test_baseline_passes_with_rows(tmp_path: Path) -> None:
    rep = report(write_suite(tmp_path, min_fixtures=1))
    assert rep.ok and rep.failures == ()
    rows = {r.rule: r for r in rep.rows}
    assert [r.rule for r in rep.rows] == ["1", "2", "3"]
    assert rows["1"].status == "covered"
    assert rows["1"].agents == ("fixer",) and rows["1"].fixtures == ("FIX-1",)
    assert rows["1"].title == "Fix the cause, not the symptom"
    assert rows["2"].status == "debt" and rows["2"].debt_reason == "needs a scenario"
    assert rows["3"].status == "unclaimed" and rows["3"].agents == ()
    assert rep.fixtures == 1 and rep.min_fixtures == 1


def test_too_few_fixtures_counts_only_fixtures_that_load(tmp_path: Path) -> None:
    rep = report(write_suite(tmp_path, {"FIX-1": good_fixture(), "BAD": "{"}, min_fixtures=2))
    assert causes(rep) == ["too-few-fixtures"]
    assert "1 fixture(s) load, min_fixtures is 2" in rep.failures[0].message
    assert "1 more file(s) do not load" in rep.failures[0].message
    assert rep.unloaded == 1


def test_missing_agent_doc(tmp_path: Path) -> None:
    rep = report(
        write_suite(tmp_path, {"FIX-1": good_fixture(), "G": good_fixture(id="G", agent="ghost")})
    )
    assert causes(rep) == ["unknown-agent"]
    assert rep.failures[0].file.endswith("G.json")
    assert "'ghost' does not exist" in rep.failures[0].message


def test_rule_not_in_doctrine(tmp_path: Path) -> None:
    rep = report(
        write_suite(tmp_path, {"FIX-1": good_fixture(), "X": good_fixture(id="X", rule=42)})
    )
    assert causes(rep) == ["unknown-rule"]
    assert "rule 42 is not in the doctrine" in rep.failures[0].message


def test_rule_not_claimed_by_its_agent(tmp_path: Path) -> None:
    rep = report(
        write_suite(tmp_path, {"FIX-1": good_fixture(), "S": good_fixture(id="S", rule=3)})
    )
    assert causes(rep) == ["rule-not-claimed"]
    assert "'fixer' does not claim Rule 3" in rep.failures[0].message
    # a fixture that measures nothing covers nothing
    assert next(r for r in rep.rows if r.rule == "3").fixtures == ()


def test_debt_grew(tmp_path: Path) -> None:
    rep = report(write_suite(tmp_path, debt={}))
    assert causes(rep) == ["debt-missing"]
    msg = rep.failures[0].message
    assert "debt grew: rule 2" in msg and "claimed by fixer" in msg and "not in [suite.debt]" in msg
    assert rep.failures[0].file.endswith("earnest.toml")
    assert next(r for r in rep.rows if r.rule == "2").status == "uncovered"


def test_debt_grew_when_the_only_fixture_does_not_count(tmp_path: Path) -> None:
    other = FIXER.replace("name: fixer", "name: other")
    fixtures = {"FIX-1": good_fixture(), "O": good_fixture(id="O", agent="ghost", rule=2)}
    rep = report(write_suite(tmp_path, fixtures, agents={"fixer": FIXER, "other": other}, debt={}))
    assert causes(rep) == ["unknown-agent", "debt-missing"]
    assert "O target(s) it but do not count" in rep.failures[1].message


def test_debt_stale_because_covered(tmp_path: Path) -> None:
    fixtures = {"FIX-1": good_fixture(), "T": good_fixture(id="T", rule=2)}
    rep = report(write_suite(tmp_path, fixtures))
    assert causes(rep) == ["debt-stale"]
    assert "rule 2 is in [suite.debt] but fixture(s) T cover it now" in rep.failures[0].message


def test_debt_stale_because_no_longer_claimed(tmp_path: Path) -> None:
    rep = report(write_suite(tmp_path, debt={"2": "x", "3": "nobody claims this"}))
    assert causes(rep) == ["debt-stale"]
    assert "rule 3 is in [suite.debt] but no agent claims it" in rep.failures[0].message


def test_debt_stale_because_not_in_doctrine(tmp_path: Path) -> None:
    rep = report(write_suite(tmp_path, debt={"2": "x", "9": "old rule"}))
    assert causes(rep) == ["debt-stale"]
    assert "rule 9 is in [suite.debt] but not in the doctrine" in rep.failures[0].message


def test_debt_keys_are_normalised(tmp_path: Path) -> None:
    assert report(write_suite(tmp_path, debt={"02": "leading zero"})).ok


def test_several_causes_at_once(tmp_path: Path) -> None:
    fixtures = {
        "G": good_fixture(id="G", agent="ghost"),
        "X": good_fixture(id="X", rule=42),
        "S": good_fixture(id="S", rule=3),
    }
    rep = report(write_suite(tmp_path, fixtures, min_fixtures=5, debt={"3": "stale"}))
    assert sorted(causes(rep)) == sorted(
        [
            "too-few-fixtures",
            "unknown-agent",
            "unknown-rule",
            "rule-not-claimed",
            "debt-missing",  # rules 1 and 2 claimed, nothing valid covers them
            "debt-missing",
            "debt-stale",  # rule 3 is unclaimed
        ]
    )
    assert not rep.ok
