"""`earnest hook copilot` as GitHub Copilot CLI runs it, on a session log the real Copilot CLI
1.0.102 wrote (tests/data/transcripts/copilot-cli), with both stdin shapes it sends: the
``agentStop`` key's (``sessionId``, ``transcriptPath``, epoch-ms ``timestamp``) and the
``Stop`` key's Claude-shaped one."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, run_earnest

REAL_LOG = TRANSCRIPTS / "copilot-cli" / "scenario-a-blocked-then-edit.jsonl"
WROTE_IN = "/tmp/realcli-copilot/test_a_done_without_edit_is_bl0/project"  # the tier's project
SESSION = "36f7a757-87d6-4a9e-ab7f-7ebc2a0e2b80"
FIXED = "def total(xs):\n    return sum(xs)\n"
DONE_AT = 6  # lines up to the first "Done" (before hook.start)
HOOK_AT = DONE_AT + 2  # ... and the first stop's own hook.start, which the hook waits for


class CopilotSession:
    """The real log, its paths moved to a fresh workspace; stops fed to ``earnest hook copilot``."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "project"
        self.workspace.mkdir()
        self.state = tmp_path / "state"
        self.log = tmp_path / "session-state" / SESSION / "events.jsonl"
        self.log.parent.mkdir(parents=True)
        text = REAL_LOG.read_text(encoding="utf-8").replace(WROTE_IN, str(self.workspace))
        self.lines = text.splitlines()

    def write(self, upto: int) -> None:
        self.log.write_text("\n".join(self.lines[:upto]) + "\n", encoding="utf-8")
        starts = [json.loads(line) for line in self.lines[:upto] if '"hook.start"' in line]
        self.stamp: int = starts[-1]["data"]["input"]["timestamp"] if starts else 0

    def iso_stamp(self) -> str:
        moment = datetime.fromtimestamp(self.stamp / 1000, UTC)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def stop(self, active: bool, *, claude_shaped: bool = False) -> dict[str, Any]:
        if claude_shaped:
            payload: dict[str, Any] = {
                "hook_event_name": "Stop", "session_id": SESSION,
                "timestamp": self.iso_stamp(), "cwd": str(self.workspace),
                "transcript_path": str(self.log), "stop_reason": "end_turn",
                "stop_hook_active": active,
            }  # fmt: skip
        else:
            payload = {
                "sessionId": SESSION, "timestamp": self.stamp, "cwd": str(self.workspace),
                "transcriptPath": str(self.log), "stopReason": "end_turn",
                "stop_hook_active": active,
            }  # fmt: skip
        done = run_earnest(
            "hook", "copilot", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(self.state)}
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        out: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
        return out


@pytest.fixture
def copilot(tmp_path: Path) -> CopilotSession:
    return CopilotSession(tmp_path)


def test_log_holds_the_first_done_where_the_hook_ran(copilot: CopilotSession) -> None:
    assert json.loads(copilot.lines[DONE_AT - 1])["type"] == "assistant.message"
    assert json.loads(copilot.lines[DONE_AT + 1])["type"] == "hook.start"


@pytest.mark.parametrize("claude_shaped", [False, True])
def test_done_without_edit_blocked_then_the_logged_edit_allowed(
    copilot: CopilotSession, claude_shaped: bool
) -> None:
    copilot.write(HOOK_AT)
    first = copilot.stop(False, claude_shaped=claude_shaped)
    assert first["decision"] == "block"
    assert first["reason"].startswith("completion-without-effect")
    (copilot.workspace / "app.py").write_text(FIXED, encoding="utf-8")
    copilot.write(len(copilot.lines))  # the reason as a user.message, view, edit, "Fixed: ..."
    assert copilot.stop(True, claude_shaped=claude_shaped) == {}


def test_done_forever_is_capped_by_earnest_before_copilots_own_cap(
    copilot: CopilotSession,
) -> None:
    copilot.write(HOOK_AT)
    assert copilot.stop(False)["decision"] == "block"
    assert copilot.stop(True)["decision"] == "block"
    third = copilot.stop(True)
    assert "decision" not in third and "effect_gate_exhausted" in third["systemMessage"]


def test_unreadable_log_allows_with_a_line_on_stderr(copilot: CopilotSession) -> None:
    payload = {"sessionId": SESSION, "transcriptPath": str(copilot.log),
               "cwd": str(copilot.workspace), "stop_hook_active": False}  # fmt: skip
    done = run_earnest("hook", "copilot", input=json.dumps(payload),
                       env={"EARNEST_STATE_DIR": str(copilot.state)})  # fmt: skip
    assert done.returncode == 0 and done.stdout == ""
    assert "transcript not found" in done.stderr and "stop allowed" in done.stderr


