"""The effect gate: every behaviour of ADR-010 / Victor's gate, the DESIGN.md contract, and
what earnest adds (baselines, path safety, strict claims, env override)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from earnest.effects import (
    ENV_VAR,
    EffectGate,
    EffectGateConfig,
    EvaluationDecision,
    EvaluationResult,
    WorkspaceBaseline,
    resolve_enabled,
)
from earnest.errors import InputError

COMPLETE = EvaluationDecision.COMPLETE
RETRY = EvaluationDecision.RETRY


def done(score: float = 0.9, **metadata: Any) -> EvaluationResult:
    return EvaluationResult(COMPLETE, score, "agent says done", {"turns": 3}, dict(metadata))


def gate(workspace: Path | None = None, **config: Any) -> EffectGate:
    g = EffectGate(EffectGateConfig(enabled=True, **config), workspace=workspace, env={})
    g.reset()
    return g


def write(path: Path | str) -> dict[str, Any]:
    return {"tool_name": "Write", "args": {"file_path": str(path)}}


READ = {"tool_name": "Read", "args": {"file_path": "README.md"}}
PYTEST = {"tool_name": "Bash", "args": {"command": "pytest -q"}}


# -- disabled: a strict no-op ----------------------------------------------------------------


def test_disabled_by_default_and_apply_returns_the_very_object():
    g = EffectGate(env={})
    assert not g.enabled and g.config.enabled is False and g.config.max_downgrades == 2
    evaluation = done()
    g.reset(baseline=True)
    g.record([write("a.py"), PYTEST])
    assert g.apply(evaluation, task_type="edit") is evaluation
    assert g.ledger.attempted == 0 and g.ledger.effects == ()


def test_disabled_config_is_a_no_op_even_for_ungrounded_completions():
    g = EffectGate(EffectGateConfig(enabled=False), env={})
    evaluation = done()
    assert g.apply(evaluation, task_type="bugfix", content="I fixed it") is evaluation


# -- environment override --------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "yes", "on", " 1 "])
def test_env_switches_the_gate_on_over_the_config(value: str):
    g = EffectGate(EffectGateConfig(enabled=False), env={ENV_VAR: value})
    assert g.enabled
    g.reset()
    assert g.apply(done(), task_type="edit").decision is RETRY


@pytest.mark.parametrize("value", ["0", "false", "no", "off", "OFF"])
def test_env_switches_the_gate_off_over_the_config(value: str):
    g = EffectGate(EffectGateConfig(enabled=True), env={ENV_VAR: value})
    evaluation = done()
    assert not g.enabled and g.apply(evaluation, task_type="edit") is evaluation


def test_empty_env_leaves_the_config_in_charge():
    assert resolve_enabled(EffectGateConfig(enabled=True), {ENV_VAR: ""})
    assert not resolve_enabled(EffectGateConfig(enabled=False), {})


def test_env_is_read_at_construction(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(ENV_VAR, "1")
    g = EffectGate()
    monkeypatch.setenv(ENV_VAR, "0")
    assert g.enabled  # later changes do not flip a running gate


def test_a_bad_env_value_is_a_clear_input_error():
    with pytest.raises(InputError, match=r"EARNEST_EFFECT_GATE: expected 1/0.*got 'maybe'"):
        EffectGate(env={ENV_VAR: "maybe"})


# -- pass-through and bypass -------------------------------------------------------------------


@pytest.mark.parametrize("decision", [d for d in EvaluationDecision if d is not COMPLETE])
def test_non_complete_decisions_pass_through_untouched(decision: EvaluationDecision):
    g = gate()
    evaluation = EvaluationResult(decision, 0.7)
    assert g.apply(evaluation, task_type="edit") is evaluation
    assert g.downgrades == 0


def test_team_execution_is_bypassed_with_an_annotation():
    g = gate()
    out = g.apply(done(keep="me"), task_type="edit", execution_mode="team")
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"] == {"bypassed": "team_execution"}
    assert out.metadata["keep"] == "me" and g.downgrades == 0


# -- expected effect class -----------------------------------------------------------------------


def test_mutation_task_types_expect_a_workspace_delta():
    g = gate()
    g.record([READ])
    out = g.apply(done(), task_type="bugfix")
    assert out.decision is RETRY
    assert out.metadata["effect_gate"]["expected_effect_class"] == "workspace_delta"


@pytest.mark.parametrize(
    "kwargs",
    [{"is_qa": True}, {"task_type": "qa"}, {"task_type": "analysis"}, {"task_type": "unknown"},
     {"task_type": "never-heard-of-it"}, {}],
)  # fmt: skip
def test_qa_unknown_and_unrecognised_task_types_take_the_lenient_grounded_path(
    kwargs: dict[str, Any],
):
    g = gate()
    g.record([READ])
    out = g.apply(done(), content="It loads TOML.", **kwargs)
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["expected_effect_class"] == "grounded_claim"
    assert out.metadata["effect_gate"]["satisfied_by"]["grounding"] == "read_evidence"


def test_forced_completion_takes_the_lenient_path_even_for_a_mutation_task():
    g = gate()
    g.record([READ])
    for flag in ("forced_completion", "forced_task_completion"):
        assert g.apply(done(**{flag: True}), task_type="edit").decision is COMPLETE


def test_is_qa_wins_over_a_mutation_task_type():
    g = gate()
    g.record([READ])
    assert g.apply(done(), task_type="edit", is_qa=True).decision is COMPLETE


def test_the_request_text_decides_when_there_is_no_task_type():
    g = gate()
    g.record([READ])
    assert g.apply(done(), request="Fix the flaky test").decision is RETRY
    assert g.apply(done(), request="Why is the test flaky?").decision is COMPLETE


# -- grounded claims -----------------------------------------------------------------------------


def test_a_direct_answer_with_no_tool_calls_is_grounded():
    g = gate()
    out = g.apply(done(), content="2 + 2 = 4", is_qa=True)
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"] == {
        "grounding": "direct_answer_no_tools",
        "references": [],
    }


def test_no_tool_calls_do_not_satisfy_a_mutation_task():
    out = gate().apply(done(), content="I fixed it.", task_type="bugfix")
    assert out.decision is RETRY
    assert "no tool calls were made in this run" in out.reason


def test_a_qa_answer_whose_tools_all_failed_is_ungrounded_unless_it_names_real_files(
    tmp_path: Path,
):
    (tmp_path / "loader.py").write_text("x")
    g = gate(tmp_path)
    g.record([{**READ, "is_error": True}])
    assert g.apply(done(), content="No idea.", is_qa=True).decision is RETRY
    out = g.apply(done(), content="It lives in loader.py.", is_qa=True)
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"] == {
        "grounding": "file_references",
        "references": ["loader.py"],
    }


# -- any verified effect satisfies any class -------------------------------------------------------


def test_a_check_satisfies_a_mutation_task():
    g = gate()
    g.record([PYTEST])
    out = g.apply(done(), task_type="edit")
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"]["effect"]["kind"] == "test"


def test_a_delta_satisfies_a_qa_task(tmp_path: Path):
    (tmp_path / "a.py").write_text("a")
    g = gate(tmp_path)
    g.record([{**READ, "is_error": True}, write(tmp_path / "a.py")])
    assert g.apply(done(), is_qa=True, content="Done.").decision is COMPLETE


def test_a_delta_without_artifacts_counts_unverified():
    g = gate()
    g.record([{"tool_name": "Bash", "args": {"command": "git commit -am wip"}}])
    out = g.apply(done(), task_type="edit")
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"]["verified"] is False


# -- the downgrade ------------------------------------------------------------------------------


def test_downgrade_is_a_new_retry_with_capped_score_reason_and_metadata():
    g = gate()
    g.record([READ])
    evaluation = done(score=0.95, origin="evaluator")
    out = g.apply(evaluation, task_type="edit")
    assert out is not evaluation and evaluation.decision is COMPLETE  # the input is untouched
    assert out.decision is RETRY and out.score == 0.4
    assert out.reason.startswith("completion-without-effect: expected a workspace_delta")
    assert "1 tool call(s), 1 succeeded; none changed the workspace or ran a check" in out.reason
    assert out.metadata["completion_without_effect"] is True
    assert out.metadata["effect_gate_downgrade"] == "completion-without-effect"
    assert out.metadata["origin"] == "evaluator" and out.metrics == {"turns": 3}
    assert out.metadata["effect_gate"]["attempted_tool_calls"] == 1


def test_a_low_score_is_not_raised_by_the_cap():
    assert gate().apply(done(score=0.1), task_type="edit").score == 0.1


def test_the_reason_names_the_missing_evidence_for_qa():
    g = gate()
    g.record([{**READ, "is_error": True}])
    out = g.apply(done(), is_qa=True, content="Trust me.")
    assert out.reason.startswith("completion-without-effect: expected a grounded_claim")
    assert "1 tool call(s), 0 succeeded" in out.reason


def test_at_most_max_downgrades_then_the_complete_stands_annotated():
    g = gate()
    first, second = g.apply(done(), task_type="edit"), g.apply(done(), task_type="edit")
    assert first.decision is second.decision is RETRY
    third = g.apply(done(), task_type="edit")
    assert third.decision is COMPLETE and third.metadata["effect_gate_exhausted"] is True
    assert third.metadata["effect_gate"]["would_downgrade"] == "completion-without-effect"
    assert g.downgrades == 2


@pytest.mark.parametrize("budget", [0, 1, 3])
def test_the_budget_is_configurable(budget: int):
    g = gate(max_downgrades=budget)
    decisions = [g.apply(done(), task_type="edit").decision for _ in range(budget + 2)]
    assert decisions == [RETRY] * budget + [COMPLETE, COMPLETE]


def test_reset_starts_a_new_run_with_a_fresh_budget_and_ledger():
    g = gate(max_downgrades=1)
    g.record([PYTEST])
    g.apply(done(), task_type="edit")
    g.reset()
    assert g.ledger.attempted == 0
    assert g.apply(done(), task_type="edit").decision is RETRY
    assert g.apply(done(), task_type="edit").decision is COMPLETE
    g.reset()
    assert g.apply(done(), task_type="edit").decision is RETRY


# -- the session-scoped ledger --------------------------------------------------------------------


def test_a_summary_turn_after_effectful_turns_may_complete(tmp_path: Path):
    g = gate(tmp_path)
    (tmp_path / "a.py").write_text("a")
    g.record([write(tmp_path / "a.py")], turn_index=1)
    g.record([], turn_index=2)  # the summary turn: no tools
    assert g.apply(done(), task_type="edit", content="Summary: done.").decision is COMPLETE


def test_record_numbers_turns_when_not_told():
    g = gate()
    g.record([PYTEST])
    g.record([PYTEST])
    g.record([PYTEST], turn_index=7)
    g.record([PYTEST])
    assert [e.turn_index for e in g.ledger.effects] == [1, 2, 7, 8]


# -- artifacts at gate time ------------------------------------------------------------------------


def test_a_delta_whose_file_no_longer_exists_is_dropped(tmp_path: Path):
    g = gate(tmp_path)
    g.record([write(tmp_path / "tmp.py")])  # written, then gone
    out = g.apply(done(), task_type="edit")
    assert out.decision is RETRY
    assert (
        f"no file change held up in the workspace: {tmp_path / 'tmp.py'} (not found)" in out.reason
    )
    assert out.metadata["effect_gate"]["dropped_artifacts"][0]["status"] == "missing"


def test_a_deletion_counts_when_the_file_is_gone(tmp_path: Path):
    g = gate(tmp_path)
    g.record([{"tool_name": "Bash", "args": {"command": f"rm {tmp_path / 'old.py'}"}}])
    assert g.apply(done(), task_type="edit").decision is COMPLETE


def test_a_deletion_does_not_count_when_the_file_is_still_there(tmp_path: Path):
    (tmp_path / "old.py").write_text("still here")
    g = gate(tmp_path)
    g.record([{"tool_name": "Bash", "args": {"command": "rm old.py"}}])
    out = g.apply(done(), task_type="edit")
    assert out.decision is RETRY and "old.py (still exists)" in out.reason


def test_newest_artifact_that_holds_up_satisfies(tmp_path: Path):
    (tmp_path / "kept.py").write_text("k")
    g = gate(tmp_path)
    g.record([write(tmp_path / "kept.py"), write(tmp_path / "gone.py")])
    out = g.apply(done(), task_type="edit")
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"]["artifact"] == str(tmp_path / "kept.py")
    assert out.metadata["effect_gate"]["baseline"] == "unavailable"


def test_an_unresolvable_workspace_counts_rather_than_blocks(tmp_path: Path):
    for g in (gate(None), gate(tmp_path / "does-not-exist")):
        g.record([write("/nowhere/a.py")])
        out = g.apply(done(), task_type="edit")
        assert out.decision is COMPLETE
        assert out.metadata["effect_gate"]["satisfied_by"]["note"] == "workspace unresolvable"
        assert out.metadata["effect_gate"]["baseline"] == "no-workspace"


def test_verification_can_be_switched_off(tmp_path: Path):
    g = gate(tmp_path, verify_artifacts=False)
    g.record([write(tmp_path / "never-written.py")])
    out = g.apply(done(), task_type="edit")
    assert (
        out.decision is COMPLETE
        and out.metadata["effect_gate"]["satisfied_by"]["note"] == "verification off"
    )


def test_artifacts_outside_the_workspace_never_count(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside.py").write_text("o")
    (root / "link").symlink_to(tmp_path)
    g = gate(root)
    g.record([write("../outside.py"), write(tmp_path / "outside.py"), write("link/outside.py")])
    out = g.apply(done(), task_type="edit")
    assert out.decision is RETRY
    statuses = {d["status"] for d in out.metadata["effect_gate"]["dropped_artifacts"]}
    assert statuses == {"outside"}


def test_every_apply_looks_at_the_workspace_afresh(tmp_path: Path):
    target = tmp_path / "a.py"
    target.write_text("a")
    g = gate(tmp_path)
    g.record([write(target)])
    assert g.apply(done(), task_type="edit").decision is COMPLETE
    target.unlink()
    # nothing was recorded since, but the file is gone: the next apply must see it
    assert g.apply(done(), task_type="edit").decision is RETRY


def test_a_file_written_after_its_recorded_write_counts_at_the_next_apply(workspace: Path):
    g = baseline_gate(workspace)
    goal = workspace / "GOAL.md"
    g.record([write(goal)])  # the write is recorded before the file changed on disk
    assert g.apply(done(), task_type="create").decision is RETRY
    goal.write_text("now really rewritten by the agent, and longer\n")
    out = g.apply(done(), task_type="create")
    assert out.decision is COMPLETE, out.reason
    assert out.metadata["effect_gate"]["satisfied_by"]["status"] == "modified"


def test_an_empty_record_does_not_keep_a_stale_verdict(workspace: Path):
    g = baseline_gate(workspace)
    goal = workspace / "GOAL.md"
    g.record([write(goal)])
    assert g.apply(done(), task_type="create").decision is RETRY
    g.record([])
    goal.write_text("changed between two evaluations, with nothing recorded\n")
    assert g.apply(done(), task_type="create").decision is COMPLETE


# -- baselines -------------------------------------------------------------------------------


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


@pytest.fixture(params=["snapshot", "git"])
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "GOAL.md").write_text("the goal file already exists\n")
    (root / "old.txt").write_text("old\n")
    if request.param == "git":
        if shutil.which("git") is None:
            pytest.skip("git not installed")
        git(root, "init", "-q")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "base")
    return root


def baseline_gate(root: Path) -> EffectGate:
    g = EffectGate(EffectGateConfig(enabled=True), workspace=root, env={})
    g.reset(baseline=True)
    time.sleep(0.02)
    return g


def test_an_untouched_preexisting_goal_file_does_not_satisfy(workspace: Path):
    g = baseline_gate(workspace)
    g.record([write(workspace / "GOAL.md")])  # the agent says it wrote it; the disk says no
    out = g.apply(done(), task_type="create")
    assert out.decision is RETRY
    assert "GOAL.md (unchanged since the run began)" in out.reason
    assert out.metadata["effect_gate"]["baseline"] in {"git", "snapshot"}


def test_a_modified_goal_file_satisfies(workspace: Path):
    g = baseline_gate(workspace)
    (workspace / "GOAL.md").write_text("rewritten by the agent, longer than before\n")
    g.record([write(workspace / "GOAL.md")])
    out = g.apply(done(), task_type="create")
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["satisfied_by"]["status"] == "modified"


def test_a_deleted_file_satisfies(workspace: Path):
    g = baseline_gate(workspace)
    (workspace / "old.txt").unlink()
    g.record([{"tool_name": "Bash", "args": {"command": "rm old.txt"}}])
    out = g.apply(done(), task_type="edit")
    assert (
        out.decision is COMPLETE
        and out.metadata["effect_gate"]["satisfied_by"]["status"] == "deleted"
    )


def test_a_file_created_during_the_run_satisfies(workspace: Path):
    g = baseline_gate(workspace)
    (workspace / "new.py").write_text("n\n")
    g.record([{"tool_name": "Bash", "args": {"command": "cd . && touch new.py"}}])
    out = g.apply(done(), task_type="edit")
    assert (
        out.decision is COMPLETE
        and out.metadata["effect_gate"]["satisfied_by"]["status"] == "created"
    )


def test_a_bad_baseline_request_is_noted_not_fatal(tmp_path: Path):
    g = EffectGate(EffectGateConfig(enabled=True), workspace=tmp_path / "missing", env={})
    g.reset(baseline=True)
    assert g.baseline_note and "not an existing folder" in g.baseline_note


# -- strict claims ---------------------------------------------------------------------------


def test_strict_claims_downgrade_unverified_claims_under_the_same_budget(tmp_path: Path):
    g = EffectGate(EffectGateConfig(enabled=True, strict_claims=True, max_downgrades=1),
                   workspace=tmp_path, env={})  # fmt: skip
    g.reset(baseline=True)
    time.sleep(0.02)
    (tmp_path / "real.py").write_text("r")
    g.record([write(tmp_path / "real.py")])
    text = "I created real.py and ghost.py. All tests pass."
    out = g.apply(done(), task_type="edit", content=text)
    assert out.decision is RETRY
    assert out.reason == (
        "unverified-claim: created ghost.py (not found in the workspace); "
        "tests pass (no successful test run recorded)"
    )
    assert out.metadata["unverified_claims"] == ["created ghost.py", "tests pass"]
    assert "completion_without_effect" not in out.metadata
    again = g.apply(done(), task_type="edit", content=text)
    assert again.decision is COMPLETE and again.metadata["effect_gate_exhausted"] is True
    assert again.metadata["effect_gate"]["would_downgrade"] == "unverified-claim"


def test_strict_claims_that_hold_up_complete(tmp_path: Path):
    g = gate(tmp_path, strict_claims=True)
    (tmp_path / "real.py").write_text("r")
    g.record([write(tmp_path / "real.py"), PYTEST])
    out = g.apply(
        done(), task_type="edit", content="I created real.py and ran `pytest -q`. All tests pass."
    )
    assert out.decision is COMPLETE


def test_strict_claims_are_on_by_default_and_can_be_turned_off(tmp_path: Path):
    g = gate(tmp_path)
    g.record([PYTEST])
    out = g.apply(done(), task_type="edit", content="I created ghost.py.")
    assert out.decision is RETRY and out.reason.startswith("unverified-claim: created ghost.py")
    g = gate(tmp_path, strict_claims=False)
    g.record([PYTEST])
    assert g.apply(done(), task_type="edit", content="I created ghost.py.").decision is COMPLETE


def test_missing_effects_take_precedence_over_claims_in_the_reason(tmp_path: Path):
    g = gate(tmp_path, strict_claims=True)
    g.record([READ])
    out = g.apply(done(), task_type="edit", content="I created ghost.py.")
    assert out.reason.startswith("completion-without-effect:")
    assert out.metadata["effect_gate"]["unverified_claims"][0]["claim"] == "created ghost.py"


def test_a_baseline_captured_earlier_can_be_handed_to_reset(workspace: Path):
    saved = json.dumps(WorkspaceBaseline.capture(workspace).to_dict())  # session start
    time.sleep(0.02)
    g = EffectGate(EffectGateConfig(enabled=True), workspace=workspace, env={})  # stop hook
    g.reset(baseline=WorkspaceBaseline.from_dict(json.loads(saved)))
    g.record([write(workspace / "GOAL.md")])
    assert g.apply(done(), task_type="create").decision is RETRY
    (workspace / "GOAL.md").write_text("now really written, and longer than before\n")
    g.record([write(workspace / "GOAL.md")])
    assert g.apply(done(), task_type="create").decision is COMPLETE


def test_a_baseline_without_a_workspace_is_noted():
    g = EffectGate(EffectGateConfig(enabled=True), env={})
    g.reset(baseline=True)
    assert g.baseline_note == "no workspace given: no baseline"


# -- an honest "not done" is no completion claim ------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "I could not create newfile.py: writing is blocked by the read-only sandbox.",
        "I was unable to fix total() in app.py; the file is read-only.",
        "Nothing was changed. app.py was not found in the workspace.",
        "I didn't make the change: the patch did not apply.",
    ],
)
def test_an_honest_not_done_after_a_block_stands(content: str) -> None:
    g = gate()
    first = g.apply(done(), content="I created newfile.py.", request="create newfile.py")
    assert first.decision is RETRY
    out = g.apply(done(), content=content, request="create newfile.py")
    assert out.decision is COMPLETE
    assert out.metadata["effect_gate"]["not_a_completion"]
    assert g.downgrades == 1  # the budget is not spent on it


@pytest.mark.parametrize(
    "content",
    [
        "Done. I could not run the tests, though.",
        "I fixed app.py but could not run the tests.",
        "Done — I fixed the bug.",
        "Completed: total() no longer adds 1. I did not touch utils.py.",
        "The fix is ready; I couldn't run the linter.",
    ],
)
def test_a_claim_with_a_not_done_aside_is_still_downgraded(content: str) -> None:
    out = gate().apply(done(), content=content, request="fix the bug in app.py")
    assert out.decision is RETRY, content
    assert out.reason.startswith("completion-without-effect")


def test_record_the_port_into_a_new_file_needs_the_file(tmp_path: Path):
    # Victor's record-answer trap: the port told in chat, no PORT.txt written. Before, the
    # request gave no opinion and the read grounded "Done.": a COMPLETE with no file.
    request = (
        "config.yaml declares the service port. Record that port number, on its own, into a "
        "new file named PORT.txt in this directory."
    )
    g = gate(tmp_path)
    g.record([{"tool_name": "Read", "args": {"file_path": "config.yaml"}}])
    out = g.apply(done(), content="Done. The port is 8100.", request=request)
    assert out.decision is RETRY
    assert out.reason.startswith("completion-without-effect: expected a workspace_delta")
    (tmp_path / "PORT.txt").write_text("8100\n", encoding="utf-8")
    g.record([write(tmp_path / "PORT.txt")])
    assert g.apply(done(), content="Wrote 8100 to PORT.txt.", request=request).decision is COMPLETE
