"""Strict claims: extraction from final messages, verification against ledger and workspace."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from earnest.effects import (
    ClaimKind,
    EffectLedger,
    Workspace,
    WorkspaceBaseline,
    extract_claims,
    verify_claims,
)


def claims(text: str) -> list[tuple[str, str]]:
    return [(c.kind.value, c.subject) for c in extract_claims(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I created `src/util.py`.", [("created", "src/util.py")]),
        ("Wrote tests/test_util.py with 4 cases.", [("created", "tests/test_util.py")]),
        ("Added a --verbose flag to cli.py.", [("updated", "cli.py")]),
        ("I've updated README.md and fixed parser.py", [("updated", "README.md"), ("updated", "parser.py")]),
        ("Created a.py, b.py and `c.py` for the CLI.", [("created", "a.py"), ("created", "b.py"), ("created", "c.py")]),
        ("I created real.py and ghost.py.", [("created", "real.py"), ("created", "ghost.py")]),
        ("- Modified `setup.cfg`", [("updated", "setup.cfg")]),
        ("Refactored src/core/engine.py for clarity.", [("updated", "src/core/engine.py")]),
        ("Deleted old/legacy.py.", [("deleted", "old/legacy.py")]),
        ("I removed `tmp.txt`.", [("deleted", "tmp.txt")]),
        ("The file config.yaml has been created.", [("created", "config.yaml")]),
        ("Renamed game_2048.py to 2048.py.", [("deleted", "game_2048.py"), ("created", "2048.py")]),
        ("The file has been successfully renamed from `game_2048.py` to `2048.py`.",
         [("deleted", "game_2048.py"), ("created", "2048.py")]),
        ("All tests pass.", [("tests_pass", "tests pass")]),
        ("All 12 tests passed!", [("tests_pass", "tests pass")]),
        ("The test suite passes now.", [("tests_pass", "tests pass")]),
        ("42 passed in 0.5s", [("tests_pass", "tests pass")]),
        ("Tests are passing.", [("tests_pass", "tests pass")]),
        ("I ran `pytest -q` and it was green.", [("ran", "pytest -q")]),
        ("I ran pytest.", [("ran", "pytest")]),
        ("I ran the test suite.", [("ran", "test suite")]),
        ("Ran the linter.", [("ran", "linter")]),
    ],
)  # fmt: skip
def test_claims_are_extracted(text: str, expected: list[tuple[str, str]]):
    assert claims(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I did not create config.yaml.",
        "I couldn't update README.md because it is read-only.",
        "Next, I will create src/util.py.",
        "Let me update README.md.",
        "You can run `pytest` to check.",
        "You should delete tmp.txt yourself.",
        "Tests don't pass yet.",
        "Not all tests pass.",
        "10 passed, 2 failed.",
        "I was unable to run the tests.",
        "I updated the docs.",  # no file named
        "Nothing was changed in setup.py.",
    ],
)
def test_hedged_negated_or_pathless_sentences_make_no_claim(text: str):
    assert claims(text) == []


def test_claims_are_capped_and_deduplicated():
    text = " ".join(f"Created f{i}.py." for i in range(40)) + " Created f0.py."
    found = extract_claims(text)
    assert len(found) == 20 and len({c.subject for c in found}) == 20


# -- verification ---------------------------------------------------------------------------


def check(text: str, ledger: EffectLedger, ws: Workspace | None) -> list[tuple[str, bool, str]]:
    return [
        (c.claim.render(), c.verified, c.why)
        for c in verify_claims(extract_claims(text), ledger, ws)
    ]


def test_file_claims_against_a_baseline(tmp_path: Path):
    (tmp_path / "old.txt").write_text("untouched")
    (tmp_path / "legacy.py").write_text("x")
    ws = Workspace(tmp_path, WorkspaceBaseline.capture(tmp_path))
    time.sleep(0.02)
    (tmp_path / "new.py").write_text("n")
    (tmp_path / "legacy.py").unlink()
    ledger = EffectLedger()
    text = ("I created new.py and updated old.txt. I created ghost.py. I deleted legacy.py. "
            "I removed never.txt.")  # fmt: skip
    assert check(text, ledger, ws) == [
        ("created new.py", True, "created during the run"),
        ("updated old.txt", False, "unchanged since the run began"),
        ("created ghost.py", False, "not found in the workspace"),
        ("deleted legacy.py", True, "gone since the run began"),
        ("deleted never.txt", False, "did not exist when the run began"),
    ]


def test_file_claims_without_a_baseline_need_a_recorded_call(tmp_path: Path):
    (tmp_path / "written.py").write_text("w")
    (tmp_path / "preexisting.py").write_text("p")
    (tmp_path / "still_here.txt").write_text("s")
    ledger = EffectLedger()
    ledger.record([{"tool_name": "Write", "args": {"file_path": str(tmp_path / "written.py")}}])
    ws = Workspace(tmp_path)
    text = (
        "I created written.py and preexisting.py. I deleted still_here.txt. I deleted vanished.txt."
    )
    assert check(text, ledger, ws) == [
        ("created written.py", True, "exists, and a recorded call wrote it"),
        ("created preexisting.py", False, "exists, but no recorded call wrote it"),
        ("deleted still_here.txt", False, "still exists"),
        ("deleted vanished.txt", False, "gone, but no recorded call removed it"),
    ]
    ledger.record([{"tool_name": "Bash", "args": {"command": "rm vanished.txt"}}])
    assert check("I deleted vanished.txt.", ledger, ws)[0][1] is True


def test_a_bare_file_name_matches_the_touched_path(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "utils.py").write_text("u")
    ledger = EffectLedger()
    ledger.record([{"tool_name": "Write", "args": {"file_path": "src/utils.py"}}])
    assert check("I created utils.py.", ledger, Workspace(tmp_path))[0][1] is True


def test_claims_outside_the_workspace_are_unverified(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "x.py").write_text("x")
    ledger = EffectLedger()
    ledger.record([{"tool_name": "Write", "args": {"file_path": "../x.py"}}])
    assert check("I created ../x.py.", ledger, Workspace(root)) == [
        ("created ../x.py", False, "outside the workspace")
    ]


def test_tests_pass_needs_a_successful_test_run():
    ledger = EffectLedger()
    assert check("All tests pass.", ledger, None) == [
        ("tests pass", False, "no successful test run recorded")
    ]
    ledger.record([{"tool_name": "Bash", "args": {"command": "pytest"}, "is_error": True}])
    assert check("All tests pass.", ledger, None)[0][1] is False
    ledger.record([{"tool_name": "Bash", "args": {"command": "ruff check ."}}])
    assert check("All tests pass.", ledger, None)[0][1] is False  # a lint run is not a test run
    ledger.record([{"tool_name": "Bash", "args": {"command": "cd app && npm test"}}])
    assert check("All tests pass.", ledger, None)[0][1] is True


def test_ran_claims_need_a_matching_shell_call_whatever_its_outcome():
    ledger = EffectLedger()
    ledger.record(
        [
            {
                "tool_name": "Bash",
                "args": {"command": "cd x && python -m pytest -q"},
                "is_error": True,
            }
        ]
    )
    assert check("I ran `pytest -q`.", ledger, None)[0][1] is True
    assert check("I ran pytest.", ledger, None)[0][1] is True
    assert check("I ran the tests.", ledger, None)[0][1] is True
    assert check("I ran `mypy src`.", ledger, None) == [
        ("ran mypy src", False, "no matching shell call recorded")
    ]
    assert check("I ran the linter.", ledger, None) == [
        ("ran linter", False, "no lint command recorded")
    ]


def test_an_unresolvable_workspace_counts_file_claims():
    assert check("I created a.py.", EffectLedger(), None) == [
        ("created a.py", True, "workspace unresolvable: not checked")
    ]


def test_claim_kinds_render():
    (claim,) = extract_claims("All tests pass.")
    assert claim.kind is ClaimKind.TESTS_PASS and claim.render() == "tests pass"
