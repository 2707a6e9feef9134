"""What a confined acting agent can reach: its environment, files, sockets and network.

A scripted ``exec:cmd`` agent (written by the test) probes its world from inside an
``earnest run --act`` sample and prints what it found as JSON before its CHOICE line:

- the user's secrets in the environment (``OPENAI_API_KEY``, ``GITHUB_TOKEN``,
  ``AWS_SECRET_ACCESS_KEY``, ``SSH_AUTH_SOCK``) and the one variable its profile declares;
- a key planted at ``~/.ssh/id_rsa`` in the user's HOME;
- host Unix sockets: the SSH agent's (``SSH_AUTH_SOCK``), Docker's (``DOCKER_HOST``) and one
  under ``/run`` (where ``/var/run/docker.sock`` lives) when the test may make one there —
  each a real listener that records what it receives;
- TCP: a listener on another port of 127.0.0.1, and the model endpoint (a fake HTTP server on
  127.0.0.1 that the profile's ``allow_network`` names: given by the user's own config file,
  or by ``--allow-network``, never by the suite);
- background processes that write a file 2 s after the agent exits: one in its process
  group, one in a session of its own, one double-forked with an empty environment.

The paths it probes are in a file beside the agent (never on its command line, whose paths
stay readable). Unconfined, the run says plainly what the agent can reach.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.agentickit import merge_only_suite
from tests.confinekit import Listener, Pong, need_bwrap
from tests.conftest import run_earnest
from tests.serverkit import LocalServer

SECRETS = {
    "OPENAI_API_KEY": "sk-proj-leak0000000000000000",
    "GITHUB_TOKEN": "ghp_leak000000000000000000000000000000",
    "AWS_SECRET_ACCESS_KEY": "leakleakleakleakleakleakleakleakleakleak",
}
KEY_TEXT = "-----BEGIN OPENSSH PRIVATE KEY-----\nplanted\n"

PROBER = """\
import json, os, re, shlex, socket, subprocess, sys, urllib.request
from pathlib import Path

probe = json.loads((Path(__file__).parent / "probe.json").read_text())
prompt = sys.stdin.read()
first = next(m.group(1) for m in re.finditer(r"^([A-Z])\\) (.*)$", prompt, re.M)
             if "run the full test suite" in m.group(2).lower())
