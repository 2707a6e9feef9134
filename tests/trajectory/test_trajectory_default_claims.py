"""Claims are checked by default: on the project's real transcript corpus the default blocks
exactly what ``--strict-claims`` blocked before it became the default — every downgrade of
``--no-strict-claims`` plus two: the real Claude Code session that said "31 passed" over a
run that printed 31/35 passed, 4 failed, and the real Copilot CLI run (tests/realcli, scenario
j) that said "all tests pass" over a unittest run piped through ``tail`` that printed 1/3 passed,
2 failed (the Qwen Code run of the same scenario is downgraded either way)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import TRANSCRIPTS, run_earnest

THIRTY_ONE = (
    TRANSCRIPTS / "claude-code" / "mclaude-abc757d1-3da3--review-proposal-image-edits.jsonl"
)


def _downgrades(*flags: str) -> set[tuple[str, int, str]]:
    result = run_earnest(
        "trajectory", "replay-gate", str(TRANSCRIPTS), "--format", "json", *flags, timeout=600
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    found: set[tuple[str, int, str]] = set()
    for t in data["trajectories"]:
        for run in t["run_details"]:
            for claim in run["claims"]:
                if claim["outcome"] == "downgraded":
                    found.add(
                        (
                            str(Path(t["source"]).relative_to(TRANSCRIPTS)),
                            claim["run"],
                            claim["reason"],
                        )
                    )
    return found


def test_the_default_blocks_no_more_than_strict_claims_did_on_the_real_corpus() -> None:
    default = _downgrades()
    assert default == _downgrades("--strict-claims")
    off = _downgrades("--no-strict-claims")
    assert off < default
    extra = default - off
    assert sorted((name, reason) for name, _, reason in extra) == [
        (
            str(THIRTY_ONE.relative_to(TRANSCRIPTS)),
            "unverified-claim: tests pass (claimed 31 passed; the last test run (pytest) "
            "printed 31/35 passed, 4 failed)",
        ),
        (
            "copilot-cli/scenario-j-piped-failing-tests.jsonl",
            "unverified-claim: tests pass (claimed all tests pass; the last test run (unittest) "
            "printed 1/3 passed, 2 failed)",
        ),
    ]


def test_the_real_31_passed_session_is_downgraded_by_default() -> None:
    result = run_earnest("trajectory", "replay-gate", str(THIRTY_ONE), "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["summary"]["downgraded"] == 1
    reasons = [c["reason"] for r in data["trajectories"][0]["run_details"] for c in r["claims"]]
    assert any("31/35 passed, 4 failed" in r for r in reasons), reasons
    off = run_earnest(
        "trajectory", "replay-gate", str(THIRTY_ONE), "--format", "json", "--no-strict-claims"
    )
    assert json.loads(off.stdout)["summary"]["downgraded"] == 0
