"""`earnest hook pi` and `earnest hook install pi`, on sessions the real Pi 0.73.1 wrote.

Pi has no ``stop_hook_active``: the budget comes from earnest's own state, and the reason the
extension queued comes back as a user message that must not count as a new prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, run_earnest
from earnest.hooks import pi_install

FIXED_LOG = TRANSCRIPTS / "pi" / "false-done-then-fixed.jsonl"
FOREVER_LOG = TRANSCRIPTS / "pi" / "done-forever-exhausted.jsonl"
SESSION = "01a24eea-3e11-71b0-b5c9-c00742731800"


class PiSession:
    """The real session, cut at a stop and its paths moved; stops fed to ``earnest hook pi``."""

    def __init__(self, tmp_path: Path, log: Path) -> None:
        self.workspace = tmp_path / "project"
        self.workspace.mkdir()
        self.state = tmp_path / "state"
        self.path = tmp_path / "sessions" / f"x_{SESSION}.jsonl"
        self.path.parent.mkdir()
        text = log.read_text(encoding="utf-8")
        cwd = json.loads(text.splitlines()[0])["cwd"]
        self.lines = text.replace(cwd, str(self.workspace)).splitlines()

    def stop(self, upto: int, last: str) -> dict[str, Any]:
        self.path.write_text("\n".join(self.lines[:upto]) + "\n", encoding="utf-8")
        payload = {
            "hook_event_name": "turn_end",
            "session_id": SESSION,
            "transcript_path": str(self.path),
            "cwd": str(self.workspace),
            "last_assistant_message": last,
        }
        done = run_earnest(
            "hook", "pi", input=json.dumps(payload), env={"EARNEST_STATE_DIR": str(self.state)}
        )
        assert done.returncode == 0 and done.stderr == "", done.stderr
        out: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
        return out


def test_false_done_blocked_then_the_edit_allowed(tmp_path: Path) -> None:
    pi = PiSession(tmp_path, FIXED_LOG)
    (pi.workspace / "app.py").write_text("def total(xs):\n    return sum(xs) + 1\n", "utf-8")
    first = pi.stop(5, "Done - I fixed the bug in app.py.")  # header, 2 settings, prompt, "Done"
    assert first["decision"] == "block"
    assert first["reason"].startswith("completion-without-effect")
    (pi.workspace / "app.py").write_text("def total(xs):\n    return sum(xs)\n", "utf-8")
    assert pi.stop(len(pi.lines), "Fixed: total() no longer adds 1.") == {}


def test_done_forever_is_blocked_max_downgrades_times(tmp_path: Path) -> None:
    pi = PiSession(tmp_path, FOREVER_LOG)
    # The three "Done" stops of the real run: after each, the session as it was then.
    ends = [i + 1 for i, line in enumerate(pi.lines) if '"role":"assistant"' in line]
    outs = [pi.stop(end, "Done — I fixed the bug.") for end in ends]
    assert [o.get("decision", "allow") for o in outs] == ["block", "block", "allow"]
    assert "effect_gate_exhausted" in outs[2]["systemMessage"]


def test_no_session_file_is_reported_and_the_stop_allowed(tmp_path: Path) -> None:
    payload = {"hook_event_name": "turn_end", "session_id": "s", "cwd": str(tmp_path)}
    done = run_earnest("hook", "pi", input=json.dumps(payload))
    assert done.returncode == 0 and done.stdout == ""
    assert "transcript_path: missing" in done.stderr and "stop allowed" in done.stderr


# --- install ---------------------------------------------------------------------------


def test_install_writes_one_file_of_its_own_and_keeps_the_others(tmp_path: Path) -> None:
    folder = tmp_path / ".pi" / "extensions"
    folder.mkdir(parents=True)
    mine = folder / "mine.ts"
    mine.write_text("export default function (pi) {}\n", encoding="utf-8")
    done = run_earnest("hook", "install", "pi", "--dir", str(tmp_path), "--format", "json")
    assert done.returncode == 0, done.stderr
    change = json.loads(done.stdout)
    path = Path(change["settings"])
    assert path == folder / "earnest-effect-gate.ts" and change["events"] == ["turn_end"]
    text = path.read_text(encoding="utf-8")
    assert text.startswith(pi_install.MARKER + pi_install.EXTENSION_VERSION)
    assert pi_install.installed_command(text) == change["command"]
    assert 'deliverAs: "followUp"' in text and '"turn_end"' in text
    again = run_earnest("hook", "install", "pi", "--dir", str(tmp_path), "--format", "json")
    assert json.loads(again.stdout)["changed"] is False
    other = run_earnest(
        "hook", "install", "pi", "--dir", str(tmp_path), "--command", "earnest hook pi",
        "--format", "json",
    )  # fmt: skip
    assert json.loads(other.stdout)["backup"]  # replaced, the previous file kept
    assert pi_install.installed_command(path.read_text(encoding="utf-8")) == "earnest hook pi"
    gone = run_earnest("hook", "uninstall", "pi", "--dir", str(tmp_path), "--format", "json")
    assert json.loads(gone.stdout)["removed"] == 1
    assert not path.exists()
    assert mine.read_text(encoding="utf-8") == "export default function (pi) {}\n"
    assert sorted(p.name for p in folder.glob("*.ts")) == ["mine.ts"]


def test_install_refuses_a_file_of_that_name_earnest_did_not_write(tmp_path: Path) -> None:
    path = tmp_path / ".pi" / "extensions" / "earnest-effect-gate.ts"
    path.parent.mkdir(parents=True)
    path.write_text("// mine\n", encoding="utf-8")
    done = run_earnest("hook", "install", "pi", "--dir", str(tmp_path))
    assert done.returncode == 2
    assert str(path) in done.stderr + done.stdout
    assert "not earnest's extension" in done.stderr + done.stdout
    assert path.read_text(encoding="utf-8") == "// mine\n"
    gone = run_earnest("hook", "uninstall", "pi", "--dir", str(tmp_path), "--format", "json")
    assert json.loads(gone.stdout)["changed"] is False and path.exists()


@pytest.mark.parametrize("agent_dir", [None, "custom"])
def test_user_install_goes_where_pi_looks(tmp_path: Path, agent_dir: str | None) -> None:
    env = {"HOME": str(tmp_path)}
    if agent_dir:
        env["PI_CODING_AGENT_DIR"] = str(tmp_path / agent_dir)
    done = run_earnest("hook", "install", "pi", "--user", "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    base = tmp_path / agent_dir if agent_dir else tmp_path / ".pi" / "agent"
    assert json.loads(done.stdout)["settings"] == str(
        base / "extensions" / "earnest-effect-gate.ts"
    )
