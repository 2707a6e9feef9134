"""`earnest hook cursor` fed the hook payloads Cursor documents (tests/data/cursor-hooks).

Cursor is not on npm: it is not run here. Each test plays a conversation as Cursor's hooks
would see it — the payloads from Cursor's documentation and public hook projects (their
SOURCE.md), the workspace paths moved to a temporary project — through the real ``earnest hook
cursor`` process, and acts out on disk what the agent did (the edit an ``afterFileEdit``
reports is made first). The stop answers ``{"followup_message": ...}`` to re-prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_DATA, run_earnest

PAYLOADS = TEST_DATA / "cursor-hooks"
PLACE = "/path/to/project"
BUGGY = "const foo = 1\n"
WITHOUT_EFFECT = "completion-without-effect"


def payload(event: str, workspace: Path, **changes: Any) -> dict[str, Any]:
    text = (PAYLOADS / f"{event}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text.replace(PLACE, str(workspace)).replace(
        "/path/to/main.ts", str(workspace / "main.ts")))  # fmt: skip
    data.update(changes)
    return data


class Conversation:
    """One Cursor conversation, its hook calls made through ``earnest hook cursor``."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "project"
        self.workspace.mkdir()
        (self.workspace / "main.ts").write_text(BUGGY, encoding="utf-8")
        self.state = tmp_path / "state"
        self.followups: list[str] = []

    def send(self, event: str, **changes: Any) -> dict[str, Any]:
        data = payload(event, self.workspace, **changes)
        done = run_earnest(
            "hook", "cursor", input=json.dumps(data), env={"EARNEST_STATE_DIR": str(self.state)}
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        out: dict[str, Any] = json.loads(done.stdout)
        return out

    def prompt(self, text: str) -> None:
        assert self.send("beforeSubmitPrompt", prompt=text) == {"continue": True}

    def edit(self) -> None:
        (self.workspace / "main.ts").write_text("const foo = 2\n", encoding="utf-8")
        assert self.send("afterFileEdit") == {}

    def say(self, text: str) -> None:
        assert self.send("afterAgentResponse", text=text) == {}

    def stop(self, **changes: Any) -> dict[str, Any]:
        """A stop; a follow-up is submitted as the next prompt, as Cursor does."""
        out = self.send("stop", loop_count=len(self.followups), **changes)
        if "followup_message" in out:
            self.followups.append(out["followup_message"])
            self.prompt(out["followup_message"])
        return out


@pytest.fixture
def cursor(tmp_path: Path) -> Conversation:
    return Conversation(tmp_path)


def test_false_done_is_re_prompted_then_the_edit_is_allowed(cursor: Conversation) -> None:
    cursor.prompt("Fix the bug in main.ts")
    cursor.say("Done — I fixed the bug in main.ts.")
    first = cursor.stop()
    assert first["followup_message"].startswith(WITHOUT_EFFECT)
    cursor.edit()
    cursor.say("Fixed the bug in main.ts: foo is now 2.")
    assert cursor.stop() == {}
    assert len(cursor.followups) == 1


def test_real_done_is_not_re_prompted(cursor: Conversation) -> None:
    cursor.prompt("Fix the bug in main.ts")
    cursor.edit()
    cursor.say("Fixed the bug in main.ts: foo is now 2.")
    assert cursor.stop() == {}


def test_question_answered_is_not_re_prompted(cursor: Conversation) -> None:
    cursor.prompt("What is foo in main.ts?")
    cursor.say("foo is 1.")
    assert cursor.stop() == {}


def test_done_forever_is_re_prompted_max_downgrades_times_then_allowed(
    cursor: Conversation,
) -> None:
    cursor.prompt("Fix the bug in main.ts")
    outs = []
    for _ in range(4):
        cursor.say("Done — I fixed the bug.")
        outs.append(cursor.stop())
    assert ["followup_message" in o for o in outs] == [True, True, False, False]
    assert len(cursor.followups) == 2  # max_downgrades, earnest's own cap


def test_a_new_prompt_gets_a_fresh_budget(cursor: Conversation) -> None:
    cursor.prompt("Fix the bug in main.ts")
    for _ in range(3):
        cursor.say("Done — fixed.")
        cursor.stop()
    assert len(cursor.followups) == 2
    cursor.followups.clear()  # the user's own prompt: Cursor counts loop_count again
    cursor.prompt("Now fix foo in main.ts for real")
    cursor.say("Done — fixed main.ts.")
    assert "followup_message" in cursor.stop()


def test_no_follow_up_at_cursors_loop_limit(cursor: Conversation) -> None:
    cursor.prompt("Fix the bug in main.ts")
    cursor.say("Done — I fixed the bug in main.ts.")
    assert cursor.send("stop", loop_count=5) == {}  # Cursor would not submit it
    assert cursor.send("stop", loop_count=1, loop_limit=1) == {}
    assert "followup_message" in cursor.send("stop", loop_count=0)  # budget not spent


def test_aborted_and_error_stops_are_allowed(cursor: Conversation) -> None:
    cursor.prompt("Fix the bug in main.ts")
    cursor.say("Done — I fixed the bug in main.ts.")
    assert cursor.send("stop", status="aborted") == {}
    assert cursor.send("stop", status="error") == {}


def test_shell_and_mcp_events_are_recorded_and_read(cursor: Conversation) -> None:
    from earnest.hooks.cursor import log_path
    from earnest.hooks.state import StateStore
    from earnest.trajectory import detect_format, read_trajectories

    cursor.prompt("Fix the bug in main.ts")
    assert cursor.send("afterShellExecution") == {}
    assert cursor.send("afterMCPExecution") == {}
    cursor.edit()
    cursor.say("Fixed main.ts.")
    log = log_path(StateStore(cursor.state), "cdefee2d-2727-4b73-bf77-d9d830f31d2a")
    assert detect_format(log) == "cursor-hook-events"
    (t,) = read_trajectories(log)
    assert t.user_request == "Fix the bug in main.ts"
    assert [c.name for c in t.tool_calls] == ["Bash", "mcp__cursor__database_query", "Edit"]
    assert t.tool_calls[0].arguments["command"] == "npm install express"
    assert t.tool_calls[1].arguments == {"query": "SELECT * FROM users"}
    assert [(Path(e.path).name, e.kind) for e in t.file_edits] == [("main.ts", "modify")]
    assert t.final_message == "Fixed main.ts."
    assert t.metadata["cli_version"] == "2.0.77"


def test_a_new_prompt_starts_the_log_again_and_secrets_are_not_kept(
    cursor: Conversation,
) -> None:
    from earnest.hooks.cursor import log_path
    from earnest.hooks.state import StateStore

    key = "sk-ant-api03-" + "A" * 90
    cursor.prompt("Fix the bug in main.ts")
    cursor.send("afterShellExecution", output=f"ANTHROPIC_API_KEY={key}")
    cursor.prompt("second prompt")
    log = log_path(StateStore(cursor.state), "cdefee2d-2727-4b73-bf77-d9d830f31d2a")
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and "second prompt" in lines[0]
    cursor.send("afterShellExecution", output=f"ANTHROPIC_API_KEY={key}")
    assert key not in log.read_text(encoding="utf-8")
    assert log.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"conversation_id": None}, "conversation_id: missing"),
        ({"workspace_roots": "/tmp"}, "workspace_roots: must be a list of paths"),
        ({"loop_count": "2"}, "loop_count: must be a whole number"),
    ],
)
def test_bad_stop_input_is_reported_and_the_stop_allowed(
    cursor: Conversation, changes: dict[str, Any], says: str
) -> None:
    cursor.prompt("Fix the bug in main.ts")
    data = payload("stop", cursor.workspace, **changes)
    done = run_earnest(
        "hook", "cursor", input=json.dumps(data), env={"EARNEST_STATE_DIR": str(cursor.state)}
    )
    assert done.returncode == 0
    assert done.stdout == ""
    assert says in done.stderr and "stop allowed" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_stop_without_recorded_events_is_allowed_and_says_why(cursor: Conversation) -> None:
    data = payload("stop", cursor.workspace)
    done = run_earnest(
        "hook", "cursor", input=json.dumps(data), env={"EARNEST_STATE_DIR": str(cursor.state)}
    )
    assert done.returncode == 0 and done.stdout == ""
    assert "no Cursor events recorded" in done.stderr


