"""Trajectory scorers: the prior-art effect-grounding behaviours, each dimension, the sets."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import TRANSCRIPTS
from earnest.effects import DEFAULT_REGISTRY
from earnest.trajectory import (
    DimensionScore,
    EffectGroundingScorer,
    FileEdit,
    Message,
    PlanningScorer,
    ReadReport,
    RecoveryScorer,
    RefusalScorer,
    Termination,
    ToolCall,
    ToolGroundingScorer,
    Trajectory,
    TrajectoryDimension,
    TrajectoryScore,
    all_scorers,
    default_scorers,
    read_trajectories,
    score_dimensions,
    scorers_for,
)

D = TrajectoryDimension


def call(name: str, outcome: str = "success", turn: int = 0, **args: Any) -> ToolCall:
    return ToolCall(
        id=f"{name}-{turn}-{len(args)}-{outcome}",
        name=name,
        arguments=args,
        outcome=outcome,  # type: ignore[arg-type]
        turn_index=turn,
    )


def traj(
    *calls: ToolCall, edits: tuple[FileEdit, ...] = (), final: str | None = "Done."
) -> Trajectory:
    return Trajectory(
        id="t",
        source="t.jsonl",
        format="earnest",
        tool_calls=calls,
        file_edits=edits,
        final_message=final,
        termination=Termination("normal"),
    )


def effect(t: Trajectory) -> DimensionScore:
    return EffectGroundingScorer().score(t)


# -- effect grounding: the reference scorer's behaviours, one test each ----------------------


def test_an_effect_scores_one() -> None:
    s = effect(traj(call("Write", file_path="a.py"), call("Read", file_path="a.py")))
    assert (s.score, s.reason.split(":")[0]) == (1.0, "effects")
    assert s.confidence >= 0.8


def test_a_verified_check_is_an_effect() -> None:
    s = effect(traj(call("Bash", command="python -m pytest -q")))
    assert s.score == 1.0 and "1 check(s)" in s.reason and "pytest" in s.reason


def test_only_successful_non_effect_calls_are_read_grounded() -> None:
    s = effect(traj(call("Read", file_path="a.py"), call("Grep", pattern="x")))
    assert s.score == 0.7 and s.reason.startswith("read-grounded")
    assert "2 read/search/feedback call(s)" in s.reason


def test_calls_attempted_none_succeeded_is_completion_without_effect() -> None:
    s = effect(
        traj(call("Write", "error", file_path="a.py"), call("Bash", "error", command="make"))
    )
    assert s.score == 0.0 and s.reason.startswith("completion-without-effect")
    assert s.confidence >= 0.5


def test_no_calls_scores_half_with_low_confidence() -> None:
    s = effect(traj())
    assert s.score == 0.5 and s.confidence < 0.5
    assert all(c.met is None for c in s.criteria if c.name != "tool_calls_made")


def test_failed_calls_give_no_evidence() -> None:
    s = effect(traj(call("Write", "error", file_path="a.py"), call("Read", file_path="a.py")))
    assert s.score == 0.7


def test_a_call_with_no_recorded_result_gives_no_credit() -> None:
    s = effect(traj(call("Write", "unknown", file_path="a.py")))
    assert s.score == 0.0


def test_file_edits_the_source_records_count_and_are_counted() -> None:
    # A tool the registry does not know, but the source recorded the edit it made.
    apply = ToolCall("c1", "apply_changes", {"x": 1}, "success")
    s = effect(
        traj(apply, edits=(FileEdit("a.py", "modify", "c1"), FileEdit("b.py", "create", "c1")))
    )
    assert s.score == 1.0 and "2 file edit(s) recorded" in s.reason
    edits = next(c for c in s.criteria if c.name == "source_file_edits")
    assert edits.met is True


def test_file_edits_on_failed_calls_do_not_count() -> None:
    failed = ToolCall("c1", "apply_changes", {}, "error")
    s = effect(traj(failed, edits=(FileEdit("a.py", "modify", "c1"),)))
    assert s.score == 0.0
    edits = next(c for c in s.criteria if c.name == "source_file_edits")
    assert edits.met is False and "not counted" in edits.detail


def test_uses_the_effects_shell_classification() -> None:
    # The gate's shell judgement, not a copy: `echo pytest` is no check, `cat a > b` writes b.
    assert effect(traj(call("Bash", command="echo pytest"))).score == 0.7
    assert effect(traj(call("Bash", command="cat a > b"))).score == 1.0


def test_uses_the_effects_registry_and_its_overrides() -> None:
    booking = traj(call("book_reservation", reservation="X1"))
    assert effect(booking).score == 0.7  # an unknown API tool is feedback
    registry = DEFAULT_REGISTRY.with_overrides({"book_reservation": "action"})
    assert EffectGroundingScorer(registry).score(booking).score == 1.0


# -- the scorer sets -----------------------------------------------------------------------


def test_default_scorers_leave_effect_grounding_out() -> None:
    dims = [s.dimension for s in default_scorers()]
    assert dims == [D.PLANNING, D.TOOL_GROUNDING, D.RECOVERY, D.REFUSAL]
    assert D.EFFECT_GROUNDING not in dims
    assert [s.dimension for s in all_scorers()][-1] is D.EFFECT_GROUNDING


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["all"], list(D)),
        (["default"], [D.PLANNING, D.TOOL_GROUNDING, D.RECOVERY, D.REFUSAL]),
        (["effect_grounding", "planning"], [D.PLANNING, D.EFFECT_GROUNDING]),
        (["default", "effect-grounding"], list(D)),
        (["Refusal", " recovery "], [D.RECOVERY, D.REFUSAL]),
    ],
)
def test_scorers_for_names(names: list[str], expected: list[D]) -> None:
    assert [s.dimension for s in scorers_for(names)] == expected


def test_scorers_for_rejects_an_unknown_name() -> None:
    with pytest.raises(ValueError, match="unknown dimension 'vibes'"):
        scorers_for(["planning", "vibes"])


def test_aggregate_is_confidence_weighted() -> None:
    score = TrajectoryScore(
        {
            D.PLANNING: DimensionScore(1.0, 0.6, ""),
            D.TOOL_GROUNDING: DimensionScore(0.0, 0.2, ""),
            D.REFUSAL: DimensionScore(0.5, 0.0, ""),
        }
    )
    assert score.aggregate == pytest.approx(0.75)
    assert TrajectoryScore({}).aggregate == 0.0


def test_every_criterion_is_recorded_with_its_reason() -> None:
    t = traj(
        call("TodoWrite", turn=0, todos=[]),
        call("Read", turn=1, file_path="a.py"),
        call("Edit", "error", turn=2, file_path="a.py"),
        call("Edit", turn=3, file_path="a.py"),
    )
    scores = score_dimensions(t, all_scorers())
    assert list(scores.dimensions) == list(D)
    for dim, s in scores.dimensions.items():
        assert s.reason and s.criteria, dim
        assert all(c.detail for c in s.criteria), dim
        assert 0.0 <= s.score <= 1.0 and 0.0 <= s.confidence <= 1.0
    assert scores.to_dict()["recovery"]["criteria"][0]["met"] is True


# -- the other dimensions ----------------------------------------------------------------------


def test_tool_grounding_is_the_share_of_calls_that_succeeded() -> None:
    s = ToolGroundingScorer().score(
        traj(call("Read"), call("Edit", "error"), call("Bash", "unknown"), call("Grep"))
    )
    assert s.score == 0.5 and s.confidence == 1.0
    assert s.reason == "2/4 tool calls succeeded (1 failed, 1 without a result)"
    recorded = next(c for c in s.criteria if c.name == "every_result_recorded")
    assert recorded.met is False
    none = ToolGroundingScorer().score(traj())
    assert (none.score, none.confidence) == (0.5, 0.2)


def test_tool_grounding_checks_the_answer_came_after_the_results() -> None:
    after = Trajectory(
        "t", "t", "earnest",
        messages=(Message("user", "go", 0, kind="prompt"), Message("assistant", "Done.", 1)),
        tool_calls=(ToolCall("1", "Read", {}, "success", position=1),),
        final_message="Done.", termination=Termination("normal"),
    )  # fmt: skip
    criterion = next(
        c for c in ToolGroundingScorer().score(after).criteria if c.name == "answer_after_results"
    )
    assert criterion.met is True
    before = Trajectory(
        "t", "t", "earnest",
        messages=(Message("user", "go", 0, kind="prompt"), Message("assistant", "Done.", 1)),
        tool_calls=(ToolCall("1", "Read", {}, "success", position=2),),
        final_message="Done.", termination=Termination("normal"),
    )  # fmt: skip
    criterion = next(
        c for c in ToolGroundingScorer().score(before).criteria if c.name == "answer_after_results"
    )
    assert criterion.met is False


def test_recovery_needs_a_later_success_of_the_same_kind() -> None:
    recovered = RecoveryScorer().score(traj(call("Edit", "error"), call("MultiEdit")))
    assert recovered.score == 1.0 and recovered.reason == "recovered 1/1 failed tool call(s)"
    not_recovered = RecoveryScorer().score(traj(call("Edit", "error"), call("Read")))
    assert not_recovered.score == 0.0
    assert not_recovered.criteria[0].detail == "no later successful edit call"
    earlier_success = RecoveryScorer().score(traj(call("Bash"), call("Bash", "error")))
    assert earlier_success.score == 0.0


def test_recovery_is_not_engaged_without_failures_or_by_bookkeeping_failures() -> None:
    for t in (traj(call("Read")), traj(call("KillShell", "error"), call("TodoWrite", "error"))):
        s = RecoveryScorer().score(t)
        assert (s.score, s.confidence) == (0.5, 0.2)


def test_recovery_lists_at_most_twenty_failures() -> None:
    many = traj(*(call("Bash", "error", turn=i, command=f"make {i}") for i in range(30)))
    s = RecoveryScorer().score(many)
    assert len(s.criteria) == 20 and "first 20 listed" in s.reason and s.confidence == 1.0


def test_planning_criteria() -> None:
    planned = PlanningScorer().score(
        traj(call("TodoWrite", turn=0), call("Read", turn=1), call("Edit", turn=2))
    )
    assert planned.score == 1.0 and planned.confidence == pytest.approx(0.6)
    blind = PlanningScorer().score(traj(call("Write", turn=0), call("Read", turn=0)))
    assert blind.score == 0.0
    looked = next(c for c in blind.criteria if c.name == "looked_before_changing")
    assert looked.met is False and "came before any read" in looked.detail
    reading = PlanningScorer().score(traj(call("Read", turn=0)))
    assert next(c for c in reading.criteria if c.name == "looked_before_changing").met is None
    empty = PlanningScorer().score(traj())
    assert (empty.score, empty.confidence) == (0.5, 0.2)


def test_planning_judges_the_editor_by_its_command() -> None:
    view_then_create = traj(
        call("str_replace_editor", turn=0, command="view", path="a.py"),
        call("str_replace_editor", turn=1, command="create", path="b.py"),
    )
    s = PlanningScorer().score(view_then_create)
    assert next(c for c in s.criteria if c.name == "looked_before_changing").met is True


@pytest.mark.parametrize(
    ("final", "score"),
    [
        ("I can't help with that.", 0.0),
        ("I’m unable to access the repository.", 0.0),
        ("Done: I fixed the parser.", 1.0),
        ("Fixed.\nI cannot stress enough that tests pass.", 1.0),  # first line only
    ],
)
def test_refusal_reads_the_first_line(final: str, score: float) -> None:
    assert RefusalScorer().score(traj(final=final)).score == score


def test_refusal_without_a_final_message() -> None:
    s = RefusalScorer().score(traj(final=None))
    assert (s.score, s.confidence) == (1.0, 0.1) and s.criteria[0].met is None


# -- real transcripts --------------------------------------------------------------------------


def real(relative: str) -> Trajectory:
    (t, *_) = read_trajectories(TRANSCRIPTS / relative, report=ReadReport())
    return t


def test_effect_grounding_on_real_runs() -> None:
    backed = effect(real("claude-code/drmaciver-coverage-test-fix.jsonl"))
    assert backed.score == 1.0 and "check(s)" in backed.reason and "file edit(s)" in backed.reason
    # The Write of CLAUDE.md was refused a permission: only reads and listings succeeded.
    refused = effect(real("claude-code/kimuson-1af7fc5e-init-empty-repo.jsonl"))
    assert refused.score == 0.7 and refused.reason.startswith("read-grounded")
    hi = effect(real("claude-code/mclaude-91b751c5-d980--hi-QA.jsonl"))
    assert (hi.score, hi.confidence) == (0.5, 0.2)


def test_every_real_transcript_scores_inside_the_bounds() -> None:
    from earnest.trajectory import iter_paths

    seen = 0
    for path in iter_paths([TRANSCRIPTS]):
        for t in read_trajectories(path, report=ReadReport()):
            for s in score_dimensions(t, all_scorers()).dimensions.values():
                assert 0.0 <= s.score <= 1.0 and 0.0 < s.confidence <= 1.0, path
            seen += 1
    # trajectories in the curated set (tau-bench: 13 in one file; opencode 1.1.65 storage: 2)
    assert seen == 90
