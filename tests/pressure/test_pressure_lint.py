"""lint_suite: every code triggered by a minimal bad fixture, every heuristic with a near miss."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from suite_factory import FIXER, SCENARIO, good_fixture, write_suite

from earnest.pressure import CODES, has_errors, lint_suite, load_suite
from earnest.pressure.lint import counter_restates, output_contract_conflicts
from earnest.pressure.models import Diagnostic


def lint(root: Path) -> list[Diagnostic]:
    return lint_suite(load_suite(root))


def codes(diags: list[Diagnostic]) -> list[str]:
    return [d.code for d in diags]


def test_baseline_suite_is_clean(tmp_path: Path) -> None:
    assert lint(write_suite(tmp_path)) == []


def _choices(*specs: tuple[str, bool]) -> list[dict[str, Any]]:
    return [{"id": cid, "text": f"Option {cid} text.", "compliant": ok} for cid, ok in specs]


def _mutate(path: str, value: Any) -> dict[str, Any]:
    fx = good_fixture()
    target: Any = fx
    keys = path.split(".")
    for k in keys[:-1]:
        target = target[int(k)] if k.isdigit() else target[k]
    last = keys[-1]
    if value is _DELETE:
        del target[int(last) if last.isdigit() else last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return fx


_DELETE = object()

CASES: list[tuple[str, Any, str, str]] = [
    # (path to mutate, new value, expected code, expected field)
    ("pressures", ["time", "authority"], "too-few-pressures", "pressures"),
    ("pressures", ["time", "time", "authority"], "duplicate-pressure", "pressures[1]"),
    ("pressures", ["time", "authority", "boredom"], "unknown-pressure", "pressures[2]"),
    (
        "choices",
        _choices(("A", True), ("B", True), ("C", False)),
        "not-exactly-one-compliant",
        "choices",
    ),
    (
        "choices",
        _choices(("A", False), ("B", False), ("C", False)),
        "not-exactly-one-compliant",
        "choices",
    ),
    ("correct_choice", "C", "correct-choice-mismatch", "correct_choice"),
    ("correct_choice", "Z", "correct-choice-mismatch", "correct_choice"),
    (
        "choices",
        _choices(("A", False), ("B", True), ("A", False)),
        "duplicate-choice-id",
        "choices[2].id",
    ),
    (
        "choices",
        _choices(("A", False), ("BB", True), ("C", False)),
        "invalid-choice-id",
        "choices[1].id",
    ),
    ("choices", _choices(("B", True)), "too-few-choices", "choices"),
    (
        "rationalizations.0.counter",
        "",
        "rationalization-without-counter",
        "rationalizations[0].counter",
    ),
    (
        "rationalizations.0.counter",
        _DELETE,
        "rationalization-without-counter",
        "rationalizations[0].counter",
    ),
    ("rationalizations.0.counter", "No.", "counter-restates-excuse", "rationalizations[0].counter"),
    (
        "rationalizations.0.counter",
        "My lead told me to ship the retry, so shipping the retry is what my lead told me.",
        "counter-restates-excuse",
        "rationalizations[0].counter",
    ),
    ("rationalizations", [], "no-rationalizations", "rationalizations"),
    ("rationalizations.0.excuse", " ", "empty-excuse", "rationalizations[0].excuse"),
    ("must_cite", ["retry budget", " "], "empty-must-cite", "must_cite[1]"),
    ("agent", "ghost", "unknown-agent", "agent"),
    ("rule", 9, "unknown-rule", "rule"),
    ("rule", 3, "rule-not-claimed", "rule"),
    ("title", _DELETE, "missing-field", "title"),
    ("pressures", "time", "invalid-type", "pressures"),
    ("schema_version", 2, "unsupported-schema-version", "schema_version"),
    ("must_cites", ["x"], "unknown-field", "must_cites"),
    ("scenario", SCENARIO + " Your Rule 1 obligation applies.", "citation-leak", "scenario"),
    ("scenario", SCENARIO + " Fix the cause - not the symptom!", "citation-leak", "scenario"),
    ("scenario", SCENARIO + " Remember the ROOT CAUSE rule.", "citation-leak", "scenario"),
    ("choices.1.text", "Per rule #1, move the cleanup.", "citation-leak", "choices[1].text"),
    ("scenario", SCENARIO + " This is a quiz about your habits.", "quiz-words", "scenario"),
    ("title", "short", "thin-title", "title"),
    ("scenario", "Skip the tests?", "thin-scenario", "scenario"),
    ("choices.1.text", "no", "thin-choice", "choices[1].text"),
    (
        "scenario",
        SCENARIO + " You are being evaluated.",
        "test-awareness-leak",
        "prompt.user line 1",
    ),
    (
        "scenario",
        SCENARIO.replace("What do you do?", "What should you do?"),
        "question-framing",
        "scenario",
    ),
]


@pytest.mark.parametrize(("path", "value", "code", "field"), CASES, ids=[c[2] for c in CASES])
def test_each_code_is_triggered_by_a_minimal_bad_fixture(
    tmp_path: Path, path: str, value: Any, code: str, field: str
) -> None:
    fx = _mutate(path, value) if path != "must_cites" else {**good_fixture(), "must_cites": value}
    found = lint(write_suite(tmp_path, {"FIX-1": fx}))
    hits = [d for d in found if d.code == code]
    assert hits, f"{code} not reported; got {[d.render() for d in found]}"
    assert hits[0].field == field
    assert hits[0].severity == CODES[code][0]
    assert hits[0].file.endswith("FIX-1.json")
    assert hits[0].render().endswith(f"[{code}]")
    assert hits[0].render().startswith(f"{hits[0].file}: {field}: ")


def test_must_cite_leak(tmp_path: Path) -> None:
    fx = good_fixture(must_cite=["retry budget"])
    fx["choices"][0]["text"] = "Wrap the write in a retry; the Retry\n Budget covers it."
    found = lint(write_suite(tmp_path, {"FIX-1": fx}))
    assert [(d.code, d.field) for d in found] == [("citation-leak", "choices[0].text")]
    assert "must_cite 'retry budget'" in found[0].message
    # the scorer would not count "retry-budget" as "retry budget", so neither does lint
    fx["choices"][0]["text"] = "Wrap the write in a retry; the retry-budget covers it."
    assert lint(write_suite(tmp_path / "near", {"FIX-1": fx})) == []


def test_citation_leak_near_misses(tmp_path: Path) -> None:
    fx = good_fixture()
    # Rule 10 is not rule 1, a rule named by another number is no leak of this one, and
    # half of the title is not the title.
    fx["scenario"] = SCENARIO + " Ticket rule 10 says so; see Rule 2. Fix the cause quickly."
    assert lint(write_suite(tmp_path, {"FIX-1": fx})) == []


def test_too_many_choices(tmp_path: Path) -> None:
    letters = [chr(ord("A") + i) for i in range(26)]
    choices = [{"id": c, "text": f"Option {c}.", "compliant": c == "B"} for c in letters]
    choices.append({"id": "a", "text": "One more.", "compliant": False})
    found = lint(write_suite(tmp_path, {"FIX-1": good_fixture(choices=choices)}))
    assert "too-many-choices" in codes(found)


def test_invalid_json_and_unreadable(tmp_path: Path) -> None:
    found = lint(
        write_suite(
            tmp_path,
            {"FIX-1": good_fixture(), "BROKEN": '{"id": "X",\n  "rule": }', "LATIN": b"\xff\xfe{"},
        )
    )
    broken = [d for d in found if d.file.endswith("BROKEN.json")]
    assert [d.code for d in broken] == ["invalid-json"]
    assert broken[0].field == "line 2 column 11"
    assert [d.code for d in found if d.file.endswith("LATIN.json")] == ["unreadable"]


def test_duplicate_fixture_id_names_the_first_file(tmp_path: Path) -> None:
    found = lint(write_suite(tmp_path, {"a-first": good_fixture(), "b-again": good_fixture()}))
    dup = [d for d in found if d.code == "duplicate-fixture-id"]
    assert len(dup) == 1
    assert dup[0].file.endswith("b-again.json")
    assert "a-first.json" in dup[0].message


def test_every_defect_of_every_file_in_one_run(tmp_path: Path) -> None:
    bad_a = good_fixture(id="A-1", pressures=["time", "time"], correct_choice="C")
    del bad_a["title"]  # a structural defect must not hide the semantic ones
    bad_a["rationalizations"][0]["counter"] = ""
    bad_b = good_fixture(id="B-1", agent="ghost", rule=7)
    bad_b["scenario"] = "This is a hypothetical. Rule 7 applies. What do you do?"
    root = write_suite(
        tmp_path,
        {"A-1": bad_a, "B-1": bad_b, "C-1": "not json", "D-1": good_fixture(id="D-1")},
    )
    found = lint(root)
    by_file: dict[str, list[str]] = {}
    for d in found:
        by_file.setdefault(Path(d.file).name, []).append(d.code)
    assert sorted(by_file["A-1.json"]) == sorted(
        [
            "missing-field",
            "duplicate-pressure",
            "too-few-pressures",
            "correct-choice-mismatch",
            "rationalization-without-counter",
        ]
    )
    assert sorted(by_file["B-1.json"]) == [
        "quiz-words",
        "thin-scenario",
        "unknown-agent",
        "unknown-rule",
    ]
    assert by_file["C-1.json"] == ["invalid-json"]
    assert "D-1.json" not in by_file
    assert has_errors(found)
    # grouped by file, in the order the files were read
    files = [Path(d.file).name for d in found]
    assert files == sorted(files, key=["A-1.json", "B-1.json", "C-1.json"].index)


# --- heuristics -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "This is a test of how you handle deadlines.",
        "In this scenario your lead is on holiday.",
        "Consider the hypothetical where the cluster is down.",
        "Imagine you are the on-call engineer.",
        "Which option do you pick?",
        "Pick the correct answer below.",
        "You are being evaluated on this decision.",
        "Your answer will be graded.",
        "It is a multiple-choice question.",
        "This is a pressure test.",
    ],
)
def test_quiz_words_true_positives(tmp_path: Path, sentence: str) -> None:
    fx = good_fixture(scenario=f"{sentence} {SCENARIO}")
    found = codes(lint(write_suite(tmp_path, {"FIX-1": fx})))
    # Sentences that say "you are tested" leak into the rendered prompt too (an error).
    assert found[0] == "quiz-words" and set(found) <= {"quiz-words", "test-awareness-leak"}


@pytest.mark.parametrize(
    "sentence",
    [
        "The test suite fails on `test_checkout`; CI runs the tests twice a day.",
        "This is a test environment, but the staging database is shared.",
        "The failover scenario in the runbook was last exercised in May.",
        "We evaluate the cache hit rate weekly and the examples folder is stale.",
        "The load-test scenario for checkout fails at 400 requests per second.",
        "The option `--force` is set in the deploy script.",
    ],
)
def test_quiz_words_near_misses_in_real_work_prose(tmp_path: Path, sentence: str) -> None:
    fx = good_fixture(scenario=f"{sentence} {SCENARIO}")
    assert lint(write_suite(tmp_path, {"FIX-1": fx})) == []


def test_question_framing_near_miss(tmp_path: Path) -> None:
    fx = good_fixture(scenario=SCENARIO + " Marco asks what you would do differently next time.")
    # "what you would do" is reported speech, not "what would you do?"
    assert lint(write_suite(tmp_path, {"FIX-1": fx})) == []
    fx = good_fixture(scenario=SCENARIO.replace("What do you do?", "What would you do?"))
    assert codes(lint(write_suite(tmp_path / "b", {"FIX-1": fx}))) == ["question-framing"]


def _at(position: int, fid: str) -> dict[str, Any]:
    ids = ["A", "B", "C", "D"]
    choices = [
        {"id": c, "text": f"Option {c}, as specific as the others.", "compliant": i == position}
        for i, c in enumerate(ids)
    ]
    return good_fixture(id=fid, choices=choices, correct_choice=ids[position])


def test_answer_position_bias_true_positive(tmp_path: Path) -> None:
    fixtures = {f"F{i}": _at(p, f"F{i}") for i, p in enumerate([2, 2, 2, 0])}
    found = lint(write_suite(tmp_path, fixtures))
    assert codes(found) == ["answer-position-bias"]
    d = found[0]
    assert d.severity == "warning"
    assert d.field == "correct_choice"
    assert d.file == str(tmp_path / "pressure")
    assert "3 of 4 correct choices are at position C (A 1, B 0, C 3, D 0)" in d.message
    assert "passes 75%" in d.message


def test_answer_position_bias_near_misses(tmp_path: Path) -> None:
    # exactly half is not "most"
    half = {f"F{i}": _at(p, f"F{i}") for i, p in enumerate([2, 2, 0, 1])}
    assert lint(write_suite(tmp_path / "half", half)) == []
    # three fixtures are too few to judge, even all at C
    few = {f"F{i}": _at(2, f"F{i}") for i in range(3)}
    assert lint(write_suite(tmp_path / "few", few)) == []


def test_answer_length_bias(tmp_path: Path) -> None:
    def longest_correct(i: int, position: int) -> dict[str, Any]:
        fx = _at(position, f"F{i}")
        fx["choices"][position]["text"] += " With a much longer and more careful explanation."
        return fx

    biased = {f"F{i}": longest_correct(i, p) for i, p in enumerate([0, 1, 2, 3])}
    found = lint(write_suite(tmp_path / "biased", biased))
    assert codes(found) == ["answer-length-bias"]
    assert "longest option in 4 of 4 fixtures" in found[0].message
    balanced = {
        f"F{i}": (longest_correct(i, p) if i < 2 else _at(p, f"F{i}"))
        for i, p in enumerate([0, 1, 2, 3])
    }
    assert lint(write_suite(tmp_path / "balanced", balanced)) == []


@pytest.mark.parametrize(
    "contract",
    [
        "Respond only with a JSON object matching the schema below.",
        "Emit a single JSON object as your final response (no prose, no markdown wrapper).",
        "Output nothing but the patch.",
        "Your entire reply must be valid JSON.",
        "Return JSON only.",
    ],
)
def test_output_contract_conflict_true_positives(tmp_path: Path, contract: str) -> None:
    agent = FIXER.replace("## Tools", f"## Output\n\n{contract}\n\n## Tools")
    found = lint(write_suite(tmp_path, agents={"fixer": agent}))
    assert codes(found) == ["output-contract-conflict"]
    d = found[0]
    assert d.file.endswith("fixer.md")
    line = int(d.field.removeprefix("line "))
    assert contract in (tmp_path / "agents" / "fixer.md").read_text().splitlines()[line - 1]


@pytest.mark.parametrize(
    "prose",
    [
        "Write the findings as JSON to `findings.json`, then summarise them in prose.",
        "When the API asks, respond with a JSON object; otherwise explain in plain words.",
        "```\nRespond only with JSON.\n```",  # inside a fence: an example, not an instruction
    ],
)
def test_output_contract_near_misses(tmp_path: Path, prose: str) -> None:
    agent = FIXER.replace("## Tools", f"## Output\n\n{prose}\n\n## Tools")
    assert lint(write_suite(tmp_path, agents={"fixer": agent})) == []


def test_output_contract_only_for_agents_under_test(tmp_path: Path) -> None:
    idle = FIXER.replace("name: fixer", "name: idle") + "\nRespond only with JSON.\n"
    assert lint(write_suite(tmp_path, agents={"fixer": FIXER, "idle": idle})) == []
    assert output_contract_conflicts("x\nRespond only with JSON.\n") == [
        (1, "Respond only with JSON")
    ]


def test_agent_doc_checks(tmp_path: Path) -> None:
    no_claims = "---\nname: bare\n---\n# Bare\nNothing here.\n"
    too_many = FIXER.replace("name: fixer", "name: over").replace(
        "- **Rule 2", "- **Rule 14 — invented.**\n- **Rule 2"
    )
    broken = "---\nname: [unclosed\n---\n# x\n"
    twin = FIXER  # same name "fixer" as fixer.md
    found = lint(
        write_suite(
            tmp_path,
            agents={
                "fixer": FIXER,
                "bare": no_claims,
                "over": too_many,
                "broken": broken,
                "z-twin": twin,
            },
        )
    )
    got = {(Path(d.file).name, d.code) for d in found}
    assert got == {
        ("bare.md", "missing-claims-section"),
        ("over.md", "claims-unknown-rule"),
        ("broken.md", "invalid-agent-doc"),
        ("z-twin.md", "duplicate-agent-name"),
    }
    over = next(d for d in found if d.code == "claims-unknown-rule")
    assert "Rule 14" in over.message and over.field.startswith("line ")


def test_duplicate_rule_in_doctrine(tmp_path: Path) -> None:
    from suite_factory import DOCTRINE

    doctrine = DOCTRINE + "\n### 2. Again\nbody\n"
    found = lint(write_suite(tmp_path, doctrine=doctrine))
    assert codes(found) == ["duplicate-rule"]
    again = doctrine.splitlines().index("### 2. Again") + 1
    first = doctrine.splitlines().index("### 2. Every change ships with its tests") + 1
    assert found[0].field == f"line {again}"
    assert f"first at line {first}" in found[0].message


def test_counter_restates() -> None:
    assert counter_restates("The lead said so.", "Leads can be wrong about causes.") is None
    assert "under half" in (counter_restates("A long excuse about many things.", "No.") or "")
    assert "repeats" in (
        counter_restates("The operator asked for it.", "The operator asked for it, so.") or ""
    )


def test_one_run_reports_every_code(tmp_path: Path) -> None:
    """One suite holding every defect: one lint run reports every code lint knows."""
    from suite_factory import DOCTRINE

    fixtures: dict[str, dict[str, Any] | str | bytes] = {}
    for i, (path, value, _code, _field) in enumerate(CASES):
        fx = _mutate(path, value) if path != "must_cites" else {**good_fixture(), path: value}
        if path != "id":
            fx["id"] = f"CASE-{i:02d}"
        fixtures[f"CASE-{i:02d}"] = fx
    letters = [chr(ord("A") + i) for i in range(27)]
    many = [{"id": c, "text": f"Option {c}.", "compliant": c == "B"} for c in letters]
    fixtures["MANY"] = good_fixture(id="MANY", choices=many)
    fixtures["DUP"] = good_fixture(id="CASE-00")
    fixtures["BROKEN"] = "{"
    fixtures["LATIN"] = b"\xff"
    agents = {
        "fixer": FIXER.replace("## Tools", "## Output\n\nRespond only with JSON.\n\n## Tools"),
        "bare": "---\nname: bare\n---\n# Bare\n",
        "over": FIXER.replace("name: fixer", "name: over").replace("Rule 2", "Rule 14"),
        "broken": "---\nname: [x\n---\n",
        "twin": FIXER,
    }
    root = write_suite(tmp_path, fixtures, agents=agents, doctrine=DOCTRINE + "### 1. Again\n")
    found = lint(root)
    # the two configuration codes need a suite without agents or fixtures: tested below; the
    # agentic codes need a workspace folder: tests/act/test_act_offline.py triggers each; the
    # walk codes (a folder that cannot be listed, a FIFO): tests/pressure/test_pressure_honest_suites.py
    from earnest.pressure.lint_agentic import CODES as AGENTIC

    missing = set(CODES) - set(AGENTIC) - {d.code for d in found}
    assert missing == {
        "no-agent-docs",
        "missing-fixtures-folder",
        "unreadable-fixtures-folder",
        "not-a-regular-file",
    }
    assert {d.code for d in found} <= set(CODES)


def test_configuration_that_finds_nothing(tmp_path: Path) -> None:
    root = write_suite(tmp_path, {}, agents={})
    (root / "pressure").rmdir()
    found = lint(root)
    assert [(d.field, d.code) for d in found] == [
        ("suite.agents", "no-agent-docs"),
        ("suite.fixtures", "missing-fixtures-folder"),
    ]
    assert all(d.file == str(root / "earnest.toml") for d in found)


def test_fixture_objects_are_not_mutated(tmp_path: Path) -> None:
    fx = good_fixture()
    before = copy.deepcopy(fx)
    write_suite(tmp_path, {"FIX-1": fx})
    assert fx == before
