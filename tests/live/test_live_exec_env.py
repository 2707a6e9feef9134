"""A completing ``exec:`` child gets the allow-list environment, never the user's whole one.

A suite file comes from any pull request, and its profile may name a command (``command =
[...]``). In a plain ``earnest run`` (no ``--act``) that command ran with every variable of
the user's environment: a ``GITHUB_TOKEN``, an ``OPENAI_API_KEY``, the SSH agent's socket.
Now it gets what any program needs, the user's ``HOME``, earnest's own variables and what the
user granted (``--allow-env``, their own config), as an acting agent does. These run unconfined (the command records what it saw in the suite
folder); confined, it gets a HOME of its own too: test_live_exec_confined.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from live_suite import write_suite

from conftest import run_earnest
from earnest.live.agentenv import allowed_env
from earnest.live.confine import Confinement
from earnest.live.profiles import parse_spec
from earnest.live.sandbox import prepare

SECRETS = {
    "GITHUB_TOKEN": "ghp_fake000000000000000000000000000000000",
    "OPENAI_API_KEY": "sk-proj-fake0000000000000000000000",
    "AWS_SECRET_ACCESS_KEY": "fakeAWSsecret0000000000000000000000000000",
    "SSH_AUTH_SOCK": "/tmp/ssh-fake/agent.1",
}

LEAK = """
import json, os, sys
sys.stdin.read()
with open(sys.argv[1], "a") as fh:
    fh.write(json.dumps(dict(os.environ)) + "\\n")
print("Rule 1 decides this.\\nCHOICE: A")
"""


def _suite(tmp_path: Path) -> Path:
    suite = write_suite(
        tmp_path / "suite",
        1,
        live=f'[live.profiles.pr]\ncommand = ["{sys.executable}", "{{suite}}/leak.py", '
        '"{suite}/seen.jsonl"]\n',
    )
    (suite / "leak.py").write_text(LEAK, encoding="utf-8")
    return suite


def _seen(suite: Path) -> list[dict[str, str]]:
    record = suite / "seen.jsonl"
    assert record.is_file(), "the suite's command never ran"
    return [json.loads(line) for line in record.read_text().splitlines()]


def _run(suite: Path, tmp_path: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return run_earnest(
        "run", "--suite", str(suite), "--store", str(tmp_path / "runs.db"), "-y",
        "--arms", "rule", "--samples", "1", "--confine", "none", *args,
        env={**SECRETS, **(env or {})},
    )  # fmt: skip


def test_a_suite_command_sees_no_secret_of_the_users_environment(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    proc = _run(suite, tmp_path, env={"HOME": str(tmp_path)})
    assert proc.returncode in (0, 1), proc.stderr
    assert "void 0" in proc.stderr, proc.stderr
    for env in _seen(suite):
        leaked = sorted(set(SECRETS) & set(env))
        assert not leaked, f"the suite's command saw {leaked}"
        assert not any(v in env.values() for v in SECRETS.values())
        # What it needs to run, and earnest's own variables, are there.
        assert env["PATH"] and env["HOME"] == str(tmp_path)
        assert env["EARNEST_HOOK_DISABLE"] == "1" and env["EARNEST_MODEL"]
        # Its temporary folder is its own, removed with it.
        assert Path(env["TMPDIR"]).name == "tmp" and not Path(env["TMPDIR"]).exists()


def test_the_users_own_grants_reach_the_command(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    config = tmp_path / "user-config.toml"
    config.write_text('[live.profiles.pr]\nallow_env = ["MY_CONF_*"]\n', encoding="utf-8")
    proc = _run(
        suite,
        tmp_path,
        "--allow-env",
        "MY_FLAG_KEY",
        env={"EARNEST_CONFIG": str(config), "MY_FLAG_KEY": "f1", "MY_CONF_KEY": "c1"},
    )
    assert proc.returncode in (0, 1), proc.stderr
    for env in _seen(suite):
        assert env.get("MY_FLAG_KEY") == "f1" and env.get("MY_CONF_KEY") == "c1"
        assert "GITHUB_TOKEN" not in env


def test_each_preset_keeps_what_it_needs_to_reach_its_model(tmp_path: Path) -> None:
    """Unconfined (it runs in the user's HOME, which keeps its XDG_* folders)."""
    user = {**SECRETS, "PATH": "/usr/bin", "HOME": "/home/me", "XDG_CONFIG_HOME": "/home/me/c",
            "ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "u", "CODEX_HOME": "/c",
            "GEMINI_API_KEY": "g", "GOOGLE_GEMINI_BASE_URL": "gu", "OPENROUTER_API_KEY": "o",
            "PI_CODING_AGENT_DIR": "/p", "OPENCODE_CONFIG": "/oc", "OPENAI_API_KEY": "k",
            "OPENAI_BASE_URL": "ou", "QWEN_HOME": "/q"}  # fmt: skip
    own = {"EARNEST_MODEL": "m"}

    def names(spec: str) -> set[str]:
        start = prepare(parse_spec("p", spec), ["x"], Confinement("none"), tmp_path, own,
                        user_env=user)  # fmt: skip
        env = start.env
        assert env["HOME"] == "/home/me" and env["XDG_CONFIG_HOME"] == "/home/me/c", spec
        return set(env) - {"PATH", "HOME", "XDG_CONFIG_HOME", "EARNEST_MODEL", "TMPDIR",
                           "TMP", "TEMP"}  # fmt: skip

    assert names("exec:claude:sonnet") == {"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"}
    assert names("exec:gemini:gemini-2.5-pro") == {"GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"}
    assert names("exec:codex:gpt-5") == {"CODEX_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL"}
    assert names("exec:qwen:qwen3-coder-plus") == {"OPENAI_API_KEY", "OPENAI_BASE_URL", "QWEN_HOME"}
    assert names("exec:pi:openrouter/some-model") == {"PI_CODING_AGENT_DIR", "OPENROUTER_API_KEY"}
    assert names("exec:pi:fake/fake-model") == {"PI_CODING_AGENT_DIR"}
    assert names("exec:opencode:anthropic/claude") == {"OPENCODE_CONFIG", "ANTHROPIC_API_KEY"}
    assert names("exec:cmd:./agent.sh") == set()
    # The user's grants (their config, --allow-env) widen it, by name or PREFIX_*.
    granted = replace(parse_spec("p", "exec:cmd:./agent.sh"), allow_env=("GITHUB_*",))
    assert set(allowed_env(granted, user)) == {"PATH", "GITHUB_TOKEN"}
