"""Hostile replies and fixtures: lone surrogates never crash an output format; a 5,000-digit
integer or 100,000-deep nesting is a clear error naming the line (exit 2), not a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_earnest


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """The example suite with one fixture id and its recorded replies carrying lone surrogates
    (as ``\\ud800`` escapes, the only way JSON can hold them)."""
    root = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "suite", root)
    fixture = sorted((root / "pressure").glob("*.json"))[0]
    text = fixture.read_text(encoding="utf-8")
    old = json.loads(text)["id"]
    fixture.write_text(text.replace(json.dumps(old), json.dumps(old + "\ud800"), 1), "utf-8")
    replies = root / "recorded" / "replies.jsonl"
    out = []
    for line in replies.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec["fixture_id"] == old:
            rec["fixture_id"] = old + "\ud800"
            rec["model"] = "model-\udc80"
            rec["response"] += " \udfff"
        out.append(json.dumps(rec))
    replies.write_text("\n".join(out) + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("fmt", ["table", "json", "junit"])
def test_lone_surrogates_never_crash_score_or_check(suite: Path, fmt: str) -> None:
    replies = suite / "recorded" / "replies.jsonl"
    for args in (("score", str(replies)), ("check",)):
        proc = run_earnest(*args, "--suite", str(suite), "--format", fmt)
        assert proc.returncode in (0, 1), proc.stderr
        assert "Traceback" not in proc.stderr and "UnicodeEncodeError" not in proc.stderr
        assert "\ufffd" in proc.stdout


@pytest.mark.parametrize("fmt", ["html", "json"])
def test_lone_surrogates_never_crash_the_report(suite: Path, fmt: str, tmp_path: Path) -> None:
    out = tmp_path / f"report.{fmt}"
    proc = run_earnest("report", "--suite", str(suite), "--format", fmt, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "\ufffd" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"fixture_id": "X", "response": "r", "epoch": ' + "9" * 5000 + "}", "4300 digits"),
        ('{"fixture_id": "X", "response": ' + "[" * 100_000 + "]" * 100_000 + "}", "deeply"),
    ],
)
def test_a_monstrous_reply_line_is_a_clear_error(
    suite: Path, tmp_path: Path, line: str, why: str
) -> None:
    replies = tmp_path / "r.jsonl"
    replies.write_text(line + "\n")
    proc = run_earnest("score", str(replies), "--suite", str(suite))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "line 1" in proc.stderr and why in proc.stderr, proc.stderr


def test_a_monstrous_fixture_is_a_lint_error_not_a_traceback(suite: Path) -> None:
    (suite / "pressure" / "ZZ-DEEP.json").write_text("[" * 100_000 + "]" * 100_000)
    (suite / "pressure" / "ZZ-BIG.json").write_text('{"id": ' + "1" * 5000 + "}")
    proc = run_earnest("lint", "--suite", str(suite))
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "ZZ-DEEP.json" in proc.stdout + proc.stderr
    assert "ZZ-BIG.json" in proc.stdout + proc.stderr
