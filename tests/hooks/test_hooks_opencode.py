"""`earnest hook opencode` and `earnest hook install opencode`, on databases the real opencode
1.18.33 wrote (the session as it stood at each text the plugin had judged)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, run_earnest
from earnest.hooks.opencode_plugin import MARKER, installed_command

REPROMPTED = TRANSCRIPTS / "opencode" / "scenario-a-reprompted-then-edit.db"
FOREVER = TRANSCRIPTS / "opencode" / "scenario-c-done-forever.db"
WROTE_IN = {
    REPROMPTED: "/tmp/pytest-of-root/pytest-234/test_a_done_without_edit_is_re0/project",
    FOREVER: "/tmp/pytest-of-root/pytest-234/test_c_done_forever_is_repromp0/project",
}
REASON = "completion-without-effect: expected a workspace_delta"
FIXED = "def total(xs):\n    return sum(xs)\n"


class OpencodeSession:
    """A real database cut at a message, its paths moved to a fresh workspace."""

    def __init__(self, tmp_path: Path, source: Path) -> None:
        self.source = source
        self.workspace = tmp_path / "project"
        self.workspace.mkdir()
        (self.workspace / "app.py").write_text("def total(xs):\n    return sum(xs) + 1\n")
        self.data_home = tmp_path / "data"
        self.db = self.data_home / "opencode" / "opencode.db"
        self.db.parent.mkdir(parents=True)
        self.state = tmp_path / "state"
        con = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        self.session = con.execute("select id from session").fetchone()[0]
        self.messages = [
            r[0] for r in con.execute("select id from message order by time_created, id")
        ]
        con.close()

    def cut(self, upto: int) -> None:
        """The database as it stood with the first ``upto`` messages."""
        shutil.copyfile(self.source, self.db)
        con = sqlite3.connect(self.db)
        for gone in self.messages[upto:]:
            con.execute("delete from part where message_id = ?", (gone,))
            con.execute("delete from message where id = ?", (gone,))
        old = WROTE_IN[self.source]
        con.execute("update part set data = replace(data, ?, ?)", (old, str(self.workspace)))
        con.commit()
        con.close()

    def text(self, upto: int, last: str, **env: str) -> dict[str, Any]:
        self.cut(upto)
        payload = {
            "hook_event_name": "text.complete",
            "session_id": self.session,
            "message_id": self.messages[upto - 1],
            "part_id": "prt_x",
            "cwd": str(self.workspace),
            "last_assistant_message": last,
        }
        done = run_earnest(
            "hook", "opencode", input=json.dumps(payload),
            env={"EARNEST_STATE_DIR": str(self.state), "XDG_DATA_HOME": str(self.data_home),
                 **env},
        )  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", done.stderr
        out: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
        return out


def test_done_forever_is_reprompted_twice_then_let_go(tmp_path: Path) -> None:
    s = OpencodeSession(tmp_path, FOREVER)
    # Messages: prompt, "Done", reason, "Done", reason, "Done".
    first = s.text(2, "Done — I fixed the bug.")
    assert first["decision"] == "block" and first["reason"].startswith(REASON)
    second = s.text(4, "Done — I fixed the bug.")
    assert second["decision"] == "block"
    third = s.text(6, "Done — I fixed the bug.")
    assert "decision" not in third
    assert "effect_gate_exhausted" in third["systemMessage"]
    # And never again for this prompt, however often the model says it.
    assert "decision" not in s.text(6, "Done — I fixed the bug.")


def test_reprompted_then_fixed_is_allowed(tmp_path: Path) -> None:
    s = OpencodeSession(tmp_path, REPROMPTED)
    # Messages: prompt, "Done", reason, read, edit, "Fixed".
    assert s.text(2, "Done — I fixed the bug in app.py.")["decision"] == "block"
    (s.workspace / "app.py").write_text(FIXED)  # what the edit did
    assert s.text(6, "Fixed: total() no longer adds 1.") == {}


def test_a_text_followed_by_a_tool_call_is_not_judged(tmp_path: Path) -> None:
    s = OpencodeSession(tmp_path, REPROMPTED)
    # The read step: its assistant message already holds the tool call when its text ends.
    assert s.text(4, "Let me read app.py.") == {}
    assert not s.state.exists() or not any(s.state.iterdir())


def test_the_database_is_found_through_opencode_db(tmp_path: Path) -> None:
    s = OpencodeSession(tmp_path, FOREVER)
    s.cut(2)
    moved = tmp_path / "elsewhere.db"
    s.db.rename(moved)
    payload = {
        "hook_event_name": "text.complete", "session_id": s.session,
        "message_id": s.messages[1], "cwd": str(s.workspace),
        "last_assistant_message": "Done — I fixed the bug.",
    }  # fmt: skip
    done = run_earnest(
        "hook", "opencode", input=json.dumps(payload),
        env={"EARNEST_STATE_DIR": str(s.state), "XDG_DATA_HOME": str(tmp_path / "none"),
             "OPENCODE_DB": str(moved)},
    )  # fmt: skip
    assert done.returncode == 0 and json.loads(done.stdout)["decision"] == "block", done.stderr


def test_a_missing_database_allows_with_one_line(tmp_path: Path) -> None:
    payload = {
        "hook_event_name": "text.complete", "session_id": "ses_1", "message_id": "msg_1",
        "cwd": str(tmp_path), "last_assistant_message": "Done.",
    }  # fmt: skip
    done = run_earnest(
        "hook", "opencode", input=json.dumps(payload),
        env={"EARNEST_STATE_DIR": str(tmp_path / "state"), "XDG_DATA_HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.startswith("earnest hook opencode: ")
    assert "transcript not found" in done.stderr and done.stderr.endswith("stop allowed\n")
    assert "Traceback" not in done.stderr


# ------------------------------------------------------------------ install / uninstall


def install(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    return run_earnest("hook", *args, "opencode", "--format", "json", cwd=tmp_path, env=env)


def test_install_writes_one_plugin_beside_the_users_own(tmp_path: Path) -> None:
    plugins = tmp_path / ".opencode" / "plugins"
    plugins.mkdir(parents=True)
    mine = plugins / "mine.ts"
    mine.write_text("export const Mine = async () => ({})\n")
    done = install(tmp_path, "install", "--dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    change = json.loads(done.stdout)
    plugin = plugins / "earnest-effect-gate.js"
    assert change["settings"] == str(plugin) and change["changed"] is True
    assert change["events"] == ["experimental.text.complete"]
    text = plugin.read_text()
    assert text.startswith(MARKER)
    argv = installed_command(text)
    assert argv and Path(argv[0]).is_absolute() and argv[-2:] == ["hook", "opencode"]
    assert mine.read_text() == "export const Mine = async () => ({})\n"
    again = install(tmp_path, "install", "--dir", str(tmp_path))
    assert json.loads(again.stdout)["changed"] is False
    gone = install(tmp_path, "uninstall", "--dir", str(tmp_path))
    assert json.loads(gone.stdout)["removed"] == 1
    assert sorted(p.name for p in plugins.iterdir()) == ["mine.ts"]


def test_install_refuses_a_file_of_that_name_it_did_not_write(tmp_path: Path) -> None:
    plugin = tmp_path / ".opencode" / "plugins" / "earnest-effect-gate.js"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("// my own gate\n")
    done = install(tmp_path, "install", "--dir", str(tmp_path))
    assert done.returncode == 2
    assert str(plugin) in done.stderr and "did not write" in done.stderr
    assert "Traceback" not in done.stderr
    assert plugin.read_text() == "// my own gate\n"
    assert (
        json.loads(install(tmp_path, "uninstall", "--dir", str(tmp_path)).stdout)["changed"]
        is False
    )
    assert plugin.read_text() == "// my own gate\n"


def test_user_install_goes_where_opencode_looks(tmp_path: Path) -> None:
    done = install(tmp_path, "install", "--user")
    assert done.returncode == 0, done.stderr
    expected = tmp_path / "config" / "opencode" / "plugins" / "earnest-effect-gate.js"
    assert json.loads(done.stdout)["settings"] == str(expected) and expected.is_file()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_plugin_is_valid_javascript_that_exports_one_plugin(tmp_path: Path) -> None:
    install(tmp_path, "install", "--dir", str(tmp_path))
    plugin = tmp_path / ".opencode" / "plugins" / "earnest-effect-gate.js"
    module = tmp_path / "plugin.mjs"
    module.write_text(plugin.read_text())
    probe = (
        f"const m = await import({json.dumps(str(module))});"
        "const hooks = await m.EarnestEffectGate({client: {}, directory: '/'});"
        "console.log(JSON.stringify([Object.keys(m), Object.keys(hooks)]))"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", probe], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["EarnestEffectGate"], ["experimental.text.complete"]]


def test_install_doctor_uninstall_go_through_the_one_installer_registry(tmp_path: Path) -> None:
    """opencode's plugin file is installed, diagnosed and removed like Pi's extension: through
    earnest.hooks.settings.OWN_INSTALLERS, not a branch of the CLI."""
    from earnest.hooks.doctor import installed_entries
    from earnest.hooks.settings import install_hook, settings_path, uninstall_hook

    path = settings_path("opencode", "project", tmp_path)
    assert path == tmp_path / ".opencode" / "plugins" / "earnest-effect-gate.js"
    change = install_hook("opencode", path, command="/py -m earnest hook opencode")
    assert change.changed and path.is_file()
    assert installed_entries(path, "opencode") == [
        ("experimental.text.complete", 0, 0, "/py -m earnest hook opencode")
    ]
    assert uninstall_hook("opencode", path).changed and not path.exists()
