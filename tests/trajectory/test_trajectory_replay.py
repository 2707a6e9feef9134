"""Gate replay: runs, claim points, downgrades and budget exhaustion — hand-made and real."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import EXAMPLES, TRANSCRIPTS
from earnest.trajectory import (
    ReadReport,
    ReplayTally,
    Trajectory,
    iter_paths,
    read_trajectories,
    replay_trajectory,
)
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.replay import NO_WORKSPACE_NOTE

HOOK = "Stop hook feedback:\n[earnest]: completion-without-effect: expected a workspace_delta"


def session(*events: tuple[Any, ...], **terminate: str) -> Trajectory:
    """A trajectory from a compact script, fed through the readers' own builder.

    ``("prompt", text)``, ``("say", text)``, ``("call", name, args, is_error)``,
    ``("hook",)``, ``("interrupt",)``, ``("synthetic", text)``, ``("noise", text)``,
    ``("side_prompt", text)``, ``("side_call", name, args)``.
    """
    b = TrajectoryBuilder(id="s", source="s.jsonl", format="claude-code")
    n = 0
    for event in events:
        kind = event[0]
        if kind == "prompt":
            b.message("user", event[1], kind="prompt")
        elif kind == "say":
            b.new_turn()
            b.message("assistant", event[1])
        elif kind in ("call", "side_call"):
            b.new_turn()
            n += 1
            side = kind == "side_call"
            cid = b.tool_call(f"c{n}", event[1], event[2], sidechain=side)
            is_error = event[3] if len(event) > 3 else False
            b.tool_result(cid, is_error=is_error, output="Exit code 1" if is_error else "ok")
        elif kind == "hook":
            b.message("user", HOOK, kind="noise")
        elif kind == "interrupt":
            b.message("user", "[Request interrupted by user]", kind="interrupt")
        elif kind == "synthetic":
            b.message("assistant", event[1], kind="synthetic")
            b.signal("usage_limit", event[1])
        elif kind == "noise":
            b.message("user", event[1], kind="noise")
        elif kind == "side_prompt":
            b.message("user", event[1], kind="prompt", sidechain=True)
    if terminate:
        b.terminate(terminate["reason"])  # type: ignore[arg-type]
    return b.build()


EDIT = ("call", "Edit", {"file_path": "a.py", "old_string": "x", "new_string": "y"})
READ = ("call", "Read", {"file_path": "a.py"})


def test_one_backed_run() -> None:
    r = replay_trajectory(session(("prompt", "Fix the bug in a.py"), READ, EDIT, ("say", "Fixed.")))
    (run,) = r.runs
    assert run.end == "claim" and run.tool_calls == 2 and run.request == "Fix the bug in a.py"
    (claim,) = run.claims
    assert claim.outcome == "passed" and claim.place == "end_of_run"
    assert claim.expected_effect_class == "workspace_delta"
    assert claim.reason.startswith("workspace_delta: edit (a.py)") and "unverified" in claim.reason
    assert not r.completion_without_effect and r.final_claim is claim
    assert NO_WORKSPACE_NOTE in r.notes


def test_an_unbacked_claim_is_downgraded() -> None:
    r = replay_trajectory(session(("prompt", "Fix the bug in a.py"), READ, ("say", "Fixed it.")))
    claim = r.final_claim
    assert claim is not None and claim.outcome == "downgraded"
    assert claim.reason.startswith("completion-without-effect: expected a workspace_delta")
    assert claim.reason_key == (
        "completion-without-effect: expected workspace_delta; "
        "no change or check among the successful calls"
    )
    assert r.completion_without_effect and r.count("downgraded") == 1


def test_stop_hook_blocks_are_claims_and_the_budget_runs_out() -> None:
    t = session(
        ("prompt", "Fix the failing test"),
        ("call", "Bash", {"command": "pytest -q"}, True),
        ("say", "Fixed."),
        ("hook",),
        ("say", "Fixed, really."),
        ("hook",),
        ("say", "Done."),
        ("hook",),
        ("say", "All done."),
    )  # fmt: skip
    r = replay_trajectory(t)
    (run,) = r.runs
    assert [(c.place, c.outcome) for c in run.claims] == [
        ("stop_hook", "downgraded"),
        ("stop_hook", "downgraded"),
        ("stop_hook", "exhausted"),
        ("end_of_run", "exhausted"),
    ]
    assert [c.content for c in run.claims] == ["Fixed.", "Fixed, really.", "Done.", "All done."]
    assert "budget of 2 downgrades spent" in run.claims[-1].reason
    assert r.count("downgraded") == 2 and r.count("exhausted") == 2
    assert r.completion_without_effect  # the gate found no effect, whatever its budget said


def test_a_larger_budget_keeps_downgrading() -> None:
    t = session(
        ("prompt", "Fix the failing test"), ("say", "Fixed."), ("hook",), ("say", "Done."),
        ("hook",), ("say", "Done!"),
    )  # fmt: skip
    assert replay_trajectory(t, max_downgrades=5).count("downgraded") == 3
    assert replay_trajectory(t, max_downgrades=0).count("exhausted") == 3


def test_an_effect_after_a_block_satisfies_the_next_claim() -> None:
    r = replay_trajectory(
        session(("prompt", "Fix a.py"), ("say", "Fixed."), ("hook",), EDIT, ("say", "Now fixed."))
    )
    assert [c.outcome for c in r.claims] == ["downgraded", "passed"]
    assert not r.completion_without_effect and r.final_claim is r.claims[-1]


def test_each_prompt_is_a_run_and_resets_ledger_and_budget() -> None:
    t = session(
        ("prompt", "Fix a.py"),
        ("say", "Done."),
        ("hook",),
        ("say", "Done."),
        ("hook",),
        EDIT,
        ("say", "Fixed a.py."),
        ("prompt", "Now add a test for it"),
        ("say", "Added the test."),
    )  # fmt: skip
    r = replay_trajectory(t)
    first, second = r.runs
    assert [c.outcome for c in first.claims] == ["downgraded", "downgraded", "passed"]
    # The edit of run 1 does not back run 2's claim, and run 2 has a fresh budget.
    assert [c.outcome for c in second.claims] == ["downgraded"]
    assert second.request == "Now add a test for it" and second.tool_calls == 0
    assert r.completion_without_effect


def test_intermediate_runs_that_did_not_end_with_the_agent_claim_nothing() -> None:
    t = session(
        ("prompt", "Fix a.py"),
        READ,  # the user spoke while the agent worked
        ("prompt", "Stop, fix b.py instead"),
        READ,
        ("say", "Looking"),
        ("interrupt",),
        ("prompt", "Try again"),
        ("synthetic", "You've hit your limit"),
        ("prompt", "What is in a.py?"),
        READ,
        ("say", "It defines parse()."),
    )  # fmt: skip
    r = replay_trajectory(t)
    assert [run.end for run in r.runs] == ["cut", "interrupted", "usage_limit", "claim"]
    assert [len(run.claims) for run in r.runs] == [0, 0, 0, 1]
    final = r.final_claim
    assert final is not None and final.outcome == "passed"
    assert final.expected_effect_class == "grounded_claim" and "read_evidence" in final.reason


def test_an_abnormal_end_claims_nothing() -> None:
    r = replay_trajectory(
        session(("prompt", "Fix a.py"), READ, ("say", "Working on it"), reason="max_turns")
    )
    (run,) = r.runs
    assert run.end == "max_turns" and run.claims == () and r.final_claim is None
    assert not r.completion_without_effect


def test_a_direct_answer_with_no_tools_is_grounded() -> None:
    r = replay_trajectory(session(("prompt", "hi"), ("say", "Hello! How can I help?")))
    assert r.final_claim is not None and r.final_claim.outcome == "passed"
    assert r.final_claim.reason == "grounded claim (direct_answer_no_tools)"


def test_subagent_messages_do_not_split_runs_but_their_effects_count() -> None:
    r = replay_trajectory(
        session(
            ("prompt", "Create notes.md"),
            ("call", "Task", {"prompt": "write notes.md"}),
            ("side_prompt", "write notes.md"),
            ("side_call", "Write", {"file_path": "notes.md"}),
            ("say", "Created notes.md."),
        )
    )
    (run,) = r.runs
    assert run.tool_calls == 2 and [c.outcome for c in run.claims] == ["passed"]


def test_copied_history_is_replayed_once(tmp_path: Path) -> None:
    # Claude Code re-writes a resumed conversation: same messages and timestamps; its tool
    # calls are read once, so the copies must not become runs with no tool calls.
    b = TrajectoryBuilder(id="s", source="s.jsonl", format="claude-code")
    for _ in range(2):
        b.message("user", "commit!", kind="prompt", timestamp="2026-01-01T00:00:00Z")
        b.new_turn()
        b.tool_call("c1", "Bash", {"command": "git commit -m x"})
        b.tool_result("c1", is_error=False, output="[main abc] x")
        b.message("assistant", "Committed.", timestamp="2026-01-01T00:00:05Z")
    r = replay_trajectory(b.build())
    assert len(r.runs) == 1 and [c.outcome for c in r.claims] == ["passed"]


def test_without_positions_the_trajectory_is_one_run() -> None:
    t = session(
        ("prompt", "Fix a.py"), EDIT, ("say", "Done."), ("prompt", "thanks"), ("say", "Welcome")
    )
    record = t.to_dict()
    for c in record["tool_calls"]:
        del c["position"]  # an earnest/1 record written before positions existed
    old = Trajectory.from_dict(record)
    r = replay_trajectory(old)
    assert not r.ordered and len(r.runs) == 1 and r.runs[0].tool_calls == 1
    assert [c.outcome for c in r.claims] == ["passed"]
    assert any("replayed as one run" in n for n in r.notes)


def test_the_tally() -> None:
    tally = ReplayTally()
    tally.add(replay_trajectory(session(("prompt", "Fix a.py"), ("say", "Done."))))
    tally.add(replay_trajectory(session(("prompt", "hi"), ("say", "Hello"))))
    tally.add(replay_trajectory(session(("prompt", "Fix a.py"), READ, reason="api_error")))
    s = tally.to_dict()
    assert (s["trajectories"], s["runs"], s["claims"]) == (3, 3, 2)
    assert (s["passed"], s["downgraded"], s["exhausted"]) == (1, 1, 0)
    assert s["run_ends"] == {"claim": 2, "api_error": 1}
    assert s["reasons"] == {"completion-without-effect: expected workspace_delta; no tool calls": 1}
    assert s["final_completion_without_effect"] == 1 and s["workspace"] == "none"


# -- real transcripts --------------------------------------------------------------------------


def real(path: Path) -> Trajectory:
    (t, *_) = read_trajectories(path, report=ReadReport())
    return t


def test_real_stop_hook_session_claims_three_times_and_passes() -> None:
    r = replay_trajectory(real(TRANSCRIPTS / "claude-code/drmaciver-coverage-test-fix.jsonl"))
    assert [(c.place, c.outcome) for c in r.claims] == [
        ("stop_hook", "passed"),
        ("stop_hook", "passed"),
        ("end_of_run", "passed"),
    ]
    assert r.claims[0].content.startswith("Done. I've added")


def test_real_refused_write_is_downgraded() -> None:
    r = replay_trajectory(real(TRANSCRIPTS / "claude-code/kimuson-1af7fc5e-init-empty-repo.jsonl"))
    assert r.final_claim is not None and r.final_claim.outcome == "downgraded"
    assert r.final_claim.expected_effect_class == "workspace_delta"
    assert r.completion_without_effect


def test_real_abnormal_runs_claim_nothing() -> None:
    for relative, reason in (
        ("claude-code/mclaude-412e2513-f75c--only-api-errors.jsonl", "api_error"),
        ("claude-stream-json/perfectsnake-4873604-claude-stream.jsonl", "max_turns"),
        ("claude-code/mclaude-554b9fa6-f719--sisyphus-plan-many-errors.jsonl", "usage_limit"),
    ):
        r = replay_trajectory(real(TRANSCRIPTS / relative))
        assert r.termination == reason and r.final_claim is None, relative
        assert r.runs[-1].end == reason and not r.completion_without_effect


def test_real_resumed_session_commit_run_is_backed() -> None:
    t = real(TRANSCRIPTS / "claude-code/moredip-fixture-general-tool-calls.jsonl")
    r = replay_trajectory(t)
    commit = [run for run in r.runs if run.request == "commit!"]
    assert len(commit) == 1  # the copied history is not a second run
    assert commit[0].tool_calls > 0 and [c.outcome for c in commit[0].claims] == ["passed"]


def test_real_multi_prompt_session_is_split_into_runs() -> None:
    r = replay_trajectory(
        real(TRANSCRIPTS / "claude-code/mclaude-57bb5674-54b1--tmux-QA-then-sync-push.jsonl")
    )
    assert len(r.runs) >= 3 and "interrupted" in {run.end for run in r.runs}
    assert sum(run.tool_calls for run in r.runs) == len(
        real(
            TRANSCRIPTS / "claude-code/mclaude-57bb5674-54b1--tmux-QA-then-sync-push.jsonl"
        ).tool_calls
    )


def test_bundled_examples_replay() -> None:
    tally = ReplayTally()
    for path in iter_paths([EXAMPLES / "trajectories"]):
        for t in read_trajectories(path, report=ReadReport()):
            tally.add(replay_trajectory(t))
    s = tally.to_dict()
    assert s["trajectories"] == 12
    assert (s["downgraded"], s["exhausted"], s["runs_exhausted"]) == (3, 2, 1)
    assert s["final_completion_without_effect"] == 2
    assert s["by_place"]["stop_hook"] == {"passed": 3, "downgraded": 2, "exhausted": 1}


def test_every_real_transcript_replays_and_every_call_is_recorded_once() -> None:
    seen = 0
    for path in iter_paths([TRANSCRIPTS]):
        for t in read_trajectories(path, report=ReadReport()):
            r = replay_trajectory(t)
            assert sum(run.tool_calls for run in r.runs) == len(t.tool_calls), path
            if r.completion_without_effect:
                assert t.termination.is_normal and t.claimed_completion, path
            if not t.termination.is_normal:
                assert r.final_claim is None, path
            seen += 1
    # trajectories in the curated set (tau-bench: 13 in one file; opencode 1.1.65 storage: 2)
    assert seen == 90
