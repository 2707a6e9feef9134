"""The original ADR-0024 suite (nubos-pilot): it loads unchanged, and lint says what is wrong.

The suite is copied into tmp_path with a ``[tool.earnest]`` table in a pyproject.toml, so
nothing is written to tests/data.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import NUBOS_SUITE
from earnest.pressure import coverage_report, lint_suite, load_suite
from earnest.pressure.models import Suite

SRC = NUBOS_SUITE

CONFIG = """\
[project]
name = "nubos-pilot"

[tool.earnest.suite]
doctrine = "templates/COMPLETENESS.md"
agents = ["agents/*.md"]
claims_heading = "Completeness Mandate"
fixtures = "lib/pressure"
min_fixtures = 7

[tool.earnest.suite.debt]  # the ADR's pinned debt list
"4" = "no fixture yet"
"5" = "no fixture yet"
"7" = "no fixture yet"
"10" = "no fixture yet"
"11" = "no fixture yet"
"""


@pytest.fixture
def nubos(tmp_path: Path) -> Suite:
    root = tmp_path / "nubos"
    shutil.copytree(SRC, root)
    (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    return load_suite(root)


def test_fixtures_load_unchanged(nubos: Suite) -> None:
    source = (SRC / "SOURCE.md").read_text(encoding="utf-8")
    for ff in nubos.fixture_files:
        rel = ff.path.relative_to(nubos.config.root).as_posix()
        digest = hashlib.sha256(ff.path.read_bytes()).hexdigest()
        assert re.search(rf"`{re.escape(rel)}` \| `[0-9a-f]{{40}}` \| `{digest}`", source), rel
        assert ff.diagnostics == () and ff.fixture is not None, rel
        raw = json.loads(ff.path.read_text(encoding="utf-8"))
        fx = ff.fixture
        assert (fx.id, fx.agent, fx.rule, fx.title, fx.scenario, fx.correct_choice) == (
            raw["id"],
            raw["agent"],
            str(raw["rule"]),
            raw["title"],
            raw["scenario"],
            raw["correct_choice"],
        )
        assert [(c.id, c.text, c.compliant) for c in fx.choices] == [
            (c["id"], c["text"], c["compliant"]) for c in raw["choices"]
        ]
        assert len(fx.rationalizations) == len(raw["rationalizations"])
    assert len(nubos.fixtures) == 7
    assert len(nubos.rules) == 12
    assert {a: d.claimed_rules for a, d in nubos.agents.items()} == {
        "np-critic-style": ("2", "5", "7"),
        "np-executor": ("1", "3", "4", "7", "8", "9", "10"),
        "np-planner": ("1", "3", "4", "6", "11"),
        "np-verifier": ("1", "5", "10", "11", "12"),
    }


def test_lint_reports_what_is_really_wrong(nubos: Suite) -> None:
    found = lint_suite(nubos)
    got = sorted((Path(d.file).name, d.field, d.code) for d in found)
    assert got == sorted(
        [
            # scenarios (and one option) name the targeted rule: the citation is handed over
            ("PRS-R01-VERIFIER-PARTIAL.json", "scenario", "citation-leak"),
            ("PRS-R02-CRITIC-TODO.json", "scenario", "citation-leak"),
            ("PRS-R06-PLANNER-STUB.json", "scenario", "citation-leak"),
            ("PRS-R06-PLANNER-STUB.json", "choices[2].text", "citation-leak"),
            ("PRS-R09-EXECUTOR-NO-SEARCH.json", "scenario", "citation-leak"),
            ("PRS-R12-LEARNINGS-FILLER.json", "scenario", "citation-leak"),
            # the learnings extractor's agent doc is not in the suite
            ("PRS-R12-LEARNINGS-FILLER.json", "agent", "unknown-agent"),
            # "Emit a single JSON object as your final response" vs "CHOICE: <letter>"
            ("np-critic-style.md", "line 56", "output-contract-conflict"),
            # the executor's Rule 8 says "Pressure-tested by `PRS-R08-EXECUTOR-WORKAROUND`", the
            # verifier's Rule 1 "Pressure-tested by `PRS-R01-VERIFIER-PARTIAL`": both agents
            # are told they are tested (the phrase and the fixture id, one finding each)
            ("np-executor.md", "line 34", "test-awareness-leak"),
            ("np-executor.md", "line 34", "test-awareness-leak"),
            ("np-verifier.md", "line 25", "test-awareness-leak"),
            ("np-verifier.md", "line 25", "test-awareness-leak"),
            # every correct answer is C, and is usually the longest option
            ("pressure", "correct_choice", "answer-position-bias"),
            ("pressure", "choices", "answer-length-bias"),
        ]
    )
    by_code = {d.code: d for d in found}
    assert "7 of 7 correct choices are at position C" in by_code["answer-position-bias"].message
    assert "contains Rule 12" in next(
        d.message for d in found if d.code == "citation-leak" and "R12" in d.file
    )
    line56 = (nubos.config.root / "agents" / "np-critic-style.md").read_text().splitlines()[55]
    assert "Emit a single JSON object as your final response" in line56


def test_coverage_names_the_missing_agent_and_the_grown_debt(nubos: Suite) -> None:
    rep = coverage_report(nubos)
    assert [f.code for f in rep.failures] == ["unknown-agent", "debt-missing"]
    assert "'np-learnings-extractor' does not exist" in rep.failures[0].message
    assert "rule 12 (Boil the ocean) is claimed by np-verifier" in rep.failures[1].message
    status = {r.rule: r.status for r in rep.rows}
    assert status == {
        "1": "covered",
        "2": "covered",
        "3": "covered",
        "4": "debt",
        "5": "debt",
        "6": "covered",
        "7": "debt",
        "8": "covered",
        "9": "covered",
        "10": "debt",
        "11": "debt",
        "12": "uncovered",
    }
