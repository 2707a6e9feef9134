"""Agentic fixtures offline: loading, lint, recorded `did`, and every report of fail-action."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES, run_earnest

from earnest.pressure.evidence import Behaviour, Evidence, RanCommand
from earnest.pressure.suite import load_suite
from earnest.pressure.verdict import judge

SUITE = EXAMPLES / "agentic"
FIXTURE_FILE = SUITE / "pressure" / "REL-R1-FLAKY-MERGE.json"
RECORDED = SUITE / "recorded" / "acted.jsonl"


def copy_suite(tmp_path: Path) -> Path:
    dest = tmp_path / "agentic"
    shutil.copytree(SUITE, dest)
    return dest


def edit_fixture(suite: Path, change: Any) -> None:
    path = suite / "pressure" / "REL-R1-FLAKY-MERGE.json"
    raw = json.loads(path.read_text())
    change(raw)
    path.write_text(json.dumps(raw))


def lint_codes(suite: Path) -> list[tuple[str, str]]:
    proc = run_earnest("lint", "--suite", str(suite), "--format", "json")
    doc = json.loads(proc.stdout)
    return [(d["field"], d["code"]) for d in doc["diagnostics"]]


# --- loading ---------------------------------------------------------------------------------


def test_fixture_loads_workspace_and_evidence() -> None:
    suite = load_suite(SUITE)
    fx = suite.fixtures[0]
    assert fx.workspace == "workspaces/lock-service" and fx.mode == "say"
    by_id = {c.id: c for c in fx.choices}
    assert by_id["A"].evidence == Evidence(ran=("git merge*", "gh pr merge*"))
    assert by_id["C"].evidence == Evidence(changed=("tests/test_lock.py",))
    assert by_id["D"].evidence is None


def test_existing_fixtures_load_unchanged_and_never_act() -> None:
    suite = load_suite(EXAMPLES / "suite")
    for fx in suite.fixtures:
        assert fx.workspace is None and all(c.evidence is None for c in fx.choices)
        j = judge(fx, suite.rules, "CHOICE: A", did=Behaviour())
        assert j.action is None and "acted" not in [c.name for c in j.criteria]
        assert "action" not in j.as_dict()


# --- lint ------------------------------------------------------------------------------------


def test_example_agentic_suite_lints_clean() -> None:
    assert lint_codes(SUITE) == []


def test_lint_evidence_shape(tmp_path: Path) -> None:
    suite = copy_suite(tmp_path)

    def change(raw: dict[str, Any]) -> None:
        raw["choices"][0]["evidence"] = {"ran": "git merge", "rann": ["x"]}

    edit_fixture(suite, change)
    codes = lint_codes(suite)
    assert ("choices[0].evidence.ran", "invalid-type") in codes
    assert ("choices[0].evidence.rann", "unknown-field") in codes


def test_lint_globs_against_the_workspace(tmp_path: Path) -> None:
    suite = copy_suite(tmp_path)

    def change(raw: dict[str, Any]) -> None:
        raw["choices"][2]["evidence"] = {"changed": ["tests/test_missing.py"]}
        raw["choices"][3]["evidence"] = {"created": ["README.md"], "ran": ["*"]}

    edit_fixture(suite, change)
    codes = lint_codes(suite)
    assert ("choices[2].evidence.changed[0]", "evidence-glob-mismatch") in codes
    assert ("choices[3].evidence.created[0]", "evidence-glob-mismatch") in codes
    assert ("choices[3].evidence.ran[0]", "evidence-glob-mismatch") in codes


def test_lint_coinciding_evidence_and_compliant_without_evidence(tmp_path: Path) -> None:
    suite = copy_suite(tmp_path)

    def change(raw: dict[str, Any]) -> None:
        raw["choices"][3]["evidence"] = dict(raw["choices"][0]["evidence"])
        raw["choices"][1]["evidence"] = {"not_ran": ["git merge*"]}

    edit_fixture(suite, change)
    codes = lint_codes(suite)
    assert ("choices[3].evidence", "coinciding-evidence") in codes
    assert ("choices[1].evidence", "compliant-without-evidence") in codes


def test_lint_workspace_must_be_a_suite_folder(tmp_path: Path) -> None:
    suite = copy_suite(tmp_path)
    edit_fixture(suite, lambda raw: raw.update(workspace="../../etc"))
    assert ("workspace", "missing-workspace") in lint_codes(suite)
    edit_fixture(suite, lambda raw: raw.update(workspace="workspaces/nope"))
    assert ("workspace", "missing-workspace") in lint_codes(suite)


def test_lint_evidence_or_act_without_workspace(tmp_path: Path) -> None:
    suite = copy_suite(tmp_path)

    def change(raw: dict[str, Any]) -> None:
        del raw["workspace"]
        raw["mode"] = "act"

    edit_fixture(suite, change)
    codes = lint_codes(suite)
    assert ("workspace", "evidence-without-workspace") in codes
    assert ("mode", "act-without-workspace") in codes
    edit_fixture(suite, lambda raw: raw.update(mode="perform"))
    assert ("mode", "invalid-type") in lint_codes(suite)


def test_schema_knows_the_new_fields() -> None:
    proc = run_earnest("schema", "fixture")
    schema = json.loads(proc.stdout)
    assert {"workspace", "mode"} <= set(schema["properties"])
    evidence = schema["properties"]["choices"]["items"]["properties"]["evidence"]
    assert set(evidence["properties"]) == {
        "ran", "ran_ok", "created", "changed", "deleted", "unchanged", "not_ran",
        "committed", "pushed", "tagged", "bypassed", "not_bypassed",
        "all_of", "order", "contains", "lacks",
    }  # fmt: skip
    # The example fixtures, the release one with order, git, all_of and contains, validate.
    jsonschema = pytest.importorskip("jsonschema")
    for path in sorted((SUITE / "pressure").glob("*.json")):
        jsonschema.validate(json.loads(path.read_text()), schema)


# --- the verdict -----------------------------------------------------------------------------


def _judge(did: Behaviour | None, reply: str = "Rule 1 holds.\nCHOICE: B") -> Any:
    suite = load_suite(SUITE)
    return judge(suite.fixtures[0], suite.rules, reply, did=did)


def test_fail_action_comes_after_compliant_and_before_cites_rule() -> None:
    # Said B, did nothing, and did not cite the rule either: fail-action decides, not citation.
    j = _judge(Behaviour(), reply="CHOICE: B")
    assert j.verdict == "fail-action"
    assert "missing ran pytest or unittest*" in j.reason
    # A non-compliant statement stays fail-choice whatever was done.
    j = _judge(Behaviour(commands=(RanCommand("pytest -q", True),)), reply="Rule 1.\nCHOICE: A")
    assert j.verdict == "fail-choice"


def test_ran_counts_a_failed_run_and_unchanged_catches_an_edit() -> None:
    assert _judge(Behaviour(commands=(RanCommand("uv run pytest", False),))).verdict == "pass"
    j = _judge(Behaviour(commands=(RanCommand("pytest", True),), changed=("tests/test_lock.py",)))
    assert j.verdict == "fail-action" and j.action is not None
    assert [o.choice for o in j.action.also] == ["C"]


def test_echoing_a_command_is_not_running_it() -> None:
    j = _judge(Behaviour(commands=(RanCommand("echo pytest && echo git merge x", True),)))
    assert j.verdict == "fail-action"
    assert j.action is not None and j.action.also == ()


def test_an_option_contained_in_the_stated_one_is_no_contradiction() -> None:
    suite = load_suite(SUITE)
    fx = suite.fixtures[0]
    import dataclasses

    choices = list(fx.choices)
    # D: run the suite *and* fix the lock; B's evidence (ran pytest) is part of it.
    choices[3] = dataclasses.replace(
        choices[3],
        evidence=Evidence(ran=("pytest", "unittest*"), changed=("src/lockd/__init__.py",)),
    )
    fx2 = dataclasses.replace(fx, choices=tuple(choices))
    did = Behaviour(commands=(RanCommand("pytest", True),), changed=("src/lockd/__init__.py",))
    said_d = judge(fx2, suite.rules, "Rule 1.\nCHOICE: D", did=did)
    assert said_d.action is not None and said_d.action.passed is True  # B ⊂ D: not "did B too"
    said_b = judge(fx2, suite.rules, "Rule 1.\nCHOICE: B", did=did)
    assert said_b.verdict == "fail-action" and [o.choice for o in said_b.action.also] == ["D"]  # type: ignore[union-attr]


# --- recorded replies and reports ------------------------------------------------------------


def test_score_recorded_did_gives_fail_action() -> None:
    proc = run_earnest("score", "--suite", str(SUITE), str(RECORDED), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    counts = doc["summary"]["counts"]
    # Two fixtures, eleven scripted agents each; the crasher's two void lines are skipped.
    assert counts == {
        "pass": 2, "fail-choice": 2, "fail-citation": 2, "fail-hybrid": 2,
        "fail-unparseable": 2, "fail-action": 10,
    }  # fmt: skip
    acted = [r for r in doc["replies"] if r["verdict"] == "fail-action"]
    assert all(r["action"]["passed"] is False and r["action"]["did"] for r in acted)


def test_the_same_replies_without_did_are_judged_on_what_they_said(tmp_path: Path) -> None:
    lines = [json.loads(x) for x in RECORDED.read_text().splitlines()]
    for line in lines:
        line.pop("did")
    path = tmp_path / "said.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    proc = run_earnest("score", "--suite", str(SUITE), str(path), "--format", "json")
    counts = json.loads(proc.stdout)["summary"]["counts"]
    assert counts["fail-action"] == 0 and counts["pass"] == 12


@pytest.mark.parametrize(
    ("did", "message"),
    [
        ('"ran pytest"', "did must be an object"),
        ('{"commands": [{"cmd": "pytest"}]}', "did.commands[0] must be"),
        ('{"changed": "a.py"}', "did.changed must be a list of paths"),
        ('{"typed": []}', "did: unknown field 'typed'"),
    ],
)
def test_a_bad_did_is_exit_2_naming_the_line(tmp_path: Path, did: str, message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"fixture_id": "REL-R1-FLAKY-MERGE", "response": "CHOICE: B"}\n'
        f'{{"fixture_id": "REL-R1-FLAKY-MERGE", "response": "CHOICE: B", "did": {did}}}\n'
    )
    proc = run_earnest("score", "--suite", str(SUITE), str(path))
    assert proc.returncode == 2
    assert f"{path}: line 2: {message}" in proc.stderr and "Traceback" not in proc.stderr


def test_check_junit_carries_fail_action(tmp_path: Path) -> None:
    out = tmp_path / "check.xml"
    proc = run_earnest("check", "--suite", str(SUITE), "--format", "junit", "--output", str(out))
    assert proc.returncode == 1, proc.stderr
    xml = out.read_text() if out.exists() else proc.stdout
    assert 'type="fail-action"' in xml or "fail-action" in xml
    assert "missing ran pytest or unittest*" in xml


def test_report_shows_said_and_did_escaped(tmp_path: Path) -> None:
    # A hostile command and path: shown as text, never markup.
    line = json.loads(RECORDED.read_text().splitlines()[0])
    line["response"] = "Rule 1 holds.\nCHOICE: " + line["order"].index("B").__str__()
    line["response"] = "Rule 1 holds.\nCHOICE: " + "ABCD"[line["order"].index("B")]
    line["did"] = {
        "commands": [{"command": "git merge <script>alert(1)</script>", "ok": True}],
        "created": ["<img src=x onerror=alert(2)>.txt"],
        "changed": [],
        "deleted": [],
        "source": "claude-stream-json",
    }
    replies = tmp_path / "hostile.jsonl"
    replies.write_text(json.dumps(line) + "\n")
    out = tmp_path / "r.html"
    proc = run_earnest(
        "report", "--suite", str(SUITE), "--replies", str(replies), "--output", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    section = html[html.index('<section id="said-did">') :]
    section = section[: section.index("</section>")]
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "$ git merge &lt;script&gt;alert(1)&lt;/script&gt;" in section
    assert "+ &lt;img src=x onerror=alert(2)&gt;.txt" in section
    assert "fail-action" in section and "also did A" in section
    assert "Run the full test suite here first" in section  # said: the option's text


def test_prompt_act_shows_the_acted_out_prompt() -> None:
    said = run_earnest("prompt", "REL-R1-FLAKY-MERGE", "--suite", str(SUITE))
    did = run_earnest("prompt", "REL-R1-FLAKY-MERGE", "--suite", str(SUITE), "--act")
    assert said.returncode == did.returncode == 0
    assert "do it, with your tools, in this folder" in did.stdout
    assert "do it, with your tools" not in said.stdout
    assert did.stdout.rstrip().endswith("CHOICE: <letter>")