def test_missing_transcript_path_allows_naming_the_field(copilot: CopilotSession) -> None:
    payload = {"sessionId": SESSION, "cwd": str(copilot.workspace)}
    done = run_earnest("hook", "copilot", input=json.dumps(payload),
                       env={"EARNEST_STATE_DIR": str(copilot.state)})  # fmt: skip
    assert done.returncode == 0 and done.stdout == ""
    assert "transcript_path" in done.stderr and "stop allowed" in done.stderr


def test_install_merges_into_copilots_hook_file_and_doctor_checks_trust(tmp_path: Path) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".github" / "hooks").mkdir(parents=True)
    home.mkdir()
    hooks = project / ".github" / "hooks" / "earnest.json"
    mine = {"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "echo mine"}],
                                    "sessionStart": [{"type": "command", "bash": "echo hi"}]}}  # fmt: skip
    hooks.write_text(json.dumps(mine), encoding="utf-8")
    env = {"HOME": str(home), "COPILOT_HOME": "", "PATH": os.environ.get("PATH", "")}
    done = run_earnest("hook", "install", "copilot", "--format", "json", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(hooks.read_text(encoding="utf-8"))
    assert data["version"] == 1
    assert data["hooks"]["sessionStart"] == [{"type": "command", "bash": "echo hi"}]
    theirs, ours = data["hooks"]["agentStop"]
    assert theirs == {"type": "command", "bash": "echo mine"}
    assert ours["type"] == "command" and ours["timeoutSec"] == 30
    assert ours["bash"].endswith("hook copilot") and "command" not in ours
    again = run_earnest("hook", "install", "copilot", "--format", "json", cwd=project, env=env)
    assert json.loads(again.stdout)["changed"] is False

    def doctor(extra: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        ran = run_earnest("hook", "doctor", "copilot", "--format", "json", cwd=project,
                          env={**env, **(extra or {})})  # fmt: skip
        assert ran.returncode in (0, 1), ran.stderr
        (entry,) = json.loads(ran.stdout)
        return ran.returncode, {c["name"]: c["ok"] for c in entry["checks"]}

    # Not trusted: `copilot -p` runs the hook only with --trust-folder, so "unknown".
    code, checks = doctor()
    assert code == 0  # "unknown" is no failure: the hook runs in a trusted `copilot -p`
    assert checks["copilot folder trust"] is None and checks["command"] is True
    _, checks = doctor({"COPILOT_ALLOW_ALL": "true"})
    assert checks["copilot folder trust"] is True
    config = home / ".copilot" / "config.json"
    config.parent.mkdir()
    config.write_text(
        "// User settings belong in settings.json.\n// This file is managed automatically.\n"
        + json.dumps({"trustedFolders": [str(project)]}),
        encoding="utf-8",
    )
    _, checks = doctor()
    assert checks["copilot folder trust"] is True

    gone = run_earnest("hook", "uninstall", "copilot", "--format", "json", cwd=project, env=env)
    assert json.loads(gone.stdout)["removed"] == 1
    assert json.loads(hooks.read_text(encoding="utf-8")) == mine


def test_install_says_what_trusting_the_folder_means(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "COPILOT_HOME": "", "PATH": os.environ.get("PATH", "")}
    done = run_earnest("hook", "install", "copilot", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert "--trust-folder" in done.stdout and "COPILOT_ALLOW_ALL=true" in done.stdout
    assert (tmp_path / ".github" / "hooks" / "earnest.json").is_file()


def test_user_install_honours_copilot_home(tmp_path: Path) -> None:
    home, copilot_home = tmp_path / "home", tmp_path / "ch"
    home.mkdir()
    env = {"HOME": str(home), "COPILOT_HOME": str(copilot_home),
           "PATH": os.environ.get("PATH", "")}  # fmt: skip
    done = run_earnest("hook", "install", "copilot", "--user", "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["settings"] == str(copilot_home / "hooks" / "earnest.json")
    ran = run_earnest("hook", "doctor", "copilot", "--format", "json", cwd=tmp_path, env=env)
    (entry,) = json.loads(ran.stdout)
    assert entry["scope"] == "user"
    assert "copilot folder trust" not in {c["name"] for c in entry["checks"]}


def test_bad_hook_file_is_refused_and_left_untouched(tmp_path: Path) -> None:
    hooks = tmp_path / ".github" / "hooks" / "earnest.json"
    hooks.parent.mkdir(parents=True)
    hooks.write_text('{"version": 1, "hooks": {"agentStop": {}}}', encoding="utf-8")
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "")}
    done = run_earnest("hook", "install", "copilot", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert "hooks.agentStop" in done.stderr + done.stdout and "Traceback" not in done.stderr
    assert hooks.read_text(encoding="utf-8") == '{"version": 1, "hooks": {"agentStop": {}}}'
