"""`earnest hook install|uninstall`: merge, backup, idempotence, refusal of bad JSON."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from conftest import run_earnest
from earnest.hooks.settings import HOOK_BOOTSTRAP, is_earnest_command

OTHER_STOP = {"type": "command", "command": "/usr/local/bin/notify-done", "timeout": 5}
EXISTING = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {
        "Stop": [{"hooks": [OTHER_STOP]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}],
    },
}
CMD = "earnest hook claude-code"


def _install(*args: str, cwd: Path, home: Path) -> tuple[int, str, str]:
    r = run_earnest("hook", "install", *args, cwd=cwd, env={"HOME": str(home)})
    return r.returncode, r.stdout, r.stderr


def _uninstall(*args: str, cwd: Path, home: Path) -> tuple[int, str, str]:
    r = run_earnest("hook", "uninstall", *args, cwd=cwd, env={"HOME": str(home)})
    return r.returncode, r.stdout, r.stderr


def _backups(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.bak-*"))


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    return project, home


def test_project_install_creates_stop_and_subagent_stop(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    code, out, err = _install("claude-code", "--command", CMD, cwd=project, home=home)
    assert code == 0, err
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    for event in ("Stop", "SubagentStop"):
        assert settings["hooks"][event] == [
            {"hooks": [{"type": "command", "command": CMD, "timeout": 30}]}
        ]
    assert "installed" in out
    assert not (home / ".claude").exists()
    assert _backups(project / ".claude") == []  # nothing existed, nothing to back up


def test_install_merges_keeps_everything_and_backs_up(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    original = json.dumps(EXISTING, indent=4)
    path.write_text(original)
    code, _, err = _install(
        "claude-code", "--dir", str(project), "--command", CMD, cwd=home, home=home
    )
    assert code == 0, err
    data = json.loads(path.read_text())
    assert data["model"] == "opus"
    assert data["permissions"] == EXISTING["permissions"]
    assert data["hooks"]["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    stop = data["hooks"]["Stop"]
    assert stop[0] == {"hooks": [OTHER_STOP]}
    assert [h["command"] for g in stop for h in g["hooks"]] == [OTHER_STOP["command"], CMD]
    backups = _backups(path.parent)
    assert len(backups) == 1 and backups[0].read_text() == original


def test_install_twice_adds_one_entry_and_writes_nothing(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps(EXISTING))
    assert _install("claude-code", "--command", CMD, cwd=project, home=home)[0] == 0
    first = path.read_bytes()
    code, out, _ = _install("claude-code", "--command", CMD, cwd=project, home=home)
    assert code == 0 and "no change" in out
    assert path.read_bytes() == first
    data = json.loads(first)
    ours = [h for g in data["hooks"]["Stop"] for h in g["hooks"] if h["command"] == CMD]
    assert len(ours) == 1
    assert len(_backups(path.parent)) == 1  # only the first install wrote


def test_reinstall_with_another_spelling_updates_in_place(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    _install("claude-code", "--command", CMD, cwd=project, home=home)
    other = "/opt/venv/bin/python -m earnest hook claude-code"
    assert _install("claude-code", "--command", other, cwd=project, home=home)[0] == 0
    data = json.loads((project / ".claude" / "settings.json").read_text())
    assert [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]] == [other]


def test_invalid_json_is_refused_and_file_untouched(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    broken = '{\n  "model": "opus",\n  "hooks": {,\n}\n'
    path.write_text(broken)
    before = path.stat().st_mtime_ns
    code, _out, err = _install("claude-code", cwd=project, home=home)
    assert code == 2
    assert str(path) in err and "line 3, column 13" in err and "invalid JSON" in err
    assert "Traceback" not in err
    assert path.read_text() == broken and path.stat().st_mtime_ns == before
    assert _backups(path.parent) == []


def test_hooks_that_is_not_an_object_is_refused(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": []}')
    code, _, err = _install("claude-code", cwd=project, home=home)
    assert code == 2 and "hooks: must be a JSON object" in err
    assert path.read_text() == '{"hooks": []}'


def test_user_scope_resolves_home(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    code, out, err = _install("claude-code", "--user", "--format", "json", cwd=project, home=home)
    assert code == 0, err
    report = json.loads(out)
    assert report["settings"] == str(home / ".claude" / "settings.json")
    assert report["changed"] is True and report["events"] == ["Stop", "SubagentStop"]
    assert report["backup"] is None
    assert is_earnest_command(report["command"], "claude-code")
    assert not (project / ".claude").exists()


def test_project_and_user_together_is_bad_usage(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    assert _install("claude-code", "--user", "--project", cwd=project, home=home)[0] == 2
    assert _install("claude-code", "--user", "--dir", str(project), cwd=project, home=home)[0] == 2
    assert not (home / ".claude").exists() and not (project / ".claude").exists()


def test_uninstall_removes_only_ours(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    mixed = json.loads(json.dumps(EXISTING))
    # One group holding another tool's handler and ours side by side.
    mixed["hooks"]["SubagentStop"] = [
        {
            "hooks": [
                {"type": "command", "command": "logger.sh"},
                {"type": "command", "command": CMD},
            ]
        }
    ]
    path.write_text(json.dumps(mixed))
    assert _install("claude-code", "--command", CMD, cwd=project, home=home)[0] == 0
    code, out, err = _uninstall("claude-code", cwd=project, home=home)
    assert code == 0, err
    assert "removed 2" in out
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == EXISTING["permissions"]
    assert data["hooks"]["Stop"] == [{"hooks": [OTHER_STOP]}]
    assert data["hooks"]["PreToolUse"] == EXISTING["hooks"]["PreToolUse"]
    assert data["hooks"]["SubagentStop"] == [
        {"hooks": [{"type": "command", "command": "logger.sh"}]}
    ]
    code, out, _ = _uninstall("claude-code", cwd=project, home=home)
    assert code == 0 and "no change" in out


def test_uninstall_of_only_entry_leaves_the_other_keys(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus"}')
    _install("claude-code", cwd=project, home=home)
    assert _uninstall("claude-code", cwd=project, home=home)[0] == 0
    assert json.loads(path.read_text()) == {"model": "opus"}


def test_uninstall_without_settings_creates_nothing(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    code, out, _ = _uninstall("claude-code", cwd=project, home=home)
    assert code == 0 and "no change" in out
    assert not (project / ".claude").exists()


def test_permissions_of_an_existing_file_are_kept(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text("{}")
    os.chmod(path, 0o640)
    _install("claude-code", cwd=project, home=home)
    assert path.stat().st_mode & 0o777 == 0o640
    assert not list(path.parent.glob(".settings.json.*.tmp"))  # no temp file left behind


def test_gemini_after_agent_entry_merges_with_its_hooks_table(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".gemini" / "settings.json"
    path.parent.mkdir()
    existing = {
        "tools": {"enableHooks": True},
        "hooks": {
            "disabled": ["secret-scanner"],
            "BeforeTool": [{"matcher": "write_file", "hooks": []}],
        },
    }
    path.write_text(json.dumps(existing))
    code, out, err = _install("gemini", "--command", "earnest hook gemini", cwd=project, home=home)
    assert code == 0, err
    assert "hooks system" in out  # the note about Gemini's switch
    data = json.loads(path.read_text())
    assert data["tools"] == {"enableHooks": True}
    assert data["hooks"]["disabled"] == ["secret-scanner"]
    assert data["hooks"]["BeforeTool"] == existing["hooks"]["BeforeTool"]
    (group,) = data["hooks"]["AfterAgent"]
    assert group["matcher"] == "*"
    (handler,) = group["hooks"]
    assert handler["command"] == "earnest hook gemini"
    assert handler["timeout"] == 30000  # Gemini counts milliseconds
    assert handler["name"] == "earnest-effect-gate"
    assert _uninstall("gemini", cwd=project, home=home)[0] == 0
    assert json.loads(path.read_text()) == existing


def test_codex_hooks_json_user_scope(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    code, _, err = _install(
        "codex", "--user", "--command", "earnest hook codex", cwd=project, home=home
    )
    assert code == 0, err
    data = json.loads((home / ".codex" / "hooks.json").read_text())
    assert data == {
        "hooks": {
            "Stop": [
                {"hooks": [{"type": "command", "command": "earnest hook codex", "timeout": 30}]}
            ]
        }
    }


def test_each_cli_only_removes_its_own_adapter(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    path = project / ".claude" / "settings.json"
    path.parent.mkdir()
    foreign = {"type": "command", "command": "earnest hook codex"}  # odd, but not ours to remove
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [foreign]}]}}))
    _install("claude-code", cwd=project, home=home)
    _uninstall("claude-code", cwd=project, home=home)
    assert json.loads(path.read_text()) == {"hooks": {"Stop": [{"hooks": [foreign]}]}}


@pytest.mark.parametrize(
    ("command", "ours"),
    [
        ("earnest hook claude-code", True),
        ("/home/u/.venv/bin/earnest hook claude-code", True),
        ("'/opt/py 3/bin/python' -m earnest hook claude-code", True),
        ("EARNEST_STATE_DIR=/x earnest hook claude-code", True),
        (f"/py -S -c {shlex.quote(HOOK_BOOTSTRAP)} '/site pkgs' hook claude-code", True),
        (f"/py -S -c {shlex.quote(HOOK_BOOTSTRAP)} /site hook gemini", False),
        ("/py -S -c 'import os' /site hook claude-code", False),
        ("earnest hook gemini", False),
        ("earnest hook install claude-code", False),
        ("my-earnest hook claude-code", False),
        ("echo earnest", False),
        ("earnest hook 'unterminated", False),
        (None, False),
    ],
)
def test_is_earnest_command(command: object, ours: bool) -> None:
    assert is_earnest_command(command, "claude-code") is ours
