"""tau2-bench results files (written by tau2-bench itself: tests/data/trajectory/tau2-bench),
their end markers, and the user's tool declarations changing what the scorer sees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_DATA, run_earnest
from earnest.trajectory import ReadReport, read_trajectories
from earnest.trajectory.readers import detect_format

TAU2 = TEST_DATA / "trajectory" / "tau2-bench"
CANCEL = TAU2 / "airline-cancel-stop.json"
DECLARED = ["--tool", "cancel_reservation=state_change", "--tool", "get_reservation_details=read"]


def one(path: Path) -> Any:
    report = ReadReport()
    (trajectory,) = read_trajectories(path, report=report)
    assert not report.warnings
    return trajectory


@pytest.mark.parametrize(
    ("name", "reason", "marker"),
    [
        ("airline-cancel-stop", "normal", "###STOP###"),
        ("airline-claim-without-call", "normal", "###STOP###"),
        ("airline-upgrade-stop", "normal", "###STOP###"),
        ("airline-transfer", "normal", "###TRANSFER###"),
        ("retail-out-of-scope", "normal", "###OUT-OF-SCOPE###"),
        ("retail-max-steps", "max_turns", None),
    ],
)
def test_each_file_is_detected_and_ends_as_tau2_says(
    name: str, reason: str, marker: str | None
) -> None:
    path = TAU2 / f"{name}.json"
    assert detect_format(path) == "tau2-bench"
    t = one(path)
    assert t.format == "tau2-bench" and t.termination.reason == reason
    assert t.metadata.get("end_marker") == marker
    if marker is not None:
        assert marker in t.termination.detail
        assert all(marker not in m.text for m in t.messages)  # the closing turn is no request
    assert t.metadata["task_id"] in ("0", "26", "37")


def test_messages_and_calls_are_read() -> None:
    t = one(CANCEL)
    assert t.user_request == "Yes, please cancel it."
    assert [(c.name, c.outcome) for c in t.tool_calls] == [
        ("get_reservation_details", "success"),
        ("cancel_reservation", "success"),
    ]
    assert t.final_message.startswith("Your reservation NQNU5R has been cancelled")
    assert t.metadata["closing_user_message"] == "Thank you, that's all."
    failed = one(TAU2 / "retail-out-of-scope.json")
    assert [(c.name, c.outcome) for c in failed.tool_calls] == [("find_user_id_by_email", "error")]
    assert failed.tool_calls[0].output_excerpt == "Error: User not found"


def test_one_simulation_file_and_bad_entries(tmp_path: Path) -> None:
    data = json.loads(CANCEL.read_text())
    single = tmp_path / "3f2a.json"
    single.write_text(json.dumps(data["simulations"][0], indent=2))
    assert detect_format(single) == "tau2-bench"
    assert [c.name for c in one(single).tool_calls][-1] == "cancel_reservation"
    data["simulations"] = [7, {"id": "v", "task_id": "1", "termination_reason": "user_stop",
                               "ticks": []}, *data["simulations"]]  # fmt: skip
    broken = tmp_path / "results.json"
    broken.write_text(json.dumps(data))
    report = ReadReport()
    assert len(list(read_trajectories(broken, report=report))) == 1
    messages = [w.message for w in report.warnings]
    assert messages == ["simulations[0] is not an object",
                        "simulations[1]: a voice run with only ticks; not read"]  # fmt: skip


def score(*args: str, cwd: Path | None = None) -> dict[str, Any]:
    done = run_earnest("trajectory", "score", *args, "--format", "jsonl", "-d", "all", cwd=cwd)
    assert done.returncode == 0, done.stderr
    record: dict[str, Any] = json.loads(done.stdout)
    return record


def test_score_reads_tau2_and_declarations_change_what_it_sees(tmp_path: Path) -> None:
    plain = score(str(CANCEL))
    assert plain["outcome"] == "backed"
    assert plain["dimensions"]["effect_grounding"]["criteria"][2]["met"] is False
    declared = score(str(CANCEL), *DECLARED)
    grounding = declared["dimensions"]["effect_grounding"]
    assert grounding["criteria"][2] == {"name": "effect_observed", "met": True,
                                        "detail": "1 workspace change(s)"}  # fmt: skip
    assert declared["claims"]["verified"][0]["why"] == "a state-changing call in this run"
    assert declared["settings"]["tools"] == {"cancel_reservation": "action",
                                             "get_reservation_details": "read"}  # fmt: skip
    as_read = score(str(CANCEL), "--tool", "cancel_reservation=read")
    assert as_read["outcome"] == "completion_without_effect"
    # The same declaration from earnest.toml, in the current folder or named by --config.
    (tmp_path / "earnest.toml").write_text('[effects.tools]\ncancel_reservation = "read"\n')
    assert score(str(CANCEL), cwd=tmp_path)["outcome"] == "completion_without_effect"
    assert score(str(CANCEL), "--config", str(tmp_path))["outcome"] == "completion_without_effect"
    # --tool wins over the file.
    back = score(
        str(CANCEL), "--config", str(tmp_path), "--tool", "cancel_reservation=state_change"
    )
    assert back["outcome"] == "backed"


def test_replay_gate_honours_the_same_declarations() -> None:
    def final(*args: str) -> int:
        done = run_earnest("trajectory", "replay-gate", str(CANCEL), "--format", "json", *args)
        assert done.returncode == 0, done.stderr
        return int(json.loads(done.stdout)["summary"]["final_completion_without_effect"])

    assert final() == 0
    assert final("--tool", "cancel_reservation=read") == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--tool", "cancel_reservation"], "--tool: 'cancel_reservation': expected NAME=CLASS"),
        (["--tool", "x=mutation"], "unknown kind 'mutation'"),
        (["--config", "missing.toml"], "missing.toml: config file does not exist"),
    ],
)
def test_bad_declarations_exit_2(args: list[str], words: str, tmp_path: Path) -> None:
    done = run_earnest("trajectory", "score", str(CANCEL), *args, cwd=tmp_path)
    assert done.returncode == 2 and words in done.stderr
    assert "Traceback" not in done.stderr


def test_a_bad_effects_table_names_the_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "earnest.toml").write_text('[effects.tools]\ncancel_reservation = "mutation"\n')
    done = run_earnest("trajectory", "replay-gate", str(CANCEL), cwd=tmp_path)
    assert done.returncode == 2
    assert "earnest.toml: effects.tools.cancel_reservation: unknown kind 'mutation'" in done.stderr
