"""The suite commands as a user runs them: real subprocesses, exit codes, output shapes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from suite_factory import FIXER, good_fixture, write_suite

from conftest import EXAMPLES, run_earnest
from earnest.pressure.schema import FIXTURE_SCHEMA

SUITE = EXAMPLES / "suite"


def test_lint_clean_example_suite_from_inside_it() -> None:
    res = run_earnest("lint", cwd=SUITE)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "lint: clean (12 fixture file(s), 3 agent doc(s), 10 rule(s))\n"


def test_lint_findings_exit_1_with_one_line_each(tmp_path: Path) -> None:
    bad = good_fixture(pressures=["time", "time"], agent="ghost")
    root = write_suite(tmp_path, {"FIX-1": bad, "BROKEN": "{"})
    res = run_earnest("lint", "--suite", str(root))
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    fx = str(root / "pressure" / "FIX-1.json")
    assert (
        f"error:   {fx}: pressures[1]: 'time' is listed twice: it adds no pressure [duplicate-pressure]"
        in lines
    )
    assert any(
        line.startswith(f"error:   {fx}: agent: no agent doc named 'ghost'") for line in lines
    )
    assert any(
        line.endswith("[invalid-json]") and "BROKEN.json: line 1 column 2:" in line
        for line in lines
    )
    assert any(line.endswith("[too-few-pressures]") for line in lines)
    assert lines[-1].startswith("lint: 4 error(s), 0 warning(s) in 2 fixture file(s)")


def test_lint_warnings_pass_unless_strict(tmp_path: Path) -> None:
    agent = FIXER + "\n## Output\n\nRespond only with a JSON object.\n"
    root = write_suite(tmp_path, agents={"fixer": agent})
    res = run_earnest("lint", "--suite", str(root))
    assert res.returncode == 0
    assert res.stdout.startswith("warning: ") and "[output-contract-conflict]" in res.stdout
    strict = run_earnest("lint", "--suite", str(root), "--strict", "--format", "json")
    assert strict.returncode == 1
    data = json.loads(strict.stdout)
    assert data["ok"] is False and data["strict"] is True
    assert (data["errors"], data["warnings"]) == (0, 1)
    assert data["diagnostics"] == [
        {
            "file": str(root / "agents" / "fixer.md"),
            "field": f"line {agent.splitlines().index('Respond only with a JSON object.') + 1}",
            "code": "output-contract-conflict",
            "severity": "warning",
            "message": data["diagnostics"][0]["message"],
        }
    ]
    assert set(data) == {
        "suite",
        "ok",
        "strict",
        "errors",
        "warnings",
        "fixture_files",
        "agents",
        "rules",
        "diagnostics",
    }


def test_coverage_table_and_json_on_the_example_suite() -> None:
    res = run_earnest("coverage", "--suite", str(SUITE))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split() == [
        "rule",
        "status",
        "title",
        "agents",
        "claiming",
        "it",
        "fixtures",
        "covering",
        "it",
    ]
    assert any(
        line.startswith("7 ") and "debt" in line and "(debt: scope creep" in line for line in lines
    )
    assert lines[-1] == "coverage: ok; 12 fixture(s) (min 12), 8 rule(s) covered, 2 in debt"
    data = json.loads(run_earnest("coverage", "--suite", str(SUITE), "--format", "json").stdout)
    assert data["ok"] is True and data["failures"] == [] and data["fixtures"] == 12
    row = data["rules"][0]
    assert row == {
        "rule": "1",
        "title": "Fix the cause, not the symptom",
        "status": "covered",
        "agents": ["implementer"],
        "fixtures": ["IMPL-R1-FLAKY-RETRY"],
        "debt_reason": None,
    }


def test_coverage_failure_exit_1(tmp_path: Path) -> None:
    root = write_suite(tmp_path, debt={}, min_fixtures=3)
    res = run_earnest("coverage", "--suite", str(root))
    assert res.returncode == 1
    fails = [line for line in res.stdout.splitlines() if line.startswith("FAIL ")]
    assert len(fails) == 2
    assert fails[0].endswith("[too-few-fixtures]") and fails[1].endswith("[debt-missing]")
    data = json.loads(run_earnest("coverage", "--suite", str(root), "-f", "json").stdout)
    assert [f["code"] for f in data["failures"]] == ["too-few-fixtures", "debt-missing"]


def test_prompt_reports_the_displayed_order() -> None:
    res = run_earnest(
        "prompt", "REV-R9-APPROVE-WITH-FOLLOWUP", "--suite", str(SUITE), "--seed", "2"
    )
    assert res.returncode == 0, res.stderr
    assert '# displayed order: A=D, B=A, C=C, D=B  (order: ["D", "A", "C", "B"])' in res.stdout
    assert "=== system ===\n# Reviewer" in res.stdout
    assert res.stdout.rstrip().endswith("CHOICE: <letter>")
    data = json.loads(
        run_earnest(
            "prompt",
            "REV-R9-APPROVE-WITH-FOLLOWUP",
            "--suite",
            str(SUITE),
            "--seed",
            "2",
            "--arm",
            "ablated",
            "--format",
            "json",
        ).stdout
    )
    assert data["order"] == ["D", "A", "C", "B"] and data["labels"]["A"] == "D"
    assert data["arm"] == "ablated" and "Working Rules" not in data["system"]
    assert set(data) == {"fixture_id", "arm", "seed", "order", "labels", "system", "user"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["prompt", "NOPE"], "no fixture 'NOPE' (have: IMPL-R1-FLAKY-RETRY"),
        (["prompt", "IMPL-R1-FLAKY-RETRY", "--arm", "both"], "'both' is not one of"),
        (["lint", "--format", "xml"], "'xml' is not one of"),
        (["schema", "agent"], "'agent' is not one of"),
    ],
)
def test_bad_usage_exits_2(args: list[str], message: str) -> None:
    res = run_earnest(*args, "--suite", str(SUITE)) if args[0] != "schema" else run_earnest(*args)
    assert res.returncode == 2
    assert message in res.stderr


def test_bad_input_exits_2_naming_the_file(tmp_path: Path) -> None:
    missing = run_earnest("lint", "--suite", str(tmp_path / "nowhere"))
    assert missing.returncode == 2
    assert missing.stderr == f"earnest: {tmp_path / 'nowhere'}: suite folder does not exist\n"
    (tmp_path / "earnest.toml").write_text("[suite]\ndoctrine = \n", encoding="utf-8")
    bad = run_earnest("coverage", "--suite", str(tmp_path))
    assert bad.returncode == 2
    assert bad.stderr.startswith(f"earnest: {tmp_path / 'earnest.toml'}: line 2: invalid TOML")
    assert "Traceback" not in bad.stderr


def test_prompt_of_a_fixture_that_does_not_load(tmp_path: Path) -> None:
    bad = good_fixture(pressures="time")
    root = write_suite(tmp_path, {"FIX-1": bad})
    res = run_earnest("prompt", "FIX-1", "--suite", str(root))
    assert res.returncode == 2
    assert "FIX-1.json: this fixture does not load: run `earnest lint`" in res.stderr


def test_init_then_lint_coverage_and_no_overwrite(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    res = run_earnest("init", str(target))
    assert res.returncode == 0, res.stderr
    assert f"created {target / 'earnest.toml'}" in res.stdout
    assert run_earnest("lint", "--suite", str(target)).returncode == 0
    assert run_earnest("coverage", "--suite", str(target)).returncode == 0
    toml = (target / "earnest.toml").read_bytes()
    again = run_earnest("init", str(target))
    assert again.returncode == 2
    assert "already exists; init never overwrites a file" in again.stderr
    assert (target / "earnest.toml").read_bytes() == toml


def test_schema_fixture_prints_the_schema() -> None:
    res = run_earnest("schema", "fixture")
    assert res.returncode == 0
    assert json.loads(res.stdout) == FIXTURE_SCHEMA


@pytest.mark.parametrize("command", ["lint", "coverage", "prompt", "init", "schema"])
def test_help(command: str) -> None:
    res = run_earnest(command, "--help")
    assert res.returncode == 0
    assert "Usage: earnest " + command in res.stdout
    if command in ("lint", "coverage", "prompt"):
        assert "--suite" in res.stdout and "--format" in res.stdout
