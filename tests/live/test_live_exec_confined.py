"""A completing ``exec:`` agent (``earnest run`` without ``--act``) is confined as an acting one
is: the allow-list environment, a HOME of its own, no host sockets, only its model endpoint,
and its empty working folder (with its own ``TMPDIR``) the only place it can write.

A real ``exec:cmd`` child (a Python script the suite names) probes its world and prints what
it found as JSON before its CHOICE line; the test reads it back from the run's store. The
paths it probes are in a file its command names (never the probed paths themselves: a path the
command names in the suite folder stays readable).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_suite import write_suite
from tests.confinekit import Listener, Pong, need_bwrap
from tests.serverkit import LocalServer

from conftest import run_earnest

SECRETS = {
    "OPENAI_API_KEY": "sk-proj-leak0000000000000000",
    "GITHUB_TOKEN": "ghp_leak000000000000000000000000000000",
    "AWS_SECRET_ACCESS_KEY": "leakleakleakleakleakleakleakleakleakleak",
}
KEY_TEXT = "-----BEGIN OPENSSH PRIVATE KEY-----\nplanted\n"

PROBER = """\
import json, os, socket, sys, urllib.request
from pathlib import Path

probe = json.loads(Path(sys.argv[1]).read_text())
sys.stdin.read()
seen = {"env": sorted(os.environ), "home": os.environ.get("HOME", ""), "cwd": os.getcwd()}
seen["secrets"] = [k for k in probe["secrets"] if k in os.environ]
try:
    seen["key"] = Path(probe["key"]).read_text()
except OSError as exc:
    seen["key"] = exc.strerror
for name, path in probe["sockets"].items():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(path)
        s.sendall(b"GET /containers/json HTTP/1.0\\r\\n\\r\\n")
        seen[name] = "connected"
    except OSError as exc:
        seen[name] = exc.strerror or str(exc)
    finally:
        s.close()
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(5)
try:
    s.connect(("127.0.0.1", probe["other"]))
    s.sendall(b"hello")
    seen["other"] = "connected"
except OSError as exc:
    seen["other"] = exc.strerror or str(exc)
finally:
    s.close()
try:
    url = f"http://127.0.0.1:{probe['model']}/v1/ping"
    seen["model"] = urllib.request.urlopen(url, timeout=20).read().decode()
except OSError as exc:
    seen["model"] = str(exc)
for name, path in (("outside", probe["outside"]), ("inside", "note.txt")):
    try:
        Path(path).write_text("written\\n")
        seen[name] = "written"
    except OSError as exc:
        seen[name] = exc.strerror
