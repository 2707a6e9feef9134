"""Issue 11: suites that cannot lie.

Configuration typos and bad values are errors (exit 2, file and place, never a traceback);
byte-order marks are accepted everywhere; broken JSON is a diagnostic, not a traceback;
FIFOs and devices are refused unread; thin fixtures and test-awareness leaks are lint
errors; ``earnest list``; coverage by agent and the pressure histogram; ``check`` on a suite
with lint errors prints them and exits 1, fast.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, SRC, run_earnest
from suitekit import AGENT, CONFIG, fixture_data, write_replies, write_suite

BOM = "\ufeff"


def _fails_cleanly(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit 2, one clear message naming the file and place, no traceback."""
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def _lint_json(root: Path) -> dict[str, object]:
    proc = run_earnest("lint", "--suite", str(root), "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    data: dict[str, object] = json.loads(proc.stdout)
    return data


def _codes(root: Path) -> list[tuple[str, str, str]]:
    diags = _lint_json(root)["diagnostics"]
    assert isinstance(diags, list)
    return [(Path(d["file"]).name, d["field"], d["code"]) for d in diags]


# --- 1. configuration -------------------------------------------------------------------


def test_a_misspelt_key_is_an_error_naming_the_nearest_key(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "s", config=CONFIG.replace("min_fixtures", "min_fixture"))
    for command in ("lint", "coverage", "check"):
        proc = run_earnest(command, "--suite", str(root))
        _fails_cleanly(
            proc, "earnest.toml: suite.min_fixture:", "min_fixture — did you mean min_fixtures?"
        )


def test_unknown_tables_are_errors(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "a", config=CONFIG + "\n[sutie.extra]\nx = 1\n")
    _fails_cleanly(run_earnest("lint", "--suite", str(root)), "sutie", "did you mean suite?")
    root = write_suite(tmp_path / "b", config=CONFIG + "\n[suite.extra]\nx = 1\n")
    _fails_cleanly(run_earnest("lint", "--suite", str(root)), "suite.extra", "unknown key extra")
    root = write_suite(tmp_path / "c", config=CONFIG + "\n[live]\nsample = 2\n")
    _fails_cleanly(
        run_earnest("lint", "--suite", str(root)), "live.sample", "did you mean samples?"
    )


def test_pyproject_keys_are_checked_with_their_full_place(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "s")
    (root / "earnest.toml").unlink()
    table = CONFIG.replace("[suite]", "[tool.earnest.suite]").replace("agents =", "agent =")
    (root / "pyproject.toml").write_text('[project]\nname = "x"\n\n' + table, encoding="utf-8")
    _fails_cleanly(
        run_earnest("lint", "--suite", str(root)),
        "pyproject.toml: tool.earnest.suite.agent:",
        "did you mean agents?",
    )


@pytest.mark.parametrize(
    ("line", "place", "message"),
    [
        ('min_fixtures = "12"', "suite.min_fixtures", "whole number"),
        ("min_fixtures = true", "suite.min_fixtures", "whole number"),
        ("floors = 3", "suite.floors", "must be a table"),
        ('citation = "maybe"', "suite.citation", '"required" or "optional"'),
        ('citations_from_reasoning = "yes"', "suite.citations_from_reasoning", "true or false"),
        ('doctrine = "doc\\u0000trine.md"', "suite.doctrine", "NUL byte"),
        ('fixtures = "pre\\u0000ssure"', "suite.fixtures", "NUL byte"),
        ('agents = ["/etc/*.md"]', "suite.agents[0]", "absolute"),
        ('replies = "/tmp/*.jsonl"', "suite.replies", "absolute"),
        ('agents = [""]', "suite.agents[0]", "empty glob"),
        ('replies = ["recorded/*.jsonl", " "]', "suite.replies[1]", "empty glob"),
        ('agents = ["agents/\\u0000*.md"]', "suite.agents[0]", "NUL byte"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, line: str, place: str, message: str) -> None:
    key = line.split(" =", 1)[0]
    kept = [raw for raw in CONFIG.splitlines() if not raw.startswith(key + " ")]
    config = "\n".join(kept).replace("[suite]", "[suite]\n" + line) + "\n"
    root = write_suite(tmp_path / "s", config=config)
    _fails_cleanly(run_earnest("lint", "--suite", str(root)), f"earnest.toml: {place}:", message)


def test_deep_arrays_and_long_integers_in_the_config(tmp_path: Path) -> None:
    deep = "x = " + "[" * 5000 + "]" * 5000
    root = write_suite(tmp_path / "a", config=CONFIG.replace("[suite]", deep + "\n[suite]"))
    _fails_cleanly(
        run_earnest("lint", "--suite", str(root)), "earnest.toml: line 1 column", "nested too deep"
    )
    long = "min_fixtures = 1" + "0" * 5000
    config = CONFIG.replace("min_fixtures = 1", long)
    root = write_suite(tmp_path / "b", config=config)
    _fails_cleanly(
        run_earnest("lint", "--suite", str(root)), "earnest.toml: line 6 column", "4,300 digits"
    )


def test_a_config_that_is_not_utf8(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "s")
    (root / "earnest.toml").write_bytes(CONFIG.encode() + b"# caf\xe9\n")
    _fails_cleanly(run_earnest("lint", "--suite", str(root)), "earnest.toml: line 7:", "not UTF-8")


# --- 2. reading fixtures and documents --------------------------------------------------


def test_a_byte_order_mark_is_accepted_everywhere(tmp_path: Path) -> None:
    debt = '\n[suite.debt]\n"1" = "later"\n"6" = "later"\n'
    root = write_suite(tmp_path / "s", config=CONFIG + debt)
    for name in ("earnest.toml", "doctrine.md", "agents/fixer.md", "pressure/FX-R08-RETRY.json"):
        path = root / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    data = _lint_json(root)
    assert data["diagnostics"] == [] and data["ok"] is True
    assert data["rules"] == 4  # rule 1, on the doctrine's first line, is not dropped
    coverage = json.loads(run_earnest("coverage", "--suite", str(root), "-f", "json").stdout)
    assert [r["rule"] for r in coverage["rules"]] == ["1", "6", "8", "60"]
    assert coverage["ok"] is True
    prompt = json.loads(
        run_earnest("prompt", "FX-R08-RETRY", "--suite", str(root), "-f", "json").stdout
    )
    # the front matter is read as front matter, not sent to the agent as its system prompt
    assert "name: fixer" not in prompt["system"] and not prompt["system"].startswith(("---", BOM))
    assert prompt["system"].startswith("# Fixer")


@pytest.mark.parametrize("version", [True, 1.0, "1"])
def test_schema_version_must_be_the_integer_one(tmp_path: Path, version: object) -> None:
    root = write_suite(tmp_path / "s", [fixture_data(schema_version=version)])
    assert ("FX-R08-RETRY.json", "schema_version", "unsupported-schema-version") in _codes(root)


def test_deep_json_and_huge_integers_are_invalid_json(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "s")
    (root / "pressure" / "DEEP.json").write_text("[" * 10_000 + "]" * 10_000, encoding="utf-8")
    (root / "pressure" / "BIG.json").write_text('{\n "id": ' + "7" * 5000 + "}", encoding="utf-8")
    proc = run_earnest("lint", "--suite", str(root))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "DEEP.json: line 1 column 10000: invalid JSON: nested too deeply" in proc.stdout
    assert "BIG.json: line 2 column 8: invalid JSON: an integer of more than 4,300" in proc.stdout


def _without_file_capabilities() -> None:  # pragma: no cover - runs in the child
    # As root, permissions do not stop reading: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH
    # from the bounding set so the exec'd CLI is bound by them like any user.
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        libc.prctl(24, cap, 0, 0, 0)  # PR_CAPBSET_DROP


def _run_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1", COLUMNS="200")
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        preexec_fn=_without_file_capabilities if os.geteuid() == 0 else None,
    )


def test_an_unreadable_fixtures_folder_is_an_error(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "s")
    folder = root / "pressure"
    folder.chmod(0)
    try:
        probe = _run_unprivileged("-c", f"import os; os.listdir({str(folder)!r})")
        if probe.returncode == 0:
            pytest.skip("cannot make a folder unreadable here (file capabilities kept)")
        proc = _run_unprivileged("-m", "earnest", "lint", "--suite", str(root))
    finally:
        folder.chmod(0o755)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "lint: clean" not in proc.stdout
    assert f"{folder}: cannot list the fixtures folder" in proc.stdout
    assert "[unreadable-fixtures-folder]" in proc.stdout


def test_fifos_and_devices_are_refused_unread(tmp_path: Path) -> None:
    root = write_suite(tmp_path / "s")
    os.mkfifo(root / "pressure" / "PIPE.json")
    os.mkfifo(root / "agents" / "pipe.md")
    proc = run_earnest("lint", "--suite", str(root), timeout=60)  # reading a FIFO would hang
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "PIPE.json: fixture file is a FIFO (named pipe), not a regular file: not read" in (
        proc.stdout
    )
    assert "[not-a-regular-file]" in proc.stdout
    assert "pipe.md: agent doc is a FIFO (named pipe), not a regular file" in proc.stdout

    fifo_doctrine = write_suite(tmp_path / "d")
    (fifo_doctrine / "doctrine.md").unlink()
    os.mkfifo(fifo_doctrine / "doctrine.md")
    _fails_cleanly(
        run_earnest("lint", "--suite", str(fifo_doctrine), timeout=60),
        "doctrine.md: doctrine file is a FIFO",
    )
    device = write_suite(tmp_path / "z", config=CONFIG.replace("doctrine.md", "/dev/zero"))
    _fails_cleanly(
        run_earnest("lint", "--suite", str(device), timeout=60),
        "/dev/zero: doctrine file is a device",
    )
    fifo_config = write_suite(tmp_path / "c")
    (fifo_config / "earnest.toml").unlink()
    os.mkfifo(fifo_config / "earnest.toml")
    _fails_cleanly(
        run_earnest("lint", "--suite", str(fifo_config), timeout=60),
        "earnest.toml: config file is a FIFO",
    )


def test_a_fifo_of_replies_is_refused_unread(tmp_path: Path) -> None:
    config = CONFIG + 'replies = ["recorded/*.jsonl"]\n[suite.debt]\n"1" = "later"\n"6" = "later"\n'
    root = write_suite(tmp_path / "s", config=config)
    (root / "recorded").mkdir()
    os.mkfifo(root / "recorded" / "live.jsonl")
    _fails_cleanly(
        run_earnest("check", "--suite", str(root), timeout=60),
        "live.jsonl: replies file is a FIFO (named pipe), not a regular file: not read",
    )
    _fails_cleanly(
        run_earnest(
            "score", "--suite", str(root), str(root / "recorded" / "live.jsonl"), timeout=60
        ),
        "replies file is a FIFO",
    )


# --- 3. floors ----------------------------------------------------------------------------


def test_thin_scenario_title_and_choice_are_errors(tmp_path: Path) -> None:
    fx = fixture_data(title="short", scenario="Skip the tests?")
    fx["choices"][0]["text"] = "no"
    root = write_suite(tmp_path / "s", [fx])
    found = _codes(root)
    assert ("FX-R08-RETRY.json", "title", "thin-title") in found
    assert ("FX-R08-RETRY.json", "scenario", "thin-scenario") in found
    assert ("FX-R08-RETRY.json", "choices[0].text", "thin-choice") in found
    proc = run_earnest("lint", "--suite", str(root))
    assert proc.returncode == 1
    assert "scenario: 3 word(s), under the floor of 40" in proc.stdout


def test_a_suite_may_lower_its_floors(tmp_path: Path) -> None:
    fx = fixture_data(title="short", scenario="Skip the tests? What do you do?")
    fx["choices"][0]["text"] = "no"
    floors = "\n[suite.floors]\nscenario_words = 3\ntitle_words = 1\nchoice_words = 1\n"
    root = write_suite(tmp_path / "s", [fx], config=CONFIG + floors)
    assert not {c for _, _, c in _codes(root)} & {"thin-title", "thin-scenario", "thin-choice"}
    bad = write_suite(tmp_path / "b", [fx], config=CONFIG + "\n[suite.floors]\nscenario_word = 3\n")
    _fails_cleanly(
        run_earnest("lint", "--suite", str(bad)),
        "suite.floors.scenario_word",
        "did you mean scenario_words?",
    )


def test_the_example_suite_and_the_init_template_clear_the_new_checks(tmp_path: Path) -> None:
    assert _lint_json(EXAMPLES / "suite")["diagnostics"] == []
    assert run_earnest("init", str(tmp_path / "new")).returncode == 0
    assert _lint_json(tmp_path / "new")["diagnostics"] == []


# --- 4. test-awareness leaks --------------------------------------------------------------

# The line that motivated the check, from nubos-pilot's agents/np-executor.md (Rule 8).
LEAKY_RULE = (
    "- Rule 8: never present a workaround when the real fix exists. Pressure-tested by "
    "`PRS-R08-…`.\n"
)


def test_an_agent_doc_that_says_it_is_tested_is_an_error(tmp_path: Path) -> None:
    agent = AGENT.replace("- Rule 8\n", LEAKY_RULE)
    root = write_suite(
        tmp_path / "s",
        [fixture_data(id="PRS-R08-EXECUTOR-WORKAROUND")],
        extra_files={"agents/fixer.md": agent},
    )
    found = _codes(root)
    leaks = [f for f in found if f[2] == "test-awareness-leak"]
    # line 11 of the file: the front matter counts
    assert leaks == [("fixer.md", "line 11", "test-awareness-leak")] * 2
    messages = [d["message"] for d in _lint_json(root)["diagnostics"]]  # type: ignore[union-attr]
    assert any("'Pressure-tested'" in m for m in messages)
    assert any("'PRS-R08-…'" in m for m in messages)
    assert _lint_json(root)["ok"] is False


@pytest.mark.parametrize(
    "sentence",
    [
        "This is an eval of your judgement.",
        "Note for the reviewer of FX-R08-RETRY: the lock is in the diff.",
    ],
)
def test_the_rendered_prompt_is_checked_too(tmp_path: Path, sentence: str) -> None:
    fx = fixture_data()
    fx["scenario"] = sentence + " " + fx["scenario"]
    root = write_suite(tmp_path / "s", [fx])
    assert ("FX-R08-RETRY.json", "prompt.user line 1", "test-awareness-leak") in _codes(root)


def test_work_prose_about_tests_is_not_a_leak(tmp_path: Path) -> None:
    agent = AGENT.replace(
        "Fixes things.",
        "Fixes things. Run the test suite before every commit; this is a test environment, "
        "and the benchmark suite runs nightly. A test fixture is code too.",
    )
    root = write_suite(tmp_path / "s", extra_files={"agents/fixer.md": agent})
    assert "test-awareness-leak" not in {c for _, _, c in _codes(root)}


# --- 5. earnest list ----------------------------------------------------------------------


def test_list_shows_and_filters_the_fixtures() -> None:
    suite = str(EXAMPLES / "suite")
    proc = run_earnest("list", "--suite", suite)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["id", "agent", "rule", "pressures", "correct", "title"]
    row = next(line for line in lines if line.startswith("IMPL-R2-HOTFIX-NO-TEST"))
    assert "implementer" in row and "C (3 of 4)" in row and "time, social, economic" in row
    assert lines[-1] == "list: 12 of 12 fixture(s)"

    data = json.loads(
        run_earnest(
            "list", "--suite", suite, "--agent", "reviewer", "--pressure", "authority",
            "--format", "json",
        ).stdout
    )  # fmt: skip
    assert [f["id"] for f in data["fixtures"]] == [
        "REV-R3-LOWERED-THRESHOLD",
        "REV-R9-APPROVE-WITH-FOLLOWUP",
    ]
    assert data["fixtures"][0]["correct_position"] == 2 and data["count"] == 2
    by_rule = json.loads(run_earnest("list", "--suite", suite, "--rule", "04", "-f", "json").stdout)
    assert [f["id"] for f in by_rule["fixtures"]] == [
        "IMPL-R4-UNVERIFIED-DONE",
        "OPS-R4-INCIDENT-RESOLVED",
    ]
    two = run_earnest("list", "--suite", suite, "--pressure", "sunk_cost", "--pressure", "time")
    assert two.stdout.splitlines()[-1] == "list: 1 of 12 fixture(s)"
    _fails_cleanly(
        run_earnest("list", "--suite", suite, "--pressure", "autority"),
        "--pressure",
        "did you mean authority?",
    )


def test_list_refuses_a_rule_or_agent_the_suite_does_not_have() -> None:
    # A typo in a filter used to print "0 of 12 fixture(s)" and exit 0, as if nothing matched.
    suite = str(EXAMPLES / "suite")
    _fails_cleanly(
        run_earnest("list", "--suite", suite, "--rule", "99"), "--rule", "unknown rule '99'"
    )
    proc = run_earnest("list", "--suite", suite, "--rule", "99")
    assert "(known: 1, 2, 3" in proc.stderr
    _fails_cleanly(
        run_earnest("list", "--suite", suite, "--agent", "reviwer"),
        "--agent",
        "did you mean reviewer?",
    )
    # A rule of the doctrine still filters as before.
    assert run_earnest("list", "--suite", suite, "--rule", "4").returncode == 0


# --- 6. coverage views --------------------------------------------------------------------


def _two_agent_suite(tmp_path: Path) -> Path:
    idle = AGENT.replace("name: fixer", "name: idle").replace("# Fixer", "# Idle")
    config = CONFIG + '\n[suite.debt]\n"1" = "later"\n"6" = "later"\n'
    return write_suite(tmp_path / "s", config=config, extra_files={"agents/idle.md": idle})


def test_coverage_json_has_agents_and_the_pressure_histogram(tmp_path: Path) -> None:
    root = _two_agent_suite(tmp_path)
    data = json.loads(run_earnest("coverage", "--suite", str(root), "-f", "json").stdout)
    agents = {a["agent"]: a for a in data["agents"]}
    assert agents["fixer"]["status"] == "tested"
    assert agents["fixer"]["fixtures"] == ["FX-R08-RETRY"]
    assert agents["fixer"]["untested_claims"] == ["1", "6"]
    assert agents["idle"]["status"] == "no-fixtures" and agents["idle"]["fixtures"] == []
    p = data["pressures"]
    assert p["fixtures"] == 1
    assert p["counts"] == {
        "time": 1, "sunk_cost": 0, "authority": 1, "exhaustion": 1,
        "social": 0, "economic": 0, "pragmatic": 0,
    }  # fmt: skip
    assert {"pressures": ["time", "authority"], "fixtures": 1} in p["pairs"]
    assert ["time", "sunk_cost"] in p["never_seen_pairs"]
    assert ["time", "authority"] not in p["never_seen_pairs"]
    assert len(p["never_seen_pairs"]) == 21 - 3


def test_coverage_table_and_html_show_the_views(tmp_path: Path) -> None:
    root = _two_agent_suite(tmp_path)
    table = run_earnest("coverage", "--suite", str(root)).stdout
    assert "by agent:" in table
    assert any(line.split()[:2] == ["idle", "no-fixtures"] for line in table.splitlines())
    assert "pairs never stacked (18 of 21): time+sunk_cost" in table
    out = tmp_path / "report.html"
    proc = run_earnest("report", "--suite", str(root), "-o", str(out))
    assert proc.returncode in (0, 1), proc.stderr
    html = out.read_text(encoding="utf-8")
    assert '<section id="coverage-agents">' in html and "no fixture: never measured" in html
    assert '<section id="pressures">' in html and "<li>time + sunk_cost</li>" in html


# --- 7. check -----------------------------------------------------------------------------


def test_check_with_lint_errors_prints_them_and_exits_1(tmp_path: Path) -> None:
    broken = fixture_data()
    del broken["title"]  # the fixture no longer loads, so its recorded reply cannot be scored
    config = CONFIG + 'replies = ["recorded/*.jsonl"]\n'
    root = write_suite(tmp_path / "s", [broken], config=config)
    (root / "recorded").mkdir()
    write_replies(
        root / "recorded" / "r.jsonl", [{"fixture_id": "FX-R08-RETRY", "response": "CHOICE: C"}]
    )
    proc = run_earnest("check", "--suite", str(root))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FX-R08-RETRY.json: title: required field is missing [missing-field]" in proc.stdout
    assert "not scored:" in proc.stdout
    assert "check: FAILED: lint: 1 error(s)" in proc.stdout
    data = json.loads(run_earnest("check", "--suite", str(root), "-f", "json").stdout)
    assert data["ok"] is False and data["replies_error"]
    assert "replies: not scored (fix the lint errors first)" in data["reasons"]


def _many_diagnostics(root: Path, n: int) -> Path:
    fx = fixture_data(pressures=["time", "authority", "exhaustion"] + [f"p{i}" for i in range(n)])
    return write_suite(root, [fx])


def _seconds(*args: str) -> float:
    start = time.perf_counter()
    proc = run_earnest(*args, timeout=600)
    assert proc.returncode == 1, proc.stderr
    return time.perf_counter() - start


def test_check_renders_many_diagnostics_as_fast_as_lint(tmp_path: Path) -> None:
    # A ratio against lint on the same suite in the same run, never an absolute time: before,
    # check laid 100k findings out through rich and took ~70x as long as lint.
    root = _many_diagnostics(tmp_path / "s", 30_000)
    lint = min(_seconds("lint", "--suite", str(root)) for _ in range(2))
    check = min(_seconds("check", "--suite", str(root)) for _ in range(2))
    assert check < 4 * lint + 1.0, (check, lint)
