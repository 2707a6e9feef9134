"""`hook install` writes where the CLI looks (defect 8) and what runs without a venv (10)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_earnest
from earnest.hooks.settings import HOOK_BOOTSTRAP

CLEAN = {
    "CLAUDE_CONFIG_DIR": "",
    "CODEX_HOME": "",
    "GEMINI_CLI_HOME": "",
    "QWEN_HOME": "",
    "COPILOT_HOME": "",
}


def install(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    result = run_earnest("hook", "install", *args, cwd=cwd, env={**CLEAN, **env})
    assert result.returncode == 0, result.stderr
    return result


@pytest.mark.parametrize(
    ("cli", "variable", "relative"),
    [
        ("claude-code", "CLAUDE_CONFIG_DIR", "settings.json"),
        ("codex", "CODEX_HOME", "hooks.json"),
        ("gemini", "GEMINI_CLI_HOME", ".gemini/settings.json"),
        ("qwen", "QWEN_HOME", "settings.json"),
        ("copilot", "COPILOT_HOME", "hooks/earnest.json"),
    ],
)
def test_user_install_honours_the_clis_own_folder_variable(
    tmp_path: Path, cli: str, variable: str, relative: str
) -> None:
    home, custom = tmp_path / "home", tmp_path / "custom"
    home.mkdir()
    custom.mkdir()
    result = install(cli, "--user", cwd=tmp_path, env={"HOME": str(home), variable: str(custom)})
    target = custom / relative
    assert target.is_file(), result.stdout
    assert str(target) in result.stdout
    assert not any(home.rglob("*.json")), "nothing written under HOME"


def test_user_install_without_the_variables_uses_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    install("codex", "--user", cwd=tmp_path, env={"HOME": str(home)})
    assert (home / ".codex" / "hooks.json").is_file()


def test_default_command_is_the_absolute_interpreter_even_with_earnest_on_path(
    tmp_path: Path,
) -> None:
    """A bare `earnest` breaks when the CLI starts without the venv: write sys.executable."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "earnest"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    project = tmp_path / "p"
    project.mkdir()
    path = os.pathsep.join([str(bindir), os.environ.get("PATH", "")])
    install("claude-code", cwd=project, env={"HOME": str(tmp_path), "PATH": path})
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    words = shlex.split(command)
    # Without `site` (-S): earnest's own folder is named in the command instead.
    src = Path(__file__).resolve().parents[2] / "src"
    assert words[1:] == ["-S", "-c", HOOK_BOOTSTRAP, str(src), "hook", "claude-code"]
    assert Path(words[0]).is_absolute() and Path(words[0]).samefile(sys.executable)
    # The command works from an environment with no venv on PATH and no PYTHONPATH at all.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "EARNEST_HOOK_DISABLE": "1"}
    ran = subprocess.run(words, input="{}", capture_output=True, text=True, env=env, timeout=60)
    assert ran.returncode == 0 and ran.stderr == "", ran.stderr
    # ... and judges a stop (a claim with no tool call is blocked), through a shell as the
    # CLIs run it, with the user's environment (EARNEST_STATE_DIR) still honoured.
    transcript = tmp_path / "t.jsonl"
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "cwd": str(project),
         "message": {"role": "user", "content": "Fix the bug in app.py."}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "cwd": str(project), "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "text", "text": "Done, I fixed the bug in app.py."}]}},
    ]  # fmt: skip
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    payload = {"session_id": "s", "transcript_path": str(transcript), "cwd": str(project),
               "hook_event_name": "Stop", "stop_hook_active": False}  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    env["EARNEST_STATE_DIR"] = str(tmp_path / "state")
    ran = subprocess.run(
        command, shell=True, input=json.dumps(payload), capture_output=True, text=True,
        env=env, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0 and json.loads(ran.stdout)["decision"] == "block", ran.stderr
    assert list((tmp_path / "state").glob("earnest-claude-code-*.json"))


def test_an_older_install_is_recognised_and_updated_to_the_site_free_command(
    tmp_path: Path,
) -> None:
    """Settings written by an earlier earnest (``python -m earnest hook CLI``) are earnest's
    entries: a new install replaces them in place, it does not add a second hook."""
    project = tmp_path / "p"
    project.mkdir()
    old = f"{shlex.quote(sys.executable)} -m earnest hook codex"
    path = project / ".codex" / "hooks.json"
    path.parent.mkdir()
    entry = {"type": "command", "command": old, "timeout": 30}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [entry]}]}}))
    done = install("codex", cwd=project, env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    commands = [
        h["command"] for g in json.loads(path.read_text())["hooks"]["Stop"] for h in g["hooks"]
    ]
    assert len(commands) == 1 and commands[0] != old
    assert shlex.split(commands[0])[1:3] == ["-S", "-c"]


def test_symlinked_settings_file_is_edited_through_the_link(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = dotfiles / "claude-settings.json"
    real.write_text(json.dumps({"model": "opus"}) + "\n")
    config = tmp_path / "config"
    config.mkdir()
    link = config / "settings.json"
    link.symlink_to(real)
    install("claude-code", "--user", cwd=tmp_path, env={"CLAUDE_CONFIG_DIR": str(config)})
    assert link.is_symlink() and link.resolve() == real.resolve()
    data = json.loads(real.read_text())
    assert data["model"] == "opus" and "Stop" in data["hooks"]
    # and uninstall goes through the link too
    result = run_earnest(
        "hook", "uninstall", "claude-code", "--user", cwd=tmp_path,
        env={**CLEAN, "CLAUDE_CONFIG_DIR": str(config)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and "hooks" not in json.loads(real.read_text())


def test_install_leaves_compiled_bytecode_for_the_hook_modules(tmp_path: Path) -> None:
    """Even with PYTHONDONTWRITEBYTECODE set, as in many containers."""
    import shutil as sh

    src = Path(__file__).resolve().parents[2] / "src" / "earnest"
    copy = tmp_path / "site" / "earnest"
    sh.copytree(src, copy, ignore=sh.ignore_patterns("__pycache__"))
    project = tmp_path / "p"
    project.mkdir()
    env = dict(os.environ)
    env.update(
        {
            **CLEAN,
            "HOME": str(tmp_path),
            "PYTHONPATH": str(copy.parent),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    env.pop("PYTHONPYCACHEPREFIX", None)
    ran = subprocess.run(
        [sys.executable, "-m", "earnest", "hook", "install", "claude-code"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    tag = sys.implementation.cache_tag
    for module in (
        "hooks/claude_code",
        "hooks/entry",
        "effects/gate",
        "trajectory/readers/claude_tail",
    ):
        folder, name = module.rsplit("/", 1)
        assert (copy / folder / "__pycache__" / f"{name}.{tag}.pyc").is_file(), module