# --- install ---------------------------------------------------------------------------


def test_install_merges_into_the_users_hooks_json_and_uninstall_restores_it(
    tmp_path: Path,
) -> None:
    project = tmp_path / "p"
    hooks = project / ".cursor" / "hooks.json"
    hooks.parent.mkdir(parents=True)
    original = (PAYLOADS / "hooks.json").read_text(encoding="utf-8")
    hooks.write_text(original, encoding="utf-8")
    done = run_earnest("hook", "install", "cursor", "--dir", str(project), "--format", "json")
    assert done.returncode == 0, done.stderr
    change = json.loads(done.stdout)
    assert change["changed"] and change["backup"]
    data = json.loads(hooks.read_text(encoding="utf-8"))
    assert data["version"] == 1
    stop = data["hooks"]["stop"]
    assert stop[0] == {"command": ".cursor/hooks/on-stop.sh", "loop_limit": 5}
    assert stop[1]["loop_limit"] == 5 and stop[1]["command"].endswith("hook cursor")
    assert data["hooks"]["beforeSubmitPrompt"][0] == {"command": "npm run lint"}
    assert set(data["hooks"]) >= {"afterShellExecution", "afterAgentResponse", "afterMCPExecution"}
    again = run_earnest("hook", "install", "cursor", "--dir", str(project), "--format", "json")
    assert json.loads(again.stdout)["changed"] is False
    gone = run_earnest("hook", "uninstall", "cursor", "--dir", str(project), "--format", "json")
    assert json.loads(gone.stdout)["removed"] == 6
    assert json.loads(hooks.read_text(encoding="utf-8")) == json.loads(original)


