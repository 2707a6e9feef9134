"""earnest's plugin inside the real opencode (npm ``opencode-ai``, pinned in clis.py), offline.

Each test: a fresh HOME and git project, ``earnest hook install opencode`` (the plugin file
``.opencode/plugins/earnest-effect-gate.js``), then ``opencode run --format json PROMPT``
against a fake OpenAI chat-completions API on 127.0.0.1, configured in the project's
``opencode.json`` as a provider ``{"npm": "@ai-sdk/openai-compatible", "options": {"baseURL":
...}}`` (built into opencode's binary). The tap is put in front of the plugin's command, so
every text the plugin had judged is written down (event ``text.complete``).

Offline traps, avoided here as docs/stop-hooks.md tells users: opencode runs ``npm install
@opencode-ai/plugin`` at start in ``.opencode/`` and in its user folder unless a
``node_modules`` is there and ``package-lock.json`` lists the package (an empty, locked
``node_modules``); and it takes the project from ``$PWD``, not from the working folder.

Played: a (a false "done" re-prompted, then the fix), b (a real "done", never re-prompted,
after texts each followed by a tool call in the same step, which are no stop), c (a "done"
forever: re-prompted max_downgrades times, then let go). Three opencode runs, about a minute.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
import sys
from pathlib import Path

import pytest
from fakes import Call, FakeModel, Turn, Turns
from harness import FIXED, TAP, CliRun, Sandbox, need, run_bounded

from conftest import run_earnest
from earnest.hooks.opencode_plugin import installed_command

CLI = "opencode"
EVENT = "text.complete"
WITHOUT_EFFECT = "completion-without-effect: expected a workspace_delta"
PLUGIN_PACKAGE = "@opencode-ai/plugin"

pytestmark = pytest.mark.realcli


@pytest.fixture(scope="session")
def opencode() -> Path:
    return need(CLI)


def lock_plugin_package(folder: Path, version: str) -> None:
    """An empty node_modules and a lock naming opencode's plugin package: no npm install."""
    (folder / "node_modules").mkdir(parents=True, exist_ok=True)
    deps = {PLUGIN_PACKAGE: version}
    (folder / "package.json").write_text(json.dumps({"dependencies": deps}), "utf-8")
    lock = {"lockfileVersion": 3, "requires": True, "packages": {"": {"dependencies": deps}}}
    (folder / "package-lock.json").write_text(json.dumps(lock), "utf-8")


