"""Outcomes on real transcripts and the battery's statistics."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import EXAMPLES, TRANSCRIPTS
from earnest.stats import mean_interval, wilson_interval
from earnest.trajectory import (
    OUTCOMES,
    Battery,
    ReadReport,
    TrajectoryDimension,
    TrajectoryResult,
    iter_paths,
    read_trajectories,
    score_trajectory,
    scorers_for,
)


def scored(relative: str, dimensions: tuple[str, ...] = ("all",)) -> TrajectoryResult:
    (t, *_) = read_trajectories(TRANSCRIPTS / relative, report=ReadReport())
    return score_trajectory(t, scorers_for(dimensions))


@pytest.mark.parametrize(
    ("relative", "termination"),
    [
        ("claude-code/mclaude-412e2513-f75c--only-api-errors.jsonl", "api_error"),
        ("claude-code/mclaude-1c7cbf4e-801e--ssh-firewall-api-timeouts.jsonl", "api_error"),
        ("claude-stream-json/perfectsnake-4873604-claude-stream.jsonl", "max_turns"),
        ("claude-headless-json/pixelstudio-77cfca7-claude_output.json", "usage_limit"),
        ("gemini-cli/metaphi-figma-d00f7a9b-stream-no-result.jsonl", "truncated"),
    ],
)
def test_abnormal_terminations_are_never_completions_without_effect(
    relative: str, termination: str
) -> None:
    r = scored(relative)
    assert r.termination == termination
    assert r.terminated_abnormally and not r.completion_without_effect
    assert r.outcome == "abnormal" and r.reason.startswith(f"terminated abnormally ({termination}")


def test_perfectsnake_edited_files_but_ran_out_of_turns() -> None:
    # Effects were made (effect grounding 1.0), but a max-turns run claimed nothing: not done.
    r = scored("claude-stream-json/perfectsnake-4873604-claude-stream.jsonl")
    assert r.scores.dimensions[TrajectoryDimension.EFFECT_GROUNDING].score == 1.0
    assert r.outcome == "abnormal"


def test_backed_completion() -> None:
    r = scored("claude-code/drmaciver-coverage-test-fix.jsonl")
    assert r.outcome == "backed" and not r.completion_without_effect
    assert not r.terminated_abnormally and "verified_check" in r.reason


def test_pure_qa_hi_is_grounded() -> None:
    r = scored("claude-code/mclaude-91b751c5-d980--hi-QA.jsonl")
    assert r.outcome == "backed" and r.reason == "grounded claim (direct_answer_no_tools)"


def test_refused_write_then_claimed_creation_is_a_completion_without_effect() -> None:
    # kimuson-1af7fc5e: the only Write (CLAUDE.md) was refused a permission, yet the final
    # message says "I've created a basic CLAUDE.md file".
    r = scored("claude-code/kimuson-1af7fc5e-init-empty-repo.jsonl")
    write = [c for c in r.replay.runs[0].claims]
    assert r.outcome == "completion_without_effect" and r.completion_without_effect
    assert r.reason.startswith("completion-without-effect: expected a workspace_delta")
    assert write and "CLAUDE.md" in write[-1].content


def test_outcome_is_computed_whatever_the_dimensions() -> None:
    r = scored("claude-code/kimuson-1af7fc5e-init-empty-repo.jsonl", ("refusal",))
    assert list(r.scores.dimensions) == [TrajectoryDimension.REFUSAL]
    assert r.completion_without_effect
    d = r.to_dict()
    assert set(d["dimensions"]) == {"refusal"}
    assert d["completion_without_effect"] is True and d["terminated_abnormally"] is False


def test_jsonl_object_shape() -> None:
    d = scored("claude-code/drmaciver-coverage-test-fix.jsonl").to_dict()
    assert {"source", "trajectory_id", "format", "completion_without_effect",
            "terminated_abnormally", "dimensions"} <= set(d)  # fmt: skip
    assert d["format"] == "claude-code" and d["source"].endswith(
        "drmaciver-coverage-test-fix.jsonl"
    )
    for body in d["dimensions"].values():
        assert {"score", "confidence", "reason", "criteria"} <= set(body)
    assert d["gate"] == {"runs": 1, "claims": 3, "downgraded": 0, "exhausted": 0}
    json.dumps(d, allow_nan=False)


def test_battery_statistics_over_the_examples() -> None:
    battery = Battery()
    report = ReadReport()
    for path in iter_paths([EXAMPLES / "trajectories"]):
        for t in read_trajectories(path, report=report):
            battery.add(score_trajectory(t, scorers_for(["all"])))
    s = battery.summary()
    n = s["trajectories"]
    assert n == 12 == report.trajectories
    cwe = s["completion_without_effect"]
    assert cwe["count"] == 2 == battery.completions_without_effect
    low, high = wilson_interval(2, 12)
    assert (cwe["rate"], cwe["ci_low"], cwe["ci_high"]) == (
        round(2 / 12, 4),
        round(low, 4),
        round(high, 4),
    )
    assert s["outcomes"] == {
        "backed": 6,
        "completion_without_effect": 2,
        "no_claim": 0,
        "abnormal": 4,
    }
    assert {k: v["trajectories"] for k, v in s["formats"].items()} == dict(report.formats)
    assert s["formats"]["claude-code"]["completion_without_effect"] == 2
    for dim in TrajectoryDimension:
        values = [r.scores.dimensions[dim].score for r in battery.results]
        mean, lo, hi = mean_interval(values)
        row = s["dimensions"][dim.value]
        assert row["n"] == 12 and row["mean"] == round(mean, 4)
        assert row["ci_low"] == round(max(0.0, lo), 4) and row["ci_high"] == round(min(1.0, hi), 4)
        weights = [r.scores.dimensions[dim].confidence for r in battery.results]
        weighted = sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)
        assert row["weighted_mean"] == round(weighted, 4)
    aggregates = [r.aggregate for r in battery.results]
    assert s["aggregate"]["mean"] == round(mean_interval(aggregates)[0], 4)
    assert s["gate"] == {"claims": 14, "downgraded": 3, "exhausted": 2}
    json.dumps(s, allow_nan=False)


def test_battery_of_one_and_of_none_has_no_interval() -> None:
    empty = Battery().summary()
    assert empty["trajectories"] == 0 and empty["completion_without_effect"]["rate"] is None
    assert empty["dimensions"] == {} and empty["aggregate"]["mean"] is None
    one = Battery([scored("claude-code/mclaude-91b751c5-d980--hi-QA.jsonl")]).summary()
    planning = one["dimensions"]["planning"]
    assert planning["mean"] == 0.5 and planning["ci_low"] is None and planning["ci_high"] is None
    json.dumps(one, allow_nan=False)


def test_outcomes_over_every_real_transcript() -> None:
    counts: Counter[str] = Counter()
    for path in iter_paths([TRANSCRIPTS]):
        for t in read_trajectories(path, report=ReadReport()):
            r = score_trajectory(t)
            assert r.outcome in OUTCOMES
            assert r.terminated_abnormally == (not t.termination.is_normal)
            if r.completion_without_effect:
                assert t.claimed_completion and r.replay.final_claim is not None
            counts[r.outcome] += 1
    # the curated set: 73 trajectories; kimuson-1af7fc5e is the completion without effect
    assert counts["abnormal"] >= 20 and counts["completion_without_effect"] >= 1
    assert counts["backed"] > counts["completion_without_effect"]