print(json.dumps(seen))
print("Rule 1 decides this.")
print("CHOICE: A")
"""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The user's HOME with a planted key, the listeners, the fake model."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY_TEXT, encoding="utf-8")
    listeners = {
        "ssh": Listener.unix(tmp_path / "ssh-Xq1" / "agent.1"),
        "docker": Listener.unix(tmp_path / "docker" / "docker.sock"),
    }
    run_dir = Path("/run") / f"earnest-test-{uuid.uuid4().hex[:8]}"
    if os.access("/run", os.W_OK):  # a stand-in for /var/run/docker.sock
        listeners["run"] = Listener.unix(run_dir / "docker.sock")
    other = Listener.tcp()
    with LocalServer(Pong) as model:
        yield {"home": home, "listeners": listeners, "other": other, "model": model.port}
    for listener in [*listeners.values(), other]:
        listener.close()
    shutil.rmtree(run_dir, ignore_errors=True)


def complete_probe(
    tmp_path: Path, world: dict[str, Any], *extra: str
) -> tuple[Any, dict[str, Any]]:
    """Run the probe once in complete mode; what it saw."""
    suite = write_suite(
        tmp_path / "suite",
        1,
        live=f'[live.profiles.probe]\ncommand = ["{sys.executable}", "{{suite}}/prober.py", '
        '"{suite}/probe.json"]\n',
    )
    (suite / "prober.py").write_text(PROBER, encoding="utf-8")
    listeners = world["listeners"]
    probe = {
        "key": str(world["home"] / ".ssh" / "id_rsa"),
        "sockets": {name: str(Path(lst.sock.getsockname())) for name, lst in listeners.items()},
        "other": world["other"].port,
        "model": world["model"],
        "outside": str(tmp_path / "outside.txt"),
        "secrets": [*SECRETS, "SSH_AUTH_SOCK", "DOCKER_HOST"],
    }
    (suite / "probe.json").write_text(json.dumps(probe), encoding="utf-8")
    env = {
        **SECRETS,
        "HOME": str(world["home"]),
        "SSH_AUTH_SOCK": probe["sockets"]["ssh"],
        "DOCKER_HOST": "unix://" + probe["sockets"]["docker"],
        "MY_AGENT_KEY": "declared",
    }
    store = tmp_path / "r.db"
    proc = run_earnest(
        "run", "--suite", str(suite), "--store", str(store), "-y", "--profile", "probe",
        "--arms", "rule", "--samples", "1", "--allow-env", "MY_AGENT_KEY",
        "--allow-network", f"127.0.0.1:{world['model']}", *extra, env=env,
    )  # fmt: skip
    assert proc.returncode in (0, 1) and store.exists(), proc.stdout + proc.stderr
    from earnest.live.store import RunStore

    with RunStore(store, create=False) as st:
        (record,) = st.samples(proc.stdout.strip().splitlines()[-1])
    assert record.error is None, record.error
    line = next(x for x in record.raw_reply.splitlines() if x.startswith("{"))
    seen: dict[str, Any] = json.loads(line)
    return proc, seen


def test_a_confined_completing_agent_reaches_only_its_folder_and_its_model(
    tmp_path: Path, world: dict[str, Any]
) -> None:
    need_bwrap()
    proc, seen = complete_probe(tmp_path, world, "--confine", "bwrap")
    # 1. no secret of the user's environment, what it was granted
    assert seen["secrets"] == [], seen
    assert {"PATH", "MY_AGENT_KEY", "HOME", "TMPDIR"} <= set(seen["env"]), seen["env"]
    # 2. a HOME of its own, the user's hidden
    assert seen["home"] != str(world["home"]) and "/earnest-exec-" in seen["home"], seen
    assert seen["key"] == "No such file or directory", seen
    # 3. no host sockets
    for name, listener in world["listeners"].items():
        assert seen[name] != "connected", (name, seen)
        assert listener.got == [], (name, listener.got)
    # 4. the model endpoint only
    assert seen["model"] == "pong", seen
    assert seen["other"] == "Connection refused", seen
    assert world["other"].got == []
    # 5. its empty working folder is the one place it writes
    assert seen["inside"] == "written" and "/earnest-exec-" in seen["cwd"], seen
    assert seen["outside"] == "Read-only file system", seen
    assert not (tmp_path / "outside.txt").exists()
    assert "unconfined" not in proc.stderr and "NOT confined" not in proc.stderr


def test_an_unconfined_completing_agent_is_said_so(tmp_path: Path, world: dict[str, Any]) -> None:
    proc, seen = complete_probe(tmp_path, world, "--confine", "none")
    assert seen["secrets"] == [], seen  # the environment is the allow-list in every mode
    assert seen["key"] == KEY_TEXT  # it reads what you can, and the run says so
    assert (
        'the exec: agents are unconfined (confine = "none"): the agents of probe run as you'
        in proc.stderr
    ), proc.stderr
    for words in ("every file you can", "~/.ssh", "every socket", "every network address"):
        assert words in proc.stderr, (words, proc.stderr)


def test_pi_and_opencode_reach_the_base_url_their_own_config_gives(tmp_path: Path) -> None:
    """What a confined ``exec:pi`` / ``exec:opencode`` child may connect to: the base URL its
    CLI's config gives the provider its MODEL names (as Codex's config.toml does for Codex);
    Pi's state folder is carried into its HOME."""
    from earnest.live.confine import state_paths
    from earnest.live.netgate import Endpoint, endpoints
    from earnest.live.profiles import parse_spec

    home = tmp_path / "home"
    (home / ".pi" / "agent").mkdir(parents=True)
    (home / ".pi" / "agent" / "models.json").write_text(
        json.dumps({"providers": {"fake": {"baseUrl": "http://127.0.0.1:4321/v1"}}})
    )
    (home / ".config" / "opencode").mkdir(parents=True)
    (home / ".config" / "opencode" / "opencode.json").write_text(
        json.dumps({"provider": {"fake": {"options": {"baseURL": "https://llm.example.com/v1"}}}})
    )
    pi = parse_spec("p", "exec:pi:fake/fake-model")
    assert endpoints(pi, {}, home) == (Endpoint("127.0.0.1", 4321),)
    opencode = parse_spec("o", "exec:opencode:fake/fake-model")
    assert endpoints(opencode, {}, home) == (Endpoint("llm.example.com", 443),)
    # Another provider, or no config: nothing but what the user allows.
    assert endpoints(parse_spec("p", "exec:pi:other/m"), {}, home) == ()
    assert endpoints(pi, {}, tmp_path / "nobody") == ()
    assert state_paths("pi", home, {}) == [home / ".pi" / "agent"]
    assert state_paths("pi", home, {"PI_CODING_AGENT_DIR": "/srv/pi"}) == [Path("/srv/pi")]