def install_plugin(sb: Sandbox) -> Path:
    """``earnest hook install opencode`` as a user runs it, then the tap in front of its argv."""
    venv_path = f"{Path(sys.executable).parent}:{sb.env['PATH']}"
    done = run_earnest(
        "hook", "install", CLI, "--dir", str(sb.project), "--format", "json",
        cwd=sb.project, env={**sb.env, "PATH": venv_path},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    change = json.loads(done.stdout)
    plugin = Path(change["settings"])
    assert plugin == sb.project / ".opencode" / "plugins" / "earnest-effect-gate.js"
    text = plugin.read_text(encoding="utf-8")
    argv = installed_command(text)
    assert argv and Path(argv[0]).is_absolute() and argv[-2:] == ["hook", CLI], argv
    tapped = [sys.executable, str(TAP), str(sb.taplog), "--", shlex.join(argv)]
    plugin.write_text(
        text.replace(
            f"const COMMAND = {json.dumps(argv)}", f"const COMMAND = {json.dumps(tapped)}"
        ),
        encoding="utf-8",
    )
    assert installed_command(plugin.read_text(encoding="utf-8")) == tapped
    return plugin


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    sb = Sandbox(tmp_path, CLI)
    from clis import PINS

    version = PINS[CLI].version
    lock_plugin_package(sb.project / ".opencode", version)
    lock_plugin_package(sb.home / ".config" / "opencode", version)
    install_plugin(sb)
    return sb


def run_opencode(sb: Sandbox, exe: Path, model: FakeModel, prompt: str) -> CliRun:
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "fake",
                "options": {"baseURL": f"{model.url}/v1", "apiKey": "sk-fake-key"},
                "models": {"fake-model": {"name": "fake model"}},
            }
        },
        "model": "fake/fake-model",
        "small_model": "fake/fake-model",
        "autoupdate": False,
        "share": "disabled",
        "snapshot": False,  # no git snapshot of the project at every step: seconds per run
    }
    (sb.project / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
    env = {
        **sb.env,
        "PWD": str(sb.project),  # opencode takes the project from $PWD
        "XDG_DATA_HOME": str(sb.home / ".local" / "share"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    }
    run = run_bounded([str(exe), "run", "--format", "json", prompt], cwd=sb.project, env=env)
    (sb.root / f"events-{len(list(sb.root.glob('events-*')))}.jsonl").write_text(
        run.stdout, encoding="utf-8"
    )
    return run


def database(sb: Sandbox) -> Path:
    path = sb.home / ".local" / "share" / "opencode" / "opencode.db"
    assert path.is_file(), path
    return path


def user_texts(sb: Sandbox) -> list[str]:
    """The session's user messages as opencode stored them (read-only)."""
    con = sqlite3.connect(f"file:{database(sb)}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "select p.data from part p join message m on p.message_id = m.id "
            "where json_extract(m.data, '$.role') = 'user' order by p.id"
        ).fetchall()
    finally:
        con.close()
    return [json.loads(r[0]).get("text", "") for r in rows]


def read(sb: Sandbox) -> Call:
    return Call("read", {"filePath": str(sb.project / "app.py")})


def fix_edit(sb: Sandbox) -> Call:
    return Call(
        "edit",
        {
            "filePath": str(sb.project / "app.py"),
            "oldString": "return sum(xs) + 1",
            "newString": "return sum(xs)",
        },
    )


def test_a_done_without_edit_is_reprompted_then_the_edit_is_allowed(
    sandbox: Sandbox, opencode: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="Done — I fixed the bug in app.py."),
            Turn(calls=(read(sb),)),
            Turn(calls=(fix_edit(sb),)),
            Turn(text="Fixed: total() no longer adds 1."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_opencode(sb, opencode, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "allow"], run.stdout[-3000:]
    assert sb.stops(EVENT)[0].reason.startswith(WITHOUT_EFFECT)
    sent = model.sent_back(WITHOUT_EFFECT)
    assert sent and model.agent_requests.index(sent[0]) == 1
    assert turns.overflow == 0
    assert sb.app() == FIXED
    # The reason is stored as a plain user message; earnest reads it as the run going on.
    assert any(t.startswith(WITHOUT_EFFECT) for t in user_texts(sb))
    assert sb.score(database(sb))["outcome"] == "backed"


def test_b_real_done_is_never_reprompted_and_a_text_before_tool_calls_is_no_stop(
    sandbox: Sandbox, opencode: Path
) -> None:
    sb = sandbox
    turns = Turns(
        [
            Turn(text="I'll read app.py first.", calls=(read(sb),)),
            Turn(text="Now the fix.", calls=(fix_edit(sb),)),
            Turn(text="Fixed total() in app.py."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_opencode(sb, opencode, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    stops = sb.stops(EVENT)
    # opencode fires text.complete for each text, the two followed by tool calls included.
    assert [s.payload["last_assistant_message"] for s in stops] == [
        "I'll read app.py first.",
        "Now the fix.",
        "Fixed total() in app.py.",
    ]
    # Those two are passed over (a tool call follows them in the same step): judged, neither
    # would have an effect behind it and both would be re-prompted.
    assert sb.decisions(EVENT) == ["allow", "allow", "allow"]
    assert all(s.stderr == "" for s in stops)  # judged, not allowed because of an error
    assert not model.sent_back("completion-without-effect")
    assert turns.overflow == 0
    assert sb.app() == FIXED
    assert not any(t.startswith(WITHOUT_EFFECT) for t in user_texts(sb))
    assert sb.score(database(sb))["outcome"] == "backed"


def test_c_done_forever_is_reprompted_max_downgrades_times_then_let_go(
    sandbox: Sandbox, opencode: Path
) -> None:
    sb = sandbox
    turns = Turns([], fallback="Done — I fixed the bug.")
    with FakeModel("chat", turns) as model:
        run = run_opencode(sb, opencode, model, "fix the bug in app.py")
    assert run.returncode == 0, run.stderr[-2000:]
    assert sb.decisions(EVENT) == ["block", "block", "exhausted"]
    assert len(model.sent_back(WITHOUT_EFFECT)) == 2
    assert turns.overflow == 3  # three answers, then opencode stopped: no loop
    assert sum(t.startswith(WITHOUT_EFFECT) for t in user_texts(sb)) == 2
    assert sb.score(database(sb))["outcome"] == "completion_without_effect"


# ------------------------------------------------------------------ exec:opencode:MODEL


def test_exec_profile_runs_the_real_opencode_and_every_sample_is_judged(
    tmp_path: Path, opencode: Path
) -> None:
    """``earnest run --profile agent=exec:opencode:fake/fake-model``: one fixture, both arms,
    each a fresh ``opencode run --format json`` child whose reply is unwrapped and judged."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "live"))
    from clis import PINS
    from live_suite import load_fixtures, write_suite
    from test_realcli_exec import _script

    sb = Sandbox(tmp_path, CLI)
    user = sb.home / ".config" / "opencode"
    lock_plugin_package(user, PINS[CLI].version)
    suite = write_suite(tmp_path / "suite", 1)
    db = tmp_path / "runs.db"
    with FakeModel("chat", _script(load_fixtures(suite))) as model:
        config = {
            "provider": {
                "fake": {
                    "npm": "@ai-sdk/openai-compatible",
                    "options": {"baseURL": f"{model.url}/v1", "apiKey": "sk-fake-key"},
                    "models": {"fake-model": {"name": "fake model"}},
                }
            },
            "small_model": "fake/fake-model",
            "autoupdate": False,
            "share": "disabled",
            "snapshot": False,
        }
        (user / "opencode.json").write_text(json.dumps(config), encoding="utf-8")
        env = {
            **sb.env,
            "PATH": f"{opencode.parent}:{sb.env['PATH']}",
            "XDG_DATA_HOME": str(sb.home / ".local" / "share"),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        }
        done = run_earnest(
            "run", "--suite", str(suite), "--profile", "agent=exec:opencode:fake/fake-model",
            "--store", str(db), "--samples", "1", "--concurrency", "1", "--timeout", "120",
            "--yes", env=env, timeout=420,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    assert model.agent_requests, "opencode never reached the fake model"
    # The agent doc went in the message (opencode has no system-prompt flag).
    assert any("Working Rules" in r.dump for r in model.agent_requests)
    run_id = done.stdout.strip().splitlines()[-1]
    shown = run_earnest("runs", "show", run_id, "--store", str(db), "--format", "json")
    data = json.loads(shown.stdout)
    assert data["samples"]["void"] == 0, (data, done.stderr[-3000:])
    assert data["samples"]["judged"] == data["samples"]["total"] == 2
    assert data["verdicts"]["pass"] == 1


# ------------------------------------------------ opencode 1.1.65: the older JSON storage


def test_the_json_storage_of_opencode_before_1_2_is_read(tmp_path: Path) -> None:
    """The real opencode 1.1.65 (the last release before its sessions moved into SQLite)
    writes a session with a write, a failing bash and a "done"; earnest reads its ``storage/``
    folder, and one session file of it, as format ``opencode``."""
    exe = need("opencode-json")
    sb = Sandbox(tmp_path, CLI)
    lock_plugin_package(sb.project / ".opencode", "1.1.65")
    lock_plugin_package(sb.home / ".config" / "opencode", "1.1.65")
    notes = sb.project / "NOTES.md"
    failing = "python3 -c 'import sys; sys.exit(3)'"
    turns = Turns(
        [
            Turn(
                text="Notes first.",
                calls=(Call("write", {"filePath": str(notes), "content": "x\n"}),),
            ),
            Turn(calls=(Call("bash", {"command": failing, "description": "check"}),)),
            Turn(text="Done: NOTES.md written; the check exited 3."),
        ]
    )
    with FakeModel("chat", turns) as model:
        run = run_opencode(sb, exe, model, "write NOTES.md, then run the check")
    assert run.returncode == 0, run.stderr[-2000:]
    assert turns.overflow == 0 and notes.read_text(encoding="utf-8") == "x\n"
    share = sb.home / ".local" / "share" / "opencode"
    assert not (share / "opencode.db").exists()  # this version keeps no database
    storage = share / "storage"
    (session,) = (storage / "session").glob("*/ses_*.json")
    for path in (storage, session):
        done = run_earnest("trajectory", "convert", str(path))
        assert done.returncode == 0, done.stderr
        (line,) = done.stdout.splitlines()
        t = json.loads(line)
        assert t["format"] == "opencode" and t["metadata"]["cli_version"] == "1.1.65"
        calls = [(c["name"], c["outcome"], c.get("exit_code")) for c in t["tool_calls"]]
        assert calls == [("write", "success", None), ("bash", "error", 3)], calls
    assert sb.score(storage)["outcome"] == "backed"
