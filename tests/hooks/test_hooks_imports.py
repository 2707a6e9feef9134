"""The stop hook's process imports only what a stop needs (issue 9, Speed).

Every stop is a fresh interpreter, and what it costs is almost all imports: a module that
creeps onto the hook's path (the CLI framework, the pressure harness, the report, orjson's
``uuid``/``platform``, ``difflib``...) is paid at every stop of every user. These tests run
real stops in a subprocess and list ``sys.modules`` afterwards, so such a regression fails
here instead of silently slowing the hook. They never look at timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from claude_session import Session

from conftest import SRC, TRANSCRIPTS

# Loaded after no stop: (module or package, why it must stay off the path).
NEVER = {
    # third-party: the CLI framework and everything only other commands need
    "typer": "CLI framework",
    "click": "CLI framework",
    "rich": "CLI framework",
    "yaml": "suites and fixtures",
    "pydantic": "not a hook dependency",
    "jsonschema": "schema checks",
    "pyarrow": "parquet output",
    "openai": "live runs",
    "anthropic": "live runs",
    "httpx": "live runs",
    # orjson imports uuid, platform, ...: a stop reads too little JSON to gain from it
    "orjson": "earnest.fastjson warm-up",
    # earnest: other commands and unused halves of the packages on the path
    "earnest.cli": "the CLI layer (earnest.__main__ dispatches the hook before it)",
    "earnest.pressure": "pressure harness",
    "earnest.report": "reports",
    "earnest.live": "live runs",
    "earnest.stats": "statistics",
    "earnest.parquet": "parquet output",
    "earnest.shards": "sharded runs",
    "earnest.parallel": "process pools",
    "earnest.results": "result files",
    "earnest.tomlfile": "no config file in the workspace",
    "earnest.configkeys": "no config file in the workspace",
    "earnest.effects.config": "no config file in the workspace",
    "earnest.effects.shell": "no shell command in the run",
    "earnest.effects.shell_lexer": "no shell command in the run",
    "earnest.effects.shell_vocab": "no shell command in the run",
    "earnest.effects.test_counts": "no test count claimed",
    "earnest.hooks.settings": "install/uninstall only",
    "earnest.hooks.doctor": "hook doctor only",
    "earnest.hooks.bytecode": "install only",
    "earnest.trajectory.scorers": "trajectory score",
    "earnest.trajectory.battery": "trajectory score",
    "earnest.trajectory.aggregate": "trajectory score",
    "earnest.trajectory.said_did": "trajectory score",
    "earnest.trajectory.replay": "replay-gate",
    # the standard library's heavier modules
    "difflib": "only to suggest a config key",
    "uuid": "pulled in by orjson",
    "platform": "pulled in by orjson/uuid",
    "hashlib": "OpenSSL: earnest._digest uses CPython's own SHA-256",
    "tempfile": "not needed to write state",
    "tomllib": "no config file in the workspace",
    "datetime": "the C _datetime type is enough",
    "shlex": "only for an argv-list command",
    "pickle": "the C _pickle is enough",
    "subprocess": "a stop runs nothing",
    "asyncio": "a stop runs nothing",
    "concurrent": "a stop runs nothing",
    "multiprocessing": "a stop runs nothing",
    "logging": "not used",
    "argparse": "not used",
    "decimal": "not used",
    "sqlite3": "not used",
    "email": "not used",
    "http": "not used",
    "socket": "offline",
    "ssl": "offline",
    "zipfile": "not used",
    "csv": "not used",
    "textwrap": "not used",
    "typing": "annotations only: earnest's stop modules import it under TYPE_CHECKING",
    "threading": "the time budget waits on a _thread lock",
    # deferred (earnest._deferred): imported by dataclasses and urllib.parse, never read
    "inspect": "dataclasses reads it only for a class without a docstring",
    "ast": "inspect's",
    "dis": "inspect's",
    "tokenize": "inspect's",
    "ipaddress": "urllib.parse reads it only for a bracketed URL host",
}
NEVER["filelock"] = "a blocking stop locks the session with fcntl.flock (POSIX)"
READERS = {
    "claude-code": "earnest.trajectory.readers.claude_code",
    "codex": "earnest.trajectory.readers.codex_rollout",
    "gemini": "earnest.trajectory.readers.gemini_session",
}


def _never(cli: str) -> dict[str, str]:
    """NEVER, and the other CLIs' own readers (the readers package imports the Claude Code
    reader only when one of its names is used, so a Codex or Gemini stop does not load it)."""
    other = {module: "not this CLI's transcript" for name, module in READERS.items() if name != cli}
    return NEVER | other


_PROBE = """\
import io, json, sys
from earnest.__main__ import main
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[2].encode()))
out = io.StringIO()
sys.stdout, real = out, sys.stdout
rc = main(["hook", sys.argv[1]])
sys.stdout = real
# A module earnest._deferred put off and nobody read is a placeholder, not a loaded module.
from earnest._deferred import is_placeholder
loaded = sorted(name for name, module in sys.modules.items() if not is_placeholder(module))
print(json.dumps({"rc": rc, "out": out.getvalue(), "modules": loaded}))
"""


def _stop(
    cli: str, payload: dict[str, Any], state: Path, *, no_site: bool = False
) -> tuple[str, set[str]]:
    """One stop in a fresh interpreter: its stdout and every module loaded after it.

    ``no_site``: as the installed command starts it, ``python -S`` with only earnest's own
    folder added to ``sys.path`` (no PYTHONPATH, no site-packages).
    """
    env = dict(os.environ, PYTHONPATH=str(SRC), EARNEST_STATE_DIR=str(state))
    for name in ("EARNEST_HOOK_DISABLE", "EARNEST_JSON"):
        env.pop(name, None)
    argv = [sys.executable, "-c", _PROBE, cli, json.dumps(payload)]
    if no_site:
        del env["PYTHONPATH"]
        argv[1:3] = ["-S", "-c", f"import sys;sys.path.append({str(SRC)!r});" + _PROBE]
    result = subprocess.run(argv, capture_output=True, text=True, env=env, check=False, timeout=60)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == "", result.stderr  # a stop that failed would import less
    report = json.loads(result.stdout)
    assert report["rc"] == 0
    return report["out"], set(report["modules"])


def _loaded(modules: set[str], forbidden: dict[str, str]) -> list[str]:
    return sorted(
        f"{name} ({why})"
        for name, why in forbidden.items()
        if any(m == name or m.startswith(name + ".") for m in modules)
    )


def _payload(session: Session) -> dict[str, Any]:
    return {
        "session_id": session.session_id,
        "transcript_path": str(session.transcript),
        "cwd": str(session.workspace),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }


def test_an_allowed_stop_first_and_later_imports_nothing_it_does_not_need(
    tmp_path: Path,
) -> None:
    session = Session(tmp_path)
    session.copy_real(sorted((TRANSCRIPTS / "claude-code").glob("*.jsonl"))[0].name)
    target = session.workspace / "greeting.txt"
    session.prompt("Create greeting.txt with a greeting.")
    target.write_text("hello\n")
    session.tool(
        "Write",
        {"file_path": str(target), "content": "hello\n"},
        f"File created successfully at: {target}",
        {"type": "create", "filePath": str(target), "content": "hello\n"},
    )
    session.say("Done: I created greeting.txt.")
    out, modules = _stop("claude-code", _payload(session), session.state)
    assert out == ""  # allowed: the file was written
    # It was judged for real: the reader and the gate ran, and the state was saved.
    assert {"earnest.trajectory.readers.claude_tail", "earnest.effects.gate"} <= modules
    assert list(session.state.glob("earnest-claude-code-*.json"))
    assert _loaded(modules, _never("claude-code")) == []

    session.say("Anything else?")  # a later stop: resumes the saved reader
    out, modules = _stop("claude-code", _payload(session), session.state)
    assert out == ""
    assert "earnest.trajectory.readers.claude_tail" not in modules  # no backward scan
    assert _loaded(modules, _never("claude-code")) == []
    # "Anything else?" has no claim word (earnest.effects.claim_words): no claim grammar
    assert "earnest.effects.claims" not in modules


def test_a_blocked_stop_imports_nothing_it_does_not_need(tmp_path: Path) -> None:
    session = Session(tmp_path)
    session.prompt("Fix the bug in app.py.")
    session.say("Done, I fixed the bug.")
    out, modules = _stop("claude-code", _payload(session), session.state)
    assert json.loads(out)["decision"] == "block"
    assert "fcntl" in modules  # the budget was updated under the session lock
    assert list(session.state.glob("earnest-claude-code-*.lock"))
    assert _loaded(modules, _never("claude-code")) == []


def test_codex_and_gemini_stops_import_nothing_they_do_not_need(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout-2026-01-01T00-00-00-abc.jsonl"
    rollout.write_bytes(
        (TRANSCRIPTS / "codex" / "kvsankar-real-codex-exec-session-01-redacted.jsonl").read_bytes()
    )
    chat = tmp_path / "chats" / "session-2026-01-01T00-00-abc.json"
    chat.parent.mkdir()
    messages = [
        {"id": "m0", "type": "user", "content": "Fix the bug in app.py.",
         "timestamp": "2026-01-01T00:00:00.000Z"},
        {"id": "m1", "type": "gemini", "content": "Done, I fixed it.", "toolCalls": [],
         "timestamp": "2026-01-01T00:00:01.000Z"},
    ]  # fmt: skip
    chat.write_text(json.dumps({"sessionId": "s-1", "projectHash": "h", "messages": messages}))
    workspace = tmp_path / "repo"
    workspace.mkdir()
    stops = {
        "codex": {"hook_event_name": "Stop", "turn_id": "t-1", "transcript_path": str(rollout)},
        "gemini": {
            "hook_event_name": "AfterAgent",
            "transcript_path": str(chat),
            "prompt": "Fix the bug in app.py.",
            "prompt_response": "Done, I fixed it.",
        },
    }
    for cli, extra in stops.items():
        payload = {"session_id": "s-1", "cwd": str(workspace), "stop_hook_active": False, **extra}
        _, modules = _stop(cli, payload, tmp_path / f"state-{cli}")
        assert READERS[cli] in modules and "earnest.effects.gate" in modules, cli  # judged
        assert _loaded(modules, _never(cli)) == [], cli


def test_a_stop_judging_shell_commands_imports_nothing_else_it_does_not_need(
    tmp_path: Path,
) -> None:
    """A run with a compound shell command loads the lexer and the outcome readers, and still
    neither ``typing`` nor ``inspect`` (a dataclass without a docstring, a runtime Literal or
    Protocol would bring them: ~4 ms of CPU of every such stop). Gemini's session laid out as Gemini
    CLI writes it, so the run is parsed from its prompt."""
    chat = tmp_path / "chats" / "session-2026-01-01T00-00-abc.json"
    chat.parent.mkdir()
    command = "cd app && set -e; python -m pytest -q 2>&1 | tail -3 || echo $(date)"
    messages = [
        {"id": "m0", "type": "user", "content": "Fix the bug in app.py.",
         "timestamp": "2026-01-01T00:00:00.000Z"},
        {"id": "m1", "type": "gemini", "content": "Done: 3 tests pass.", "toolCalls": [
            {"id": "c1", "name": "run_shell_command", "status": "success",
             "args": {"command": command},
             "result": [{"functionResponse": {"response": {"output": "3 passed in 0.1s"}}}]}],
         "timestamp": "2026-01-01T00:00:01.000Z"},
    ]  # fmt: skip
    session = {"sessionId": "s-1", "projectHash": "h", "messages": messages}
    chat.write_text(json.dumps(session, indent=2))
    workspace = tmp_path / "repo"
    workspace.mkdir()
    payload = {
        "session_id": "s-1", "cwd": str(workspace), "stop_hook_active": False,
        "hook_event_name": "AfterAgent", "transcript_path": str(chat),
        "prompt": "Fix the bug in app.py.", "prompt_response": "Done: 3 tests pass.",
    }  # fmt: skip
    _, modules = _stop("gemini", payload, tmp_path / "state")
    assert {"earnest.effects.shell_lexer", "earnest.effects.shell_outcomes"} <= modules
    needed = ("no shell command in the run", "no test count claimed")
    never = {name: why for name, why in _never("gemini").items() if why not in needed}
    assert _loaded(modules, never) == []


def test_the_probe_sees_what_a_stop_imports_on_the_way(tmp_path: Path) -> None:
    """The check can fail: modules a stop imports lazily, in the worker thread that judges
    it, are in the list (a config file to read, a shell command to judge)."""
    session = Session(tmp_path)
    (session.workspace / "earnest.toml").write_text("[hooks]\nmax_downgrades = 1\n")
    session.prompt("Run the tests.")
    session.tool("Bash", {"command": "python -m pytest -q"}, "3 passed in 0.01s")
    session.say("Done: the tests pass.")
    out, modules = _stop("claude-code", _payload(session), session.state)
    assert out == ""
    seen = _loaded(modules, _never("claude-code"))
    for name in ("tomllib", "earnest.tomlfile", "earnest.effects.shell"):
        assert f"{name} ({NEVER[name]})" in seen, seen


def test_stops_started_without_site_judge_alike_and_import_no_third_party_module(
    tmp_path: Path,
) -> None:
    """The installed command starts the interpreter with ``-S``: everything a stop imports
    must then be the standard library or earnest, and its decisions must not change."""
    session = Session(tmp_path)
    session.prompt("Fix the bug in app.py.")
    session.say("Done, I fixed the bug.")
    blocked, modules = _stop("claude-code", _payload(session), session.state, no_site=True)
    assert "site" not in modules and "earnest.effects.gate" in modules
    assert json.loads(blocked)["decision"] == "block"
    assert _loaded(modules, _never("claude-code")) == []
    third_party = sorted(
        m
        for m in modules
        if m.split(".")[0] not in sys.stdlib_module_names | {"earnest", "__main__"}
    )
    assert third_party == []
    again, _ = _stop("claude-code", _payload(session), tmp_path / "state-site")
    assert json.loads(again) == json.loads(blocked)


def test_every_dataclass_a_stop_defines_has_its_own_docstring(tmp_path: Path) -> None:
    """On Python 3.11 ``@dataclass`` builds a missing ``__doc__`` from
    ``inspect.signature(cls)``, a measurable part of creating each class on every stop."""
    import dataclasses
    import importlib

    session = Session(tmp_path)
    session.prompt("Fix the bug in app.py.")
    session.say("Done, I fixed the bug.")
    _, modules = _stop("claude-code", _payload(session), session.state)
    undocumented = []
    for name in sorted(m for m in modules if m.split(".")[0] == "earnest"):
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == name:
                generated = f"{value.__name__}("  # what dataclasses writes when none is given
                if dataclasses.is_dataclass(value) and (value.__doc__ or "").startswith(generated):
                    undocumented.append(f"{name}.{value.__name__}")
    assert undocumented == []