def test_install_refuses_invalid_json_and_leaves_it(tmp_path: Path) -> None:
    hooks = tmp_path / ".cursor" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text('{"version": 1, "hooks": {', encoding="utf-8")
    done = run_earnest("hook", "install", "cursor", "--dir", str(tmp_path))
    assert done.returncode == 2
    assert str(hooks) in done.stderr + done.stdout and "invalid JSON" in done.stderr + done.stdout
    assert hooks.read_text(encoding="utf-8") == '{"version": 1, "hooks": {'


def test_installed_command_runs_the_hook(tmp_path: Path) -> None:
    """The command written in hooks.json, run as Cursor runs it (a shell), answers a stop."""
    import subprocess

    project = tmp_path / "p"
    project.mkdir()
    (project / "main.ts").write_text(BUGGY, encoding="utf-8")
    done = run_earnest("hook", "install", "cursor", "--dir", str(project), "--format", "json")
    command = json.loads(done.stdout)["command"]
    env = {"EARNEST_STATE_DIR": str(tmp_path / "state"), "PATH": "/usr/bin:/bin"}
    for event, changes in [
        ("beforeSubmitPrompt", {}),
        ("afterAgentResponse", {"text": "Done — fixed main.ts."}),
        ("stop", {}),
    ]:
        data = payload(event, project, **changes)
        ran = subprocess.run(
            ["/bin/sh", "-c", command],
            input=json.dumps(data),
            capture_output=True,
            text=True,
            env=env,
            cwd=project,
            timeout=60,
        )
        assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["followup_message"].startswith(WITHOUT_EFFECT)
