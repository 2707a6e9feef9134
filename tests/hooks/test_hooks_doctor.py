"""`earnest hook install codex` says what is left to do; `earnest hook doctor` says whether each
CLI will run the installed hook (defect 3). Never bypasses a CLI's trust: it only reads."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import run_earnest

CLEAN = {"CLAUDE_CONFIG_DIR": "", "GEMINI_CLI_HOME": "", "GEMINI_CLI_TRUST_WORKSPACE": ""}


@pytest.fixture
def box(tmp_path: Path) -> dict[str, Path]:
    project, home, bindir = tmp_path / "proj", tmp_path / "home", tmp_path / "bin"
    for d in (project / ".git", home, bindir):
        d.mkdir(parents=True)
    for name, version in (("codex", "codex-cli 0.171.0"), ("claude", "2.1.197 (Claude Code)"),
                          ("gemini", "0.61.0")):  # fmt: skip
        exe = bindir / name
        exe.write_text(f"#!/bin/sh\necho '{version}'\n")
        exe.chmod(0o755)
    return {"project": project, "home": home, "bin": bindir, "codex_home": home / ".codex"}


def env_for(box: dict[str, Path]) -> dict[str, str]:
    return {
        **CLEAN,
        "HOME": str(box["home"]),
        "CODEX_HOME": str(box["codex_home"]),
        "PATH": os.pathsep.join([str(box["bin"]), os.environ.get("PATH", "")]),
    }


def earnest(box: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    return run_earnest(*args, cwd=box["project"], env=env_for(box))


def doctor(box: dict[str, Path], cli: str) -> tuple[int, list[dict[str, object]]]:
    result = earnest(box, "hook", "doctor", cli, "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def checks(entry: dict[str, object]) -> dict[str, object]:
    return {c["name"]: c["ok"] for c in entry["checks"]}  # type: ignore[index,union-attr]


def test_install_codex_says_exactly_what_is_left_to_do(box: dict[str, Path]) -> None:
    result = earnest(box, "hook", "install", "codex")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    project = str(box["project"].resolve())
    assert "will not run it yet" in out
    assert f'[projects."{project}"]' in out and 'trust_level = "trusted"' in out
    assert "/hooks" in out and "skips it without a word" in out
    assert "earnest hook doctor codex" in out


def test_doctor_codex_untrusted_then_trusted(box: dict[str, Path]) -> None:
    assert earnest(box, "hook", "install", "codex").returncode == 0
    code, (entry,) = doctor(box, "codex")
    assert code == 1 and entry["verdict"] == "does not run"
    assert entry["cli_version"] == "codex-cli 0.171.0"
    assert checks(entry) == {
        "settings": True,
        "command": True,
        "codex project trust": False,
        "codex hook trust": False,
    }
    # What Codex itself writes once the user trusts the project and reviews the hook.
    hooks_file = box["project"] / ".codex" / "hooks.json"
    config = box["codex_home"] / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[projects."{box["project"].resolve()}"]\ntrust_level = "trusted"\n\n'
        f'[hooks.state."{hooks_file}:stop:0:0"]\n'
        'trusted_hash = "sha256:0f3c9c1e2b6a4d5e8f7a9b0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6"\n'
    )
    before = config.read_bytes()
    code, (entry,) = doctor(box, "codex")
    assert code == 0 and entry["verdict"] == "runs", entry
    assert config.read_bytes() == before  # the doctor only reads


def test_doctor_codex_hook_disabled_in_hooks_panel(box: dict[str, Path]) -> None:
    assert earnest(box, "hook", "install", "codex", "--user").returncode == 0
    config = box["codex_home"] / "config.toml"
    key = f"{box['codex_home'] / 'hooks.json'}:stop:0:0"
    config.write_text(f'[hooks.state."{key}"]\nenabled = false\ntrusted_hash = "sha256:ab"\n')
    code, (entry,) = doctor(box, "codex")
    assert code == 1 and entry["scope"] == "user"
    assert checks(entry)["codex hook trust"] is False
    assert "codex project trust" not in checks(entry)  # a user hook needs no project trust


def test_doctor_claude_command_not_resolvable_and_disabled_hooks(box: dict[str, Path]) -> None:
    settings = box["project"] / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "disableAllHooks": True,
                "hooks": {
                    "Stop": [
                        {"hooks": [{"type": "command", "command": "earnest hook claude-code"}]}
                    ]
                },
            }
        )
    )
    env = env_for(box)
    env["PATH"] = str(box["bin"])  # no earnest on PATH: the bare command cannot resolve
    result = run_earnest("hook", "doctor", "claude-code", cwd=box["project"], env=env)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "DOES NOT RUN" in result.stdout
    assert "'earnest' is not found" in result.stdout and "disableAllHooks" in result.stdout


def test_doctor_claude_fresh_install_runs(box: dict[str, Path]) -> None:
    assert earnest(box, "hook", "install", "claude-code").returncode == 0
    code, entries = doctor(box, "claude-code")
    assert code == 0 and [e["event"] for e in entries] == ["Stop", "SubagentStop"]
    assert all(e["verdict"] == "runs" for e in entries)


def test_doctor_says_when_earnest_left_the_folder_the_command_names(
    box: dict[str, Path], tmp_path: Path
) -> None:
    """The installed command imports earnest from a folder it names (``-S``: no ``site``);
    once earnest is uninstalled or moved from there, doctor says so instead of "runs"."""
    assert earnest(box, "hook", "install", "claude-code").returncode == 0
    path = box["project"] / ".claude" / "settings.json"
    command = json.loads(path.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"]
    words = shlex.split(command)
    gone = tmp_path / "uninstalled"
    moved = shlex.join([*words[:4], str(gone), *words[5:]])
    path.write_text(path.read_text().replace(json.dumps(command)[1:-1], json.dumps(moved)[1:-1]))
    code, entries = doctor(box, "claude-code")
    assert code == 1 and entries[0]["verdict"] != "runs"
    failed = [c for c in entries[0]["checks"] if not c["ok"]]  # type: ignore[union-attr]
    assert failed[0]["name"] == "command" and str(gone) in str(failed[0]["detail"])


def test_doctor_gemini_project_needs_a_trusted_folder(box: dict[str, Path]) -> None:
    assert earnest(box, "hook", "install", "gemini").returncode == 0
    folders = box["home"] / ".gemini" / "trustedFolders.json"
    folders.parent.mkdir(parents=True, exist_ok=True)
    folders.write_text(json.dumps({"/somewhere/else": "TRUST_FOLDER"}))
    code, (entry,) = doctor(box, "gemini")
    assert code == 1 and checks(entry)["gemini folder trust"] is False
    folders.write_text(json.dumps({str(box["project"]): "TRUST_FOLDER"}))
    code, (entry,) = doctor(box, "gemini")
    assert code == 0 and entry["verdict"] == "runs"


def test_doctor_with_nothing_installed_says_so(box: dict[str, Path]) -> None:
    result = earnest(box, "hook", "doctor")
    assert result.returncode == 0
    for cli in ("claude-code", "gemini", "codex", "qwen", "copilot"):
        assert f"{cli}: no earnest hook installed" in result.stdout


def test_doctor_reports_a_bad_config_toml_with_exit_2(box: dict[str, Path]) -> None:
    assert earnest(box, "hook", "install", "codex").returncode == 0
    config = box["codex_home"] / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[projects\n")
    result = earnest(box, "hook", "doctor", "codex")
    assert result.returncode == 2 and str(config) in result.stderr
    assert "Traceback" not in result.stderr
