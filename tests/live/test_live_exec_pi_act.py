"""``exec:pi`` in act mode: its argv, its state, its model endpoint and its session file.

The real Pi acts the example suite's fixture out, confined, in tests/realcli/test_realcli_act.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from earnest.live.act_transcripts import pi_session_file, transcript_file
from earnest.live.agentenv import allowed_env
from earnest.live.confine import state_paths
from earnest.live.endpoint import Endpoint
from earnest.live.netgate import endpoints
from earnest.live.profiles import parse_spec
from earnest.live.providers.exec_cli import ExecProvider, build_act_argv, build_argv

SPEC = "exec:pi:fake/fake-model"


def models_json(agent: Path, base_url: str, api_key: str = "FAKE_PI_KEY") -> None:
    agent.mkdir(parents=True, exist_ok=True)
    provider = {"baseUrl": base_url, "api": "openai-completions", "apiKey": api_key,
                "models": [{"id": "fake-model"}]}  # fmt: skip
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}), "utf-8")


def test_act_offers_pis_writing_tools_and_keeps_its_session() -> None:
    profile = parse_spec("p", SPEC)
    argv = build_act_argv(profile, "DOC", "/w/AGENT.md")
    assert argv[argv.index("--tools") + 1] == "read,bash,edit,write,grep,find,ls"
    assert argv.count("--tools") == 1
    assert "--no-session" not in argv  # its session file is the trajectory
    for flag in ("--no-extensions", "--no-skills", "--no-prompt-templates", "--no-context-files"):
        assert flag in argv  # still none of the user's Pi setup
    assert argv[:5] == build_argv(profile, "DOC", "/w/AGENT.md")[:5]


def test_an_exec_pi_provider_can_act(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "pi").write_text("#!/bin/sh\n", encoding="utf-8")
    (bindir / "pi").chmod(0o755)
    monkeypatch.setenv("PATH", str(bindir))
    assert ExecProvider(parse_spec("p", SPEC)).can_act is True


def test_pis_state_is_its_agent_folder_and_the_session_folder_named(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert state_paths("pi", home, {}) == [home / ".pi" / "agent"]
    moved = {"PI_CODING_AGENT_DIR": "~/pi-agent", "PI_CODING_AGENT_SESSION_DIR": "/srv/s"}
    assert state_paths("pi", home, moved) == [home / "pi-agent", Path("/srv/s")]


def test_the_endpoint_is_the_custom_providers_base_url(tmp_path: Path) -> None:
    models_json(tmp_path / ".pi" / "agent", "http://127.0.0.1:8765/v1")
    assert endpoints(parse_spec("p", SPEC), {}, tmp_path) == (Endpoint("127.0.0.1", 8765),)
    # PI_CODING_AGENT_DIR moves models.json; ~ is the user's HOME.
    models_json(tmp_path / "other", "https://models.example.com/v1")
    env = {"PI_CODING_AGENT_DIR": "~/other"}
    assert endpoints(parse_spec("p", SPEC), env, tmp_path) == (Endpoint("models.example.com", 443),)


def test_a_built_in_providers_endpoint_is_its_host(tmp_path: Path) -> None:
    found = endpoints(parse_spec("p", "exec:pi:anthropic/claude-sonnet-4-5"), {}, tmp_path)
    assert found == (Endpoint("api.anthropic.com", 443),)
    # A provider Pi does not ship and models.json does not name: nothing but allow_network.
    assert endpoints(parse_spec("p", "exec:pi:mine/m"), {}, tmp_path) == ()


def test_the_key_variable_models_json_names_is_passed_on(tmp_path: Path) -> None:
    models_json(tmp_path / ".pi" / "agent", "http://127.0.0.1:8765/v1")
    user = {"PATH": "/usr/bin", "FAKE_PI_KEY": "k", "GITHUB_TOKEN": "ghp_x"}
    assert sorted(allowed_env(parse_spec("p", SPEC), user, tmp_path)) == ["FAKE_PI_KEY", "PATH"]
    models_json(tmp_path / ".pi" / "agent", "http://127.0.0.1:8765/v1", api_key="sk-literal")
    assert sorted(allowed_env(parse_spec("p", SPEC), user, tmp_path)) == ["PATH"]


def session(folder: Path, name: str, cwd: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    head = {"type": "session", "version": 3, "id": name.split("_")[-1][:-6], "cwd": cwd}
    path.write_text(json.dumps(head) + "\n", encoding="utf-8")
    return path


def test_the_session_file_is_the_one_whose_header_names_the_copy(tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = tmp_path / "earnest-act-x" / "workspace"
    workspace.mkdir(parents=True)
    sessions = home / ".pi" / "agent" / "sessions"
    folder = sessions / ("--" + str(workspace).lstrip("/").replace("/", "-") + "--")
    session(folder, "2026-12-07T10-00-00-000Z_aaaa.jsonl", "/somewhere/else")  # not this copy
    assert pi_session_file(workspace, home, {}) is None
    mine = session(folder, "2026-12-07T10-00-01-000Z_bbbb.jsonl", str(workspace))
    assert pi_session_file(workspace, home, {}) == mine
    env = {"EARNEST_WORKSPACE": str(workspace)}
    assert transcript_file("pi", "CHOICE: A", home, env) == mine
    assert transcript_file("pi", "CHOICE: A", home, {}) is None  # no copy named: none


def test_a_linked_session_file_is_never_followed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = tmp_path / "w"
    workspace.mkdir()
    elsewhere = session(tmp_path / "x", "2026-12-07T10-00-00-000Z_cccc.jsonl", str(workspace))
    folder = (
        home
        / ".pi"
        / "agent"
        / "sessions"
        / ("--" + str(workspace).lstrip("/").replace("/", "-") + "--")
    )
    folder.mkdir(parents=True)
    os.symlink(elsewhere, folder / elsewhere.name)
    assert pi_session_file(workspace, home, {}) is None


def test_a_session_folder_the_user_named_is_searched(tmp_path: Path) -> None:
    workspace = tmp_path / "w"
    workspace.mkdir()
    mine = session(tmp_path / "sessions", "2026-12-07T10-00-00-000Z_dddd.jsonl", str(workspace))
    env = {"PI_CODING_AGENT_SESSION_DIR": str(tmp_path / "sessions")}
    assert pi_session_file(workspace, tmp_path / "home", env) == mine