seen = {"env": sorted(os.environ), "home": os.environ.get("HOME", "")}
Path("note.txt").write_text("in the copy\\n")
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
subprocess.Popen(["sh", "-c", f"sleep 2; echo late > {probe['late']}"],
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
# A session of its own (setsid): out of the process group earnest kills.
subprocess.Popen(["sh", "-c", f"sleep 2; echo late > {probe['late']}.setsid"],
                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                 start_new_session=True)
# And one that empties its environment too, double-forked (its parent shell exits at once).
late = shlex.quote(probe["late"] + ".envi")
subprocess.run(["sh", "-c", f"env -i setsid sh -c 'sleep 2; echo late > {late}' &"],
               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(json.dumps(seen))
print("Rule 1 (never merge on an unrun suite).")
print(f"CHOICE: {first}")
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


def act_probe(
    tmp_path: Path, world: dict[str, Any], *extra: str, grant: str = "config"
) -> tuple[Any, dict[str, Any]]:
    """Act the probe out; its ``allow_env`` / ``allow_network`` come from the user's config
    file (``grant="config"``) or the command line (``grant="flags"``)."""
    agent = tmp_path / "prober.py"
    agent.write_text(PROBER, encoding="utf-8")
    late = tmp_path / "late.txt"
    listeners = world["listeners"]
    probe = {
        "key": str(world["home"] / ".ssh" / "id_rsa"),
        "sockets": {name: str(Path(lst.sock.getsockname())) for name, lst in listeners.items()},
        "other": world["other"].port,
        "model": world["model"],
        "late": str(late),
    }
    (tmp_path / "probe.json").write_text(json.dumps(probe), encoding="utf-8")
    suite = merge_only_suite(tmp_path / "agentic")
    cfg = suite / "earnest.toml"
    cfg.write_text(
        cfg.read_text()
        + f"""
[live.profiles.probe]
command = [{json.dumps(sys.executable)}, {json.dumps(str(agent))}]
""",
        encoding="utf-8",
    )
    user = tmp_path / "user-config.toml"
    if grant == "config":
        user.write_text(
            f"""[live.profiles.probe]
allow_env = ["MY_AGENT_KEY"]
allow_network = ["127.0.0.1:{world["model"]}"]
""",
            encoding="utf-8",
        )
    else:
        extra = (*extra, "--allow-env", "MY_AGENT_KEY",
                 "--allow-network", f"127.0.0.1:{world['model']}")  # fmt: skip
    env = {
        "EARNEST_CONFIG": str(user),
        **SECRETS,
        "HOME": str(world["home"]),
        "SSH_AUTH_SOCK": probe["sockets"]["ssh"],
        "DOCKER_HOST": "unix://" + probe["sockets"]["docker"],
        "MY_AGENT_KEY": "declared",
    }
    store = tmp_path / "r.db"
    proc = run_earnest(
        "run", "--suite", str(suite), "--act", "--store", str(store), "-y", "--profile", "probe",
        *extra, env=env,
    )  # fmt: skip
    assert proc.returncode in (0, 1) and store.exists(), proc.stdout + proc.stderr
    from earnest.live.store import RunStore

    with RunStore(store, create=False) as st:
        (record,) = st.samples(proc.stdout.strip().splitlines()[-1])
    assert record.error is None, record.error
    line = next(x for x in record.raw_reply.splitlines() if x.startswith("{"))
    seen: dict[str, Any] = json.loads(line)
    seen["confined"] = record.judgement["action"]["did"]["confined"]
    seen["created"] = record.judgement["action"]["did"]["created"]
    return proc, seen


def _no_secrets(seen: dict[str, Any]) -> None:
    env = set(seen["env"])
    for name in (*SECRETS, "SSH_AUTH_SOCK", "DOCKER_HOST"):
        assert name not in env, (name, seen["env"])
    assert {"PATH", "MY_AGENT_KEY", "HOME", "TMPDIR", "EARNEST_WORKSPACE"} <= env, seen["env"]


def test_a_confined_agent_reaches_only_its_copy_and_its_model(
    tmp_path: Path, world: dict[str, Any]
) -> None:
    need_bwrap()
    proc, seen = act_probe(tmp_path, world, "--confine", "bwrap")
    assert seen["confined"] == "bwrap" and seen["created"] == ["note.txt"], seen
    _no_secrets(seen)  # 1. the allow-list environment
    # 2. a HOME of its own, the user's hidden
    assert seen["home"] != str(world["home"]) and "/earnest-act-" in seen["home"], seen
    assert seen["key"] == "No such file or directory", seen
    # 3. no host sockets
    for name, listener in world["listeners"].items():
        assert seen[name] != "connected", (name, seen)
        assert listener.got == [], (name, listener.got)
    # 4. the model endpoint only
    assert seen["model"] == "pong", seen
    assert seen["other"] == "Connection refused", seen
    assert world["other"].got == []
    assert "NOT confined" not in proc.stderr and "unconfined" not in proc.stderr


def test_an_unconfined_agent_gets_the_allow_list_and_the_run_says_what_it_reaches(
    tmp_path: Path, world: dict[str, Any]
) -> None:
    proc, seen = act_probe(tmp_path, world, "--confine", "none", grant="flags")
    assert seen["confined"] == "none"
    _no_secrets(seen)  # the environment is the allow-list in every mode
    assert seen["key"] == KEY_TEXT  # unconfined: it reads what you can, and the run says so
    assert 'act mode is unconfined (confine = "none"): the agents of probe run as you' in (
        proc.stderr
    )
    for words in ("every file you can", "~/.ssh", "every socket", "every network address"):
        assert words in proc.stderr, (words, proc.stderr)


def test_nothing_an_unconfined_agent_started_outlives_its_sample(
    tmp_path: Path, world: dict[str, Any]
) -> None:
    _, seen = act_probe(tmp_path, world, "--confine", "none")
    assert seen["model"] == "pong"
    time.sleep(4)  # the background writers sleep 2 s after the agent exits
    assert not (tmp_path / "late.txt").exists(), "a background process outlived its sample"
    # One that left the group with a session of its own, and one that also emptied its
    # environment and lost its parent: both were the sample's reaper's (earnest.live.reaper).
    assert not (tmp_path / "late.txt.setsid").exists(), "a setsid process outlived its sample"
    assert not (tmp_path / "late.txt.envi").exists(), "an env -i setsid process outlived it"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('allow_enviroment = ["X"]', "unknown key allow_enviroment — did you mean allow_env?"),
        ('allow_env = ["MY KEY"]', "allow_env[0]: 'MY KEY' is not a variable name"),
        ('allow_env = "X"', "allow_env: must be a list of non-empty strings"),
        ('allow_network = ["api.example.com"]', "'api.example.com' is not host:port"),
        ('allow_network = ["10.1.2.3:80"]', "reaches other machines by host name only"),
        ('allow_read = ["relative/path"]', "must be an absolute path"),
    ],
)
def test_bad_widening_keys_are_refused_with_the_place(
    tmp_path: Path, line: str, words: str
) -> None:
    """In the user's own config (the one file that may widen an agent), for a profile of
    the user's own."""
    suite = merge_only_suite(tmp_path / "agentic")
    user = tmp_path / "user-config.toml"
    user.write_text(f'[live.profiles.probe]\ncommand = ["x"]\n{line}\n')
    proc = run_earnest("run", "--suite", str(suite), "--act", "-y", "--profile", "probe",
                       "--store", str(tmp_path / "r.db"),
                       env={"EARNEST_CONFIG": str(user)})  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert f"{user}: live.profiles.probe." in proc.stderr and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_model_endpoint_the_gate_cannot_confine_refuses_the_run(tmp_path: Path) -> None:
    need_bwrap()
    suite = merge_only_suite(tmp_path / "agentic")
    user = tmp_path / "user-config.toml"
    user.write_text(
        '[live.profiles.probe]\ncommand = ["true"]\nbase_url = "http://10.1.2.3:8000/v1"\n'
    )
    proc = run_earnest("run", "--suite", str(suite), "--act", "-y", "--profile", "probe",
                       "--confine", "bwrap", "--store", str(tmp_path / "r.db"),
                       env={"EARNEST_CONFIG": str(user)})  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "profile probe: cannot confine it: 'http://10.1.2.3:8000/v1'" in proc.stderr
    assert "by host name only" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r.db").exists() or "run " not in proc.stdout
