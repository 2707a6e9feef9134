"""``exec:copilot`` (GitHub Copilot CLI): its argv in complete and act mode, its environment,
its model endpoints, its state under bwrap, its reply and its session log.

The real Copilot CLI 1.0.102 runs through ``exec:copilot`` in tests/realcli/test_realcli_exec.py
(complete) and tests/realcli/test_realcli_act.py (act, confined). The stdout and session log
here are that CLI's own (tests/data/act/SOURCE.md).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from tests.conftest import TEST_DATA

from earnest.live.act import commands_from_file, commands_from_output
from earnest.live.act_transcripts import copilot_events_file, transcript_file
from earnest.live.agentenv import allowed_env
from earnest.live.confine import Confinement, state_paths
from earnest.live.endpoint import Endpoint
from earnest.live.netgate import endpoints
from earnest.live.profiles import parse_spec
from earnest.live.providers.base import ProviderError
from earnest.live.providers.exec_cli import (
    build_act_argv,
    build_argv,
    reply_from_stdout,
    stdin_mode,
)
from earnest.live.sandbox import prepare

SPEC = "exec:copilot:gpt-5.4"
DATA = TEST_DATA / "act"
STREAM = DATA / "copilot-1.0-stream-merge.jsonl"
EVENTS = DATA / "copilot-1.0-events-merge.jsonl"
SID = "79d44e76-993d-4ace-a2b2-d6561773f93f"
MERGE = "git merge --no-ff feature/lock-timeout"
GITHUB = {"GITHUB_TOKEN": "ghp_fake0", "GH_TOKEN": "gho_fake1", "COPILOT_GITHUB_TOKEN": "c2"}


def test_complete_offers_only_the_read_tools_and_none_of_the_users_setup() -> None:
    argv = build_argv(parse_spec("c", SPEC), "DOC", "/w/AGENT.md")
    assert argv[:3] == ["copilot", "--model", "gpt-5.4"]
    assert argv[argv.index("--output-format") + 1] == "json"
    # No shell, no file writes, no subagents, web or MCP tools: nothing a completion changes.
    assert "--available-tools=view,grep,glob" in argv
    for flag in ("--allow-all-tools", "--allow-all", "--yolo", "--allow-all-paths", "-p"):
        assert flag not in argv
    for flag in ("--no-custom-instructions", "--no-auto-update", "--no-ask-user",
                 "--disable-builtin-mcps"):  # fmt: skip
        assert flag in argv
    # No system-prompt flag: the agent doc goes with the prompt on stdin, never in argv.
    assert "DOC" not in argv
    assert stdin_mode(parse_spec("c", SPEC)) == "combined"


def test_act_approves_every_tool_but_keeps_file_tools_in_the_copy() -> None:
    profile = parse_spec("c", SPEC)
    argv = build_act_argv(profile, "DOC", "/w/AGENT.md")
    assert "--allow-all-tools" in argv
    assert not any(a.startswith("--available-tools") for a in argv)
    assert "--allow-all-paths" not in argv and "--yolo" not in argv and "--allow-all" not in argv
    # Its shell does not see the tokens and keys Copilot was given.
    secrets = next(a for a in argv if a.startswith("--secret-env-vars="))
    assert set(secrets.split("=", 1)[1].split(",")) >= {"GH_TOKEN", "GITHUB_TOKEN",
                                                       "COPILOT_GITHUB_TOKEN"}  # fmt: skip
    assert (
        argv[: len(argv) - 2]
        == [a for a in build_argv(profile, "DOC", "/w/AGENT.md") if "available" not in a][
            : len(argv) - 2
        ]
    )


def test_github_tokens_only_for_githubs_own_models() -> None:
    user = {"PATH": "/usr/bin", "HOME": "/home/me", "OPENAI_API_KEY": "sk-x", **GITHUB,
            "COPILOT_MODEL": "m"}  # fmt: skip
    profile = parse_spec("c", SPEC)
    # GitHub's models: the token is what signs it in, and only GitHub's hosts are reachable.
    assert set(allowed_env(profile, user)) == {"PATH", "COPILOT_MODEL", *GITHUB}
    # Your own model server: no GitHub token reaches the agent (the server is its one host).
    byok = {**user, "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:9/v1",
            "COPILOT_PROVIDER_API_KEY": "k"}  # fmt: skip
    assert set(allowed_env(profile, byok)) == {
        "PATH", "COPILOT_MODEL", "COPILOT_PROVIDER_BASE_URL", "COPILOT_PROVIDER_API_KEY"
    }  # fmt: skip
    # Unless the user grants one by name.
    granted = replace(profile, allow_env=("GH_TOKEN",))
    assert "GH_TOKEN" in allowed_env(granted, byok) and "GITHUB_TOKEN" not in allowed_env(
        granted, byok
    )


def test_the_endpoint_is_the_provider_base_url_else_githubs_hosts(tmp_path: Path) -> None:
    profile = parse_spec("c", SPEC)
    byok = {"COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:8765/v1"}
    assert endpoints(profile, byok, tmp_path) == (Endpoint("127.0.0.1", 8765),)
    found = endpoints(profile, {}, tmp_path)
    assert Endpoint("api.githubcopilot.com", 443) in found
    assert Endpoint("api.github.com", 443) in found
    assert all(e.port == 443 and "github" in e.host for e in found)


def test_its_state_is_copilot_home_and_its_unpacked_package(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cache = home / ".cache" / "copilot"
    assert state_paths("copilot", home, {}) == [home / ".copilot", cache]
    assert state_paths("copilot", home, {"COPILOT_HOME": "/srv/cp"}) == [Path("/srv/cp"), cache]
    # A relative COPILOT_HOME is Copilot's to resolve in the copy: never a state path.
    assert state_paths("copilot", home, {"COPILOT_HOME": "rel"}) == [cache]


def test_confined_its_state_folder_is_bound_into_the_fresh_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".copilot").mkdir(parents=True)
    folder = tmp_path / "sample"
    for name in ("workspace", "tmp"):
        (folder / name).mkdir(parents=True)
    user = {"PATH": "/usr/bin", "HOME": str(home), **GITHUB,
            "COPILOT_PROVIDER_BASE_URL": "http://127.0.0.1:8765/v1"}  # fmt: skip
    start = prepare(parse_spec("c", SPEC), ["copilot"], Confinement("bwrap", "bwrap"), folder,
                    {}, user_env=user)  # fmt: skip
    fresh = folder / "home"
    argv = start.argv
    binds = {(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == "--bind"}
    assert (str(home / ".copilot"), str(fresh / ".copilot")) in binds
    assert (str(home / ".cache" / "copilot"), str(fresh / ".cache" / "copilot")) in binds
    assert start.env["HOME"] == str(fresh)
    assert not set(GITHUB) & set(start.env)
    assert start.ends == (Endpoint("127.0.0.1", 8765),)


def test_the_reply_is_the_last_assistant_message_of_its_json_events() -> None:
    reply = reply_from_stdout(STREAM.read_text(encoding="utf-8"), 1.0)
    assert reply.text == "Done.\nCHOICE: B"


def test_a_failed_run_is_a_provider_failure_not_a_reply() -> None:
    events = [
        {"type": "user.message", "data": {"content": "p"}, "id": "1"},
        {"type": "session.error", "data": {"message": "Could not connect"}, "id": "2"},
        {"type": "result", "sessionId": SID, "exitCode": 1},
    ]
    with pytest.raises(ProviderError, match="Could not connect"):
        reply_from_stdout("\n".join(json.dumps(e) for e in events), 1.0)


def test_the_session_log_is_found_by_the_result_events_session_id(tmp_path: Path) -> None:
    stream = STREAM.read_text(encoding="utf-8")
    home = tmp_path / "home"
    log = home / ".copilot" / "session-state" / SID / "events.jsonl"
    assert copilot_events_file(stream, home) is None
    log.parent.mkdir(parents=True)
    # A log of that name whose session.start names another session is not it.
    log.write_text(EVENTS.read_text(encoding="utf-8").replace(SID, "0" * 36), encoding="utf-8")
    assert transcript_file("copilot", stream, home, {}) is None
    # A log without its end (Copilot writes it asynchronously) leaves the stdout to be read.
    lines = EVENTS.read_text(encoding="utf-8").splitlines(keepends=True)
    log.write_text("".join(lines[:-1]), encoding="utf-8")
    assert transcript_file("copilot", stream, home, {}) is None
    shutil.copy(EVENTS, log)
    assert transcript_file("copilot", stream, home, {}) == log
    # COPILOT_HOME moves it; a relative one is not taken.
    moved = tmp_path / "cp" / "session-state" / SID
    moved.mkdir(parents=True)
    shutil.copy(EVENTS, moved / "events.jsonl")
    env = {"COPILOT_HOME": str(tmp_path / "cp")}
    assert transcript_file("copilot", stream, home, env) == moved / "events.jsonl"
    assert transcript_file("copilot", stream, home, {"COPILOT_HOME": "cp"}) == log
    # An id that is no id names no file.
    assert copilot_events_file(stream.replace(SID, "../../x"), home) is None


def test_the_stdout_and_the_session_log_hold_the_failed_merge_with_its_exit_code(
    tmp_path: Path,
) -> None:
    commands, fmt = commands_from_file(EVENTS)
    assert fmt == "copilot-cli-events"
    assert [(c.command, c.ok) for c in commands] == [(MERGE, False)]
    commands, fmt = commands_from_output(STREAM.read_text(encoding="utf-8"), tmp_path)
    assert [(c.command, c.ok) for c in commands] == [(MERGE, False)]
