"""`earnest hook qwen` as Qwen Code runs it, on a chat log the real Qwen Code 0.15.10 wrote.

Qwen sends ``stop_hook_active: true`` at every stop, the first one included (seen in the
real-CLI tier): the budget must come from earnest's own state.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, run_earnest

REAL_LOG = TRANSCRIPTS / "qwen-code" / "scenario-a-blocked-then-edit.jsonl"
WROTE_IN = "/tmp/realcli-qwen/test_a_done_without_edit_is_bl0/project"  # the tier's project
SESSION = "363b922b-6419-4879-9da0-f1be1051c7f0"
FIXED = "def total(xs):\n    return sum(xs)\n"


class QwenSession:
    """The real log, its paths moved to a fresh workspace; stops fed to ``earnest hook qwen``."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "project"
        self.workspace.mkdir()
        self.state = tmp_path / "state"
        self.log = tmp_path / "chats" / f"{SESSION}.jsonl"
        self.log.parent.mkdir()
        text = REAL_LOG.read_text(encoding="utf-8").replace(WROTE_IN, str(self.workspace))
        self.lines = text.splitlines()

    def write(self, upto: int, *more: dict[str, Any]) -> None:
        extra = [json.dumps(r) for r in more]
        self.log.write_text("\n".join([*self.lines[:upto], *extra]) + "\n", encoding="utf-8")

    def stop(self, last: str) -> dict[str, Any]:
        payload = {
            "session_id": SESSION,
            "transcript_path": str(self.log),
            "cwd": str(self.workspace),
            "hook_event_name": "Stop",
            "timestamp": "2026-12-07T03:10:00.000Z",
            "stop_hook_active": True,  # as Qwen sends it, every time
            "last_assistant_message": last,
        }
        done = run_earnest(
            "hook", "qwen", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(self.state)}
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        out: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
        return out


@pytest.fixture
def qwen(tmp_path: Path) -> QwenSession:
    return QwenSession(tmp_path)


def test_done_without_edit_blocked_then_the_logged_edit_allowed(qwen: QwenSession) -> None:
    qwen.write(4)  # the prompt and "Done — I fixed the bug in app.py."
    first = qwen.stop("Done — I fixed the bug in app.py.")
    assert first["decision"] == "block"
    assert first["reason"].startswith("completion-without-effect")
    (qwen.workspace / "app.py").write_text(FIXED, encoding="utf-8")
    qwen.write(len(qwen.lines))  # read_file, edit, "Fixed: ..."
    assert qwen.stop("Fixed: total() no longer adds 1.") == {}


def test_done_forever_is_capped_although_the_flag_is_always_set(qwen: QwenSession) -> None:
    qwen.write(4)
    said = "Done — I fixed the bug in app.py."
    assert [qwen.stop(said).get("decision") for _ in range(2)] == ["block", "block"]
    third = qwen.stop(said)
    assert "decision" not in third and "effect_gate_exhausted" in third["systemMessage"]


def test_a_new_prompt_gets_a_fresh_budget_although_the_flag_is_set(qwen: QwenSession) -> None:
    qwen.write(4)
    said = "Done — I fixed the bug in app.py."
    for _ in range(3):
        qwen.stop(said)  # block, block, exhausted
    base = json.loads(qwen.lines[0])
    prompt = {
        **base,
        "uuid": "u-2",
        "timestamp": "2026-12-07T03:11:00.000Z",
        "message": {"role": "user", "parts": [{"text": "now fix total() for real"}]},
    }
    answer = {**json.loads(qwen.lines[3]), "uuid": "a-2", "parentUuid": "u-2",
              "timestamp": "2026-12-07T03:11:01.000Z"}  # fmt: skip
    qwen.write(4, prompt, answer)
    assert qwen.stop(said)["decision"] == "block"


def test_unreadable_log_allows_with_a_line_on_stderr(qwen: QwenSession) -> None:
    payload = {"session_id": SESSION, "transcript_path": str(qwen.log), "cwd": str(qwen.workspace),
               "hook_event_name": "Stop", "stop_hook_active": True}  # fmt: skip
    done = run_earnest("hook", "qwen", input=json.dumps(payload),
                       env={"EARNEST_STATE_DIR": str(qwen.state)})  # fmt: skip
    assert done.returncode == 0 and done.stdout == ""
    assert "transcript not found" in done.stderr and "stop allowed" in done.stderr


