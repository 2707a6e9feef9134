"""No file in a repository chooses where data or credentials go, or widens an acting agent.

A suite comes from any pull request. The profile keys that send the prompts and the API key
somewhere (``base_url``), pick the credential (``api_key_env``) or widen an acting agent
(``allow_env``, ``allow_network``, ``allow_read``, ``confine = "none"``) are refused in a
suite file (exit 2, naming the file, the key and where it belongs); the user's own config
file (``EARNEST_CONFIG`` here) and the command line give them. A suite may point a model
API profile at a server on this machine: that profile sends no key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("openai")

from live_servers import Action, FakeModelServer, Request
from live_suite import write_suite

from conftest import run_earnest

KEY = "sk-proj-secret0000000000000000000000"
OTHER = "ghp_other00000000000000000000000000000000"


def _answer(req: Request) -> Action:
    return Action(text="Rule 1.\nCHOICE: A")


def _run(suite: Path, tmp_path: Path, *args: str, user: str | None = None):  # type: ignore[no-untyped-def]
    env = {"OPENAI_API_KEY": KEY, "GITHUB_TOKEN": OTHER, "MY_GATEWAY_KEY": "gw-key-123"}
    config = tmp_path / "user-config.toml"
    if user is not None:
        config.write_text(user, encoding="utf-8")
    else:
        config.unlink(missing_ok=True)
    env["EARNEST_CONFIG"] = str(config)
    return run_earnest(
        "run", "--suite", str(suite), "--store", str(tmp_path / "runs.db"), "-y",
        "--arms", "rule", "--fixtures", "LIVE-000", *args, env=env,
    )  # fmt: skip


def _keys(srv: FakeModelServer) -> set[str]:
    return {r.headers.get("authorization", "") for r in srv.requests}


@pytest.mark.parametrize(
    ("table", "key", "flag"),
    [
        (
            'provider = "openai:m"\nbase_url = "https://gateway.example.com/v1"',
            "base_url",
            "--base-url URL",
        ),
        (
            'provider = "openai:m"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "GITHUB_TOKEN"',
            "api_key_env",
            "--api-key-env NAME",
        ),
        (
            'provider = "anthropic:m"\nbase_url = "http://10.0.0.5:8080"',
            "base_url",
            "--base-url URL",
        ),
        ('command = ["./agent.sh"]\nallow_env = ["GITHUB_TOKEN"]', "allow_env", "--allow-env NAME"),
        (
            'command = ["./agent.sh"]\nallow_network = ["evil.example.com:443"]',
            "allow_network",
            "--allow-network HOST:PORT",
        ),
        ('command = ["./agent.sh"]\nallow_read = ["~/.ssh"]', "allow_read", "--allow-read PATH"),
        (
            'command = ["./agent.sh"]\nbase_url = "http://127.0.0.1:2375"',
            "base_url",
            "--base-url URL",
        ),
    ],
)
def test_a_suite_that_widens_or_redirects_is_refused_naming_file_key_and_place(
    tmp_path: Path, table: str, key: str, flag: str
) -> None:
    suite = write_suite(tmp_path / "suite", 1, live=f"[live.profiles.pr]\n{table}\n")
    proc = _run(suite, tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr
    assert f"earnest.toml: live.profiles.pr.{key}: a suite file cannot set {key}" in err, err
    assert "anyone who can change the suite" in err
    assert f"[live.profiles.pr] {key} = ..." in err and str(tmp_path / "user-config.toml") in err
    assert flag in err and "Traceback" not in err
    assert not (tmp_path / "runs.db").exists()
    # lint reports it too: the suite itself is wrong, not only the run
    lint = run_earnest("check", "--suite", str(suite), env={"EARNEST_CONFIG": "/nonexistent"})
    assert lint.returncode == 2 and f"live.profiles.pr.{key}" in lint.stderr, lint.stderr


def test_a_suite_local_base_url_is_used_but_gets_no_key(tmp_path: Path) -> None:
    """Before the fix the suite's base URL received the user's OPENAI_API_KEY."""
    with FakeModelServer(_answer) as srv:
        suite = write_suite(
            tmp_path / "suite",
            1,
            live=f'[live.profiles.local]\nprovider = "openai:llama3"\nbase_url = "{srv.base_url}"\n',
        )
        proc = _run(suite, tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert srv.requests, proc.stderr
    assert _keys(srv) == {"Bearer earnest-local"}, _keys(srv)


def test_the_command_line_base_url_sends_the_key_where_the_user_said(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    with FakeModelServer(_answer) as srv:
        proc = _run(suite, tmp_path, "--profile", "m=openai:llama3", "--base-url", srv.base_url)
        assert proc.returncode in (0, 1), proc.stderr
        assert _keys(srv) == {f"Bearer {KEY}"}
        proc = _run(
            suite, tmp_path, "--profile", "m=openai:llama3", "--base-url", srv.base_url,
            "--api-key-env", "MY_GATEWAY_KEY",
        )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    assert _keys(srv) == {f"Bearer {KEY}", "Bearer gw-key-123"}


def test_a_user_config_grant_chooses_the_destination_and_the_key(tmp_path: Path) -> None:
    with FakeModelServer(_answer) as srv:
        suite = write_suite(
            tmp_path / "suite",
            1,
            live='[live.profiles.gw]\nprovider = "openai:llama3"\nbase_url = "http://127.0.0.1:9/v1"\n',
        )
        grant = f'[live.profiles.gw]\nbase_url = "{srv.base_url}"\napi_key_env = "MY_GATEWAY_KEY"\n'
        proc = _run(suite, tmp_path, user=grant)
    assert proc.returncode in (0, 1), proc.stderr
    assert _keys(srv) == {"Bearer gw-key-123"}


def test_a_key_never_goes_to_a_base_url_the_suite_chose(tmp_path: Path) -> None:
    suite = write_suite(
        tmp_path / "suite",
        1,
        live='[live.profiles.gw]\nprovider = "openai:llama3"\nbase_url = "http://127.0.0.1:9/v1"\n',
    )
    user = tmp_path / "user-config.toml"
    proc = _run(suite, tmp_path, user='[live.profiles.gw]\napi_key_env = "MY_GATEWAY_KEY"\n')
    assert proc.returncode == 2, proc.stderr
    assert f"{user}: live.profiles.gw.api_key_env: profile gw's base URL" in proc.stderr
    assert "give base_url here too" in proc.stderr
    proc = _run(suite, tmp_path, "--api-key-env", "MY_GATEWAY_KEY")
    assert proc.returncode == 2 and "--api-key-env: profile gw's base URL" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_profile_of_the_users_own_replaces_the_suites(tmp_path: Path) -> None:
    with FakeModelServer(_answer) as srv:
        suite = write_suite(
            tmp_path / "suite", 1, live='[live.profiles.m]\nprovider = "openai:from-suite"\n'
        )
        own = (
            f'[live.profiles.m]\nprovider = "openai:mine"\nbase_url = "{srv.base_url}"\n'
            'api_key_env = "MY_GATEWAY_KEY"\n'
        )
        proc = _run(suite, tmp_path, user=own)
    assert proc.returncode in (0, 1), proc.stderr
    assert {r.body.get("model") for r in srv.requests} == {"mine"}
    assert _keys(srv) == {"Bearer gw-key-123"}


@pytest.mark.parametrize(
    ("text", "place", "words"),
    [
        (
            "[live.profiles.gw]\nparams = {temperature = 1}\n",
            "live.profiles.gw.params",
            "a grant to profile gw (a table without provider or command) holds only",
        ),
        (
            '[live.profiles.gw]\nallow_netwrok = ["x:1"]\n',
            "live.profiles.gw.allow_netwrok",
            "did you mean allow_network?",
        ),
        ('[live]\nconfine = "off"\n', "live.confine", "must be one of auto, bwrap, none"),
        ("[live]\nsamples = 3\n", "live.samples", "unknown key samples"),
        (
            '[live.profiles.gw]\nallow_env = ["A B"]\n',
            "live.profiles.gw.allow_env[0]",
            "is not a variable name",
        ),
        ("[live\n", "line 1", ""),
    ],
)
def test_a_bad_user_config_names_its_file_and_place(
    tmp_path: Path, text: str, place: str, words: str
) -> None:
    suite = write_suite(tmp_path / "suite", 1, live='[live.profiles.gw]\nprovider = "openai:m"\n')
    proc = _run(suite, tmp_path, user=text)
    assert proc.returncode == 2, proc.stderr
    assert f"{tmp_path / 'user-config.toml'}: {place}" in proc.stderr, proc.stderr
    assert words in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--allow-env", "MY KEY", "is not a variable name"),
        ("--allow-network", "10.1.2.3:80", "reaches other machines by host name only"),
        ("--allow-read", "relative", "must be an absolute path"),
    ],
)
def test_bad_allow_flags_are_refused(tmp_path: Path, flag: str, value: str, words: str) -> None:
    suite = write_suite(tmp_path / "suite", 1)
    proc = _run(suite, tmp_path, "--profile", "x=exec:cmd:true", flag, value)
    assert proc.returncode == 2 and f"{flag}: " in proc.stderr and words in proc.stderr, proc.stderr


def test_a_resumed_run_sends_nothing_where_only_the_store_says(tmp_path: Path) -> None:
    """A run store is a file (``.earnest/runs.db`` by default) and may be committed to a
    repository: the ``base_url`` and ``api_key_env`` it holds are not the user's word. A resume
    that the user does not vouch for (the same flags, or their config) is refused and sends
    nothing; vouched for, it runs."""
    fail = {"on": True}

    def answer(req: Request) -> Action:
        return Action(status=400, text="no") if fail["on"] else _answer(req)

    suite = write_suite(tmp_path / "suite", 1)
    with FakeModelServer(answer) as srv:
        given = ("--profile", "gw=openai:m", "--base-url", srv.base_url)
        first = _run(suite, tmp_path, *given, "--api-key-env", "MY_GATEWAY_KEY", "--retries", "0")
        assert "void 1" in first.stderr, first.stderr
        run_id = first.stdout.strip().splitlines()[-1]
        sent = len(srv.requests)
        fail["on"] = False
        env = {
            "OPENAI_API_KEY": KEY,
            "MY_GATEWAY_KEY": "gw-key-123",
            "EARNEST_CONFIG": "/nonexistent",
        }
        db = str(tmp_path / "runs.db")
        bare = run_earnest("run", "--resume", run_id, "--store", db, "-y", env=env)
        assert bare.returncode == 2, bare.stderr
        assert f"{db}: run {run_id}: profile gw: base_url" in bare.stderr, bare.stderr
        assert "which you do not give now" in bare.stderr
        assert f"give it again: --base-url {srv.base_url}" in bare.stderr
        assert "Traceback" not in bare.stderr
        assert len(srv.requests) == sent  # nothing went anywhere
        half = run_earnest(
            "run", "--resume", run_id, "--store", db, "-y", "--base-url", srv.base_url, env=env
        )
        assert half.returncode == 2 and "profile gw: api_key_env" in half.stderr, half.stderr
        other = run_earnest(
            "run", "--resume", run_id, "--store", db, "-y", "--base-url", "http://127.0.0.1:9/v1",
            "--api-key-env", "MY_GATEWAY_KEY", env=env,
        )  # fmt: skip
        assert other.returncode == 2 and "profile gw: base_url" in other.stderr, other.stderr
        assert len(srv.requests) == sent
        vouched = run_earnest(
            "run", "--resume", run_id, "--store", db, "-y", *given[2:],
            "--api-key-env", "MY_GATEWAY_KEY", env=env,
        )  # fmt: skip
        assert vouched.returncode in (0, 1), vouched.stderr
        assert len(srv.requests) > sent and "void 0" in vouched.stderr, vouched.stderr
    assert _keys(srv) == {"Bearer gw-key-123"}


def test_a_stored_allow_list_or_unconfined_run_is_not_taken_from_the_store(tmp_path: Path) -> None:
    import dataclasses

    from earnest.errors import InputError
    from earnest.live.config import LiveConfig
    from earnest.live.profiles import parse_spec
    from earnest.live.session import Overrides, vouched
    from earnest.live.userconfig import UserConfig

    agent = dataclasses.replace(parse_spec("a", "exec:cmd:./agent.sh"), allow_env=("GITHUB_*",))
    local = dataclasses.replace(
        parse_spec("l", "openai:m"), base_url="http://127.0.0.1:8000/v1", keyless=True
    )
    stored = LiveConfig(profiles=(agent, local), confine="none")
    nobody = UserConfig(tmp_path / "none.toml")
    with pytest.raises(InputError) as info:
        vouched(stored, nobody, Overrides(), store=tmp_path / "runs.db", run_id="r1")
    assert "run r1: profile a: allow_env" in str(info.value)
    granted = UserConfig(tmp_path / "c.toml", grants={"a": {"allow_env": ("GITHUB_*",)}})
    kept = vouched(stored, granted, Overrides(), store=tmp_path / "runs.db", run_id="r1")
    # The suite's own local server needs no vouching; "none" from the store is dropped.
    assert kept.profiles == (agent, local) and kept.confine == "auto"
    mine = dataclasses.replace(granted, confine="none")
    assert vouched(stored, mine, Overrides(), store=tmp_path, run_id="r1").confine == "none"
    flag = Overrides(allow_env=("GITHUB_*",))
    assert vouched(stored, nobody, flag, store=tmp_path, run_id="r1").profiles[0] == agent
    own = dataclasses.replace(parse_spec("l", "openai:m"), base_url="https://gw.example.com/v1")
    users = UserConfig(tmp_path / "c.toml", profiles={"l": own})
    other = dataclasses.replace(stored, profiles=(own,))
    assert vouched(other, users, Overrides(), store=tmp_path, run_id="r1").profiles == (own,)
