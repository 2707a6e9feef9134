"""The pytest plugin: ``pytest --earnest-suite DIR`` gives earnest check's verdicts as test items."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO, SRC
from earnest.pressure.check import run_check
from earnest.pressure.suite import load_suite
from suitekit import fixture_data, write_replies, write_suite

pytest_plugins = ["pytester"]

SUITE = EXAMPLES / "suite"


def _plugin_args() -> list[str]:
    # Installed (pip install -e .), the entry point loads the plugin; from a checkout it must be
    # named, and naming it twice would register it twice.
    installed = any(
        ep.value == "earnest.pytest_plugin" for ep in metadata.entry_points(group="pytest11")
    )
    return [] if installed else ["-p", "earnest.pytest_plugin"]


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        *_plugin_args(),
        "-p",
        "no:cacheprovider",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        *args,
    )


def test_entry_point_is_declared() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["pytest11"] == {"earnest": "earnest.pytest_plugin"}
    import earnest.pytest_plugin as plugin

    assert callable(plugin.pytest_addoption)


def test_example_suite_items_match_earnest_check(pytester: pytest.Pytester) -> None:
    check = run_check(load_suite(SUITE))
    assert check.score is not None
    replies = check.score.replies
    ablated_failures = sum(
        1 for r in replies if r.record.arm == "ablated" and not r.judgement.passed
    )
    gating = len(check.gating_failures)
    passes = sum(1 for r in replies if r.judgement.passed)
    suite = load_suite(SUITE)
    lint_files = 2 + len(suite.agents) + len(suite.fixture_files)

    result = _run(pytester, "--earnest-suite", str(SUITE), "-rfx")
    # lint per file + coverage all pass on the example suite; the replies are a deliberate mix
    result.assert_outcomes(passed=lint_files + 1 + passes, failed=gating, xfailed=ablated_failures)
    assert gating == 10 and ablated_failures == 4
    out = result.stdout.str()
    # a failure carries its verdict, reason, criteria and the reply
    assert "reply[IMPL-R1-FLAKY-RETRY/gpt-4.1-mini/rule/0@replies.jsonl:2]" in out
    assert "fail-choice: chose D (non-compliant)" in out
    assert "NO  compliant: choice D is non-compliant" in out
    # an ablated failure is an expected failure, with the reason
    assert "ablated arm (RED baseline, never gates): fail-choice" in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_collect_only_and_keyword_selection(pytester: pytest.Pytester) -> None:
    # -qv: the repo's own -q (addopts) undone, one node id a line
    result = _run(pytester, "--earnest-suite", str(SUITE), "--collect-only", "-qv")
    lines = [ln for ln in result.stdout.lines if "earnest.toml::" in ln]
    assert any(ln.endswith("::lint[doctrine.md]") for ln in lines)
    assert any(ln.endswith("::lint[pressure/OPS-R6-DROP-ARCHIVE.json]") for ln in lines)
    assert any(ln.endswith("::coverage") for ln in lines)
    assert sum("::reply[" in ln for ln in lines) == 27

    only = _run(pytester, "--earnest-suite", str(SUITE), "-k", "coverage or lint")
    only.assert_outcomes(passed=len([ln for ln in lines if "::reply[" not in ln]))


def test_lint_errors_coverage_failures_and_warnings(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    bad = fixture_data(id="FX-BAD", pressures=["time", "time"])  # duplicate, too few
    scenario = fixture_data()["scenario"].replace("What do you do?", "What should you do?")
    warned = fixture_data(id="FX-WARN", scenario=scenario)  # question-framing: a warning
    root = write_suite(
        tmp_path / "suite",
        [fixture_data(), bad, warned],
        config=(
            '[suite]\ndoctrine = "doctrine.md"\nagents = ["agents/*.md"]\n'
            'claims_heading = "Working Rules"\nfixtures = "pressure"\nmin_fixtures = 5\n'
            'replies = ["recorded/*.jsonl"]\n'
        ),
    )
    (root / "recorded").mkdir()
    write_replies(
        root / "recorded" / "r.jsonl",
        [
            {"fixture_id": "FX-R08-RETRY", "response": "Per Rule 8.\nCHOICE: C", "model": "m"},
            {"fixture_id": "FX-R08-RETRY", "response": "CHOICE: A", "arm": "ablated"},
            {"fixture_id": "FX-R08-RETRY", "response": "Retry.\nCHOICE: A", "model": "m"},
        ],
    )
    result = _run(pytester, "--earnest-suite", str(root), "-rA")
    out = result.stdout.str()
    # lint: earnest.toml, doctrine.md, agents/fixer.md, FX-R08-RETRY, FX-WARN pass; FX-BAD
    # fails; coverage fails; replies: one pass, one gating failure, one ablated (xfail)
    result.assert_outcomes(passed=6, failed=3, xfailed=1, warnings=1)
    assert "EarnestLintWarning" in out and "[question-framing]" in out
    assert "FAILED" in out and "lint[pressure/FX-BAD.json]" in out
    assert "2 lint error(s)" in out
    assert "[duplicate-pressure]" in out and "[too-few-pressures]" in out
    assert "coverage failure(s)" in out and "too-few-fixtures" in out
    assert "reply[FX-R08-RETRY/m/rule/0@r.jsonl:3]" in out


def test_a_suite_that_cannot_be_read_is_one_failing_item(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    result = _run(pytester, "--earnest-suite", str(tmp_path / "empty"))
    result.assert_outcomes(failed=1)
    assert "earnest: " in result.stdout.str()
    missing = _run(pytester, "--earnest-suite", str(tmp_path / "nope"))
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    assert "not a folder" in missing.stderr.str()


def test_junitxml_carries_the_verdict(pytester: pytest.Pytester, tmp_path: Path) -> None:
    xml = tmp_path / "junit.xml"
    _run(pytester, "--earnest-suite", str(SUITE), f"--junitxml={xml}")
    root = ET.parse(xml).getroot()
    cases = {c.get("name"): c for c in root.iter("testcase")}
    case = cases["reply[REV-R5-KEY-IN-DIFF/gpt-4.1-mini/rule/0@replies.jsonl:14]"]
    failure = case.find("failure")
    assert failure is not None
    assert "fail-citation" in (failure.get("message") or "") + (failure.text or "")


def test_without_the_option_it_does_nothing_and_imports_nothing(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_probe="""
        import sys

        def test_probe():
            loaded = sorted(m for m in sys.modules if m.startswith("earnest"))
            print("EARNEST_MODULES", loaded)
        """
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider", "-s", "-q"],
        cwd=pytester.path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
    line = next(ln for ln in proc.stdout.splitlines() if "EARNEST_MODULES" in ln)
    loaded = json.loads(line.split("EARNEST_MODULES", 1)[1].strip().replace("'", '"'))
    # the plugin module itself, and nothing of earnest's machinery
    assert set(loaded) <= {"earnest", "earnest.pytest_plugin"}, loaded
    assert "earnest.pytest_plugin" in loaded


def _suite_items() -> int:
    check = run_check(load_suite(SUITE))
    assert check.score is not None
    suite = load_suite(SUITE)
    return 2 + len(suite.agents) + len(suite.fixture_files) + 1 + len(check.score.replies)


def test_collect_only_reports_the_items_it_lists(pytester: pytest.Pytester) -> None:
    # -qv: the repo's own -q (addopts) undone, one node id a line
    result = _run(pytester, "--earnest-suite", str(SUITE), "--collect-only", "-qv")
    n = _suite_items()
    assert result.ret == pytest.ExitCode.OK
    assert f"{n} tests collected" in result.stdout.str()
    assert "no tests collected" not in result.stdout.str()
    assert sum("::" in line for line in result.stdout.lines) == n


def test_from_a_project_root_only_the_suite_and_the_projects_tests(
    pytester: pytest.Pytester,
) -> None:
    import shutil

    shutil.copytree(SUITE, pytester.path / "suite")
    # A Python file in the suite folder is not one of the project's tests.
    (pytester.path / "suite" / "test_decoy.py").write_text("def test_decoy():\n    pass\n")
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = _run(pytester, "--earnest-suite", "suite", "--collect-only", "-q")  # no ini here
    ids = [line for line in result.stdout.lines if "::" in line]
    assert "test_own.py::test_own" in ids
    assert not [i for i in ids if "decoy" in i]
    assert len(ids) == len(set(ids)) == _suite_items() + 1  # nothing collected twice
    assert all(i.startswith("suite/earnest.toml::") for i in ids if i != "test_own.py::test_own")
    selected = _run(pytester, "--earnest-suite", "suite", "-k", "own or coverage")
    selected.assert_outcomes(passed=2)


def test_xdist_runs_the_same_items_with_the_same_outcomes(tmp_path: Path) -> None:
    # Items come from a real collector, so pytest-xdist's workers collect and run them like any
    # test: the same counts with -n 2 as in one process.
    pytest.importorskip("xdist")

    def outcome(*extra: str) -> str:
        proc = subprocess.run(
            [
                *(sys.executable, "-m", "pytest", *_plugin_args(), "-p", "no:cacheprovider"),
                *("--earnest-suite", str(SUITE), *extra),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": str(SRC)},
        )
        last = [ln for ln in proc.stdout.splitlines() if " passed" in ln or " failed" in ln]
        assert last, proc.stdout[-2000:] + proc.stderr[-2000:]
        return last[-1].split(" in ")[0].strip("= ")

    alone = outcome()
    assert "failed" in alone and "passed" in alone
    assert outcome("-n", "2") == alone