def test_install_merges_into_qwen_settings_and_doctor_checks_it(tmp_path: Path) -> None:
    project, home = tmp_path / "proj", tmp_path / "home"
    (project / ".qwen").mkdir(parents=True)
    home.mkdir()
    settings = project / ".qwen" / "settings.json"
    mine = {"model": {"name": "qwen3-coder"}, "hooks": {"Stop": [{"hooks": [
        {"type": "command", "command": "echo mine"}]}]}}  # fmt: skip
    settings.write_text(json.dumps(mine), encoding="utf-8")
    env = {"HOME": str(home), "QWEN_HOME": "", "PATH": os.environ.get("PATH", "")}
    done = run_earnest("hook", "install", "qwen", "--format", "json", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["model"] == {"name": "qwen3-coder"}
    handlers = [h for g in data["hooks"]["Stop"] for h in g["hooks"]]
    assert handlers[0] == {"type": "command", "command": "echo mine"}
    ours = handlers[1]
    assert ours["timeout"] == 30000 and ours["name"] == "earnest-effect-gate"
    assert ours["command"].endswith("hook qwen")
    again = run_earnest("hook", "install", "qwen", "--format", "json", cwd=project, env=env)
    assert json.loads(again.stdout)["changed"] is False

    def doctor() -> tuple[int, dict[str, Any]]:
        ran = run_earnest("hook", "doctor", "qwen", "--format", "json", cwd=project, env=env)
        assert ran.returncode in (0, 1), ran.stderr
        (entry,) = json.loads(ran.stdout)
        return ran.returncode, {c["name"]: c["ok"] for c in entry["checks"]}

    code, checks = doctor()
    assert checks["qwen folder trust"] is True and checks["command"] is True
    # Folder trust on in the user settings, the project not trusted: the hook does not run.
    user = home / ".qwen" / "settings.json"
    user.parent.mkdir()
    user.write_text(json.dumps({"security": {"folderTrust": {"enabled": True}}}), "utf-8")
    code, checks = doctor()
    assert code == 1 and checks["qwen folder trust"] is False
    (home / ".qwen" / "trustedFolders.json").write_text(
        json.dumps({str(project): "TRUST_FOLDER"}), "utf-8"
    )
    code, checks = doctor()
    assert checks["qwen folder trust"] is True
    settings.write_text(json.dumps({**data, "disableAllHooks": True}), encoding="utf-8")
    code, checks = doctor()
    assert code == 1 and checks["qwen hooks enabled"] is False


BACKGROUND_LOG = TRANSCRIPTS / "qwen-code" / "qwen0.24.4-scenario-g-background-subagent.jsonl"
BACKGROUND_STOPS = TRANSCRIPTS.parent / "hooks" / "qwen-0.24.4-background-subagent-stop-inputs.json"
BACKGROUND_IN = "/tmp/h23x/g/test_g_fix_done_by_a_subagent_1/project"


def test_a_stop_while_a_background_subagent_runs_is_not_judged(tmp_path: Path) -> None:
    """Qwen 0.24 runs the subagent in the background; its stop inputs (the real ones, in
    order) list it ``running`` at the first stop. That one is not judged (before, it was blocked:
    the fix was still being made); the stop after it ended counts its edit."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "app.py").write_text(FIXED, encoding="utf-8")
    log = tmp_path / "chats" / "s.jsonl"
    log.parent.mkdir()
    log.write_text(
        BACKGROUND_LOG.read_text("utf-8").replace(BACKGROUND_IN, str(workspace)), "utf-8"
    )
    answers = []
    for payload in json.loads(BACKGROUND_STOPS.read_text("utf-8")):
        payload = {**payload, "transcript_path": str(log), "cwd": str(workspace)}
        done = run_earnest("hook", "qwen", input=json.dumps(payload),
                           env={"EARNEST_STATE_DIR": str(tmp_path / "state")})  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", done.stderr
        answers.append(json.loads(done.stdout) if done.stdout.strip() else {})
    running = [
        any(t.get("status") == "running" for t in p["background_tasks"])
        for p in json.loads(BACKGROUND_STOPS.read_text("utf-8"))
    ]
    assert running == [True, False]
    assert all("decision" not in a for a in answers), answers
    for answer, waiting in zip(answers, running, strict=True):
        assert ("background_subagents_running" in answer.get("systemMessage", "")) == waiting
