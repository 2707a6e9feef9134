"""One real-CLI scenario: a fresh HOME and git project, earnest's hook installed, the CLI run.

:class:`Sandbox` makes ``tmp/home`` and ``tmp/project`` (a git repository holding ``app.py``
with an off-by-one bug), runs ``earnest hook install CLI`` there as a user would, and puts
:mod:`hooktap` in front of the command it installed, so every stop the CLI makes is written
down (:meth:`Sandbox.stops`). The CLI itself runs in its own process group with a hard
timeout (:func:`run_bounded`): on timeout the whole group is killed and the test fails,
showing what the CLI said. The tier's shared time budget (:data:`TIER_BUDGET`) never fails a
test: a run it leaves no time for, or cuts short, is skipped with that reason. A failing test
shows the output of the CLI runs it made (:func:`said`, added to the report by the tests'
conftest).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import SRC, run_earnest
from earnest.hooks.settings import HOOK_BOOTSTRAP

HERE = Path(__file__).resolve().parent
TAP = HERE / "hooktap.py"
CLI_TIMEOUT = 180  # seconds for one headless CLI run (they take 2-20 s when healthy)
# Seconds of CLI runs for the whole tier (it takes 3-5 minutes on a busy 2-core machine): once
# spent, every later run is skipped with the reason at once, so a hanging CLI cannot hold CI for
# hours. A budget is a limit on CI time, not a verdict on the CLI: it never fails a test.
TIER_BUDGET = float(os.environ.get("EARNEST_REALCLI_BUDGET", "1200"))
_spent = [0.0]
SAID_TAIL = 4000  # characters of a CLI's stdout and stderr a failure shows
_said: list[str] = []  # what the CLI runs of the current test said (see said())


def tail(text: str, limit: int = SAID_TAIL) -> str:
    return (
        text
        if len(text) <= limit
        else f"[... {len(text) - limit} characters before]\n" + text[-limit:]
    )


def record_said(label: str, stdout: str, stderr: str, returncode: int | None) -> None:
    """Keep what a CLI run said, for the report of a test that then fails."""
    _said.append(
        f"$ {label}\nexit status: {returncode}\n--- stdout ---\n{tail(stdout)}\n"
        f"--- stderr ---\n{tail(stderr)}"
    )
    del _said[:-6]  # the last few runs are enough to see what went wrong


def said(clear: bool = False) -> str:
    """What the CLI runs recorded since the last ``said(clear=True)`` said."""
    text = "\n\n".join(_said)
    if clear:
        _said.clear()
    return text


def budget_skip(why: str) -> None:
    """Skip the test: the tier's time budget, not the CLI, stopped it."""
    pytest.skip(
        f"{why} (the real-CLI tier's budget of {TIER_BUDGET:.0f} s of CLI runs, "
        "EARNEST_REALCLI_BUDGET, is a limit on CI time: not run is not failed)"
    )


BUGGY = "def total(xs):\n    return sum(xs) + 1\n"
FIXED = "def total(xs):\n    return sum(xs)\n"
SETTINGS = {
    "claude-code": Path(".claude") / "settings.json",
    "gemini": Path(".gemini") / "settings.json",
    "codex": Path(".codex") / "hooks.json",
    "qwen": Path(".qwen") / "settings.json",
    "copilot": Path(".github") / "hooks" / "earnest.json",
}


@dataclass(frozen=True)
class Stop:
    """One call of the hook, as the tap saw it."""

    event: str
    decision: str  # "block" or "allow"
    reason: str
    note: str  # the systemMessage shown to the user, if any
    payload: dict[str, Any]
    stderr: str
    ms: float
    rc_error: bool = False  # the hook exited non-zero (it must always exit 0)

    @property
    def exhausted(self) -> bool:
        return self.decision == "allow" and "effect_gate_exhausted" in self.note

    @property
    def pending(self) -> bool:
        """Allowed unjudged: background subagents were still running (Claude Code 2.1.33x)."""
        return self.decision == "allow" and "background_subagents_running" in self.note


@dataclass(frozen=True)
class CliRun:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in self.stdout.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
        return out


def run_bounded(
    args: list[str], *, cwd: Path, env: dict[str, str], timeout: float = CLI_TIMEOUT
) -> CliRun:
    """Run ``args`` headless (no stdin) in a new process group; kill the group on timeout.

    The timeout is also cut to what is left of the tier's budget (:data:`TIER_BUDGET`); a run
    with no budget left, or stopped by the cut, skips its test with the reason. A run that
    takes its whole ``timeout`` fails, showing what the CLI said.
    """
    left = TIER_BUDGET - _spent[0]
    if left <= 0:
        budget_skip(f"{shlex.join(args[:3])} ... not run: no time left")
    cut = left < timeout
    timeout = min(timeout, left)
    started = time.monotonic()
    proc = subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        record_said(shlex.join(args), out, err, None)
        if cut:
            budget_skip(
                f"{shlex.join(args[:3])} ... stopped after {timeout:.0f} s: the budget ran out"
            )
        raise AssertionError(
            f"{shlex.join(args[:3])} ... did not finish in {timeout:.0f} s\n"
            f"--- stdout ---\n{tail(out)}\n--- stderr ---\n{tail(err)}"
        ) from None
    finally:
        # Whatever the CLI left behind in its group (MCP servers, shells) goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        _spent[0] += time.monotonic() - started
    record_said(shlex.join(args), out, err, proc.returncode)
    return CliRun(args, proc.returncode, out, err)


class Sandbox:
    """A fresh HOME and git project for one CLI; the hook installed through the tap."""

    def __init__(self, tmp_path: Path, cli: str) -> None:
        self.cli = cli
        self.root = tmp_path
        self.home = tmp_path / "home"
        self.project = tmp_path / "project"
        self.state = tmp_path / "state"
        self.taplog = tmp_path / "hook-calls.jsonl"
        # A temporary folder of the scenario's own. Codex refuses to create its sandbox helper
        # under the temporary folder, and with the system's bubblewrap installed every command
        # then fails ("bwrap: execvp codex-linux-sandbox"): CODEX_HOME (under HOME, itself under
        # pytest's /tmp) must not lie under TMPDIR, as it does not on a user's machine.
        self.tmp = tmp_path / "tmp"
        self.home.mkdir()
        self.tmp.mkdir()
        self.project.mkdir()
        (self.project / "app.py").write_text(BUGGY, encoding="utf-8")
        for cmd in (
            ["git", "init", "-q"],
            ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", "add", "."],
            [
                "git",
                "-c",
                "user.email=t@example.invalid",
                "-c",
                "user.name=t",
                "commit",
                "-qm",
                "start",
            ],
        ):
            subprocess.run(cmd, cwd=self.project, check=True, capture_output=True)
        self.installed_command = ""

    # ------------------------------------------------------------------ environment
    @property
    def env(self) -> dict[str, str]:
        """A clean environment: no real keys or config of the person running the tests.

        PATH has no folder with an ``earnest`` in it: the agent CLI starts without the virtual
        environment, as it does for a user who installed the hook from an activated venv, so
        the installed command must name its interpreter (defect 10).
        """
        keep = ("LANG", "LC_ALL", "TMPDIR", "TERM")
        env = {k: os.environ[k] for k in keep if k in os.environ}
        env["PATH"] = os.pathsep.join(
            d
            for d in os.environ.get("PATH", "").split(os.pathsep)
            if d and not (Path(d) / "earnest").exists()
        )
        env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_STATE_HOME=str(self.home / ".local" / "state"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            EARNEST_STATE_DIR=str(self.state),
            TMPDIR=str(self.tmp),
            PYTHONPATH=str(SRC),
            NO_COLOR="1",
            CI="1",
        )
        return env

    def write(self, relative: str, text: str) -> Path:
        path = self.project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def app(self) -> str:
        return (self.project / "app.py").read_text(encoding="utf-8")

    # ------------------------------------------------------------------ the hook
    def install_hook(self, *extra: str, env: dict[str, str] | None = None, tap: bool = True) -> str:
        """``earnest hook install CLI`` in the project, then the tap in front of its command.

        The install runs as from an activated virtual environment (its ``bin`` on PATH).
        """
        venv_path = os.pathsep.join([str(Path(sys.executable).parent), self.env["PATH"]])
        done = run_earnest(
            "hook",
            "install",
            self.cli,
            "--dir",
            str(self.project),
            "--format",
            "json",
            *extra,
            cwd=self.project,
            env={**self.env, "PATH": venv_path, **(env or {})},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        change = json.loads(done.stdout)
        self.installed_command = change["command"]
        program = shlex.split(self.installed_command)[0]
        assert Path(program).is_absolute(), f"bare command installed: {self.installed_command}"
        # Started without `site` (-S), earnest's folder named: what the real CLI must run.
        words = shlex.split(self.installed_command)
        assert words[1:4] == ["-S", "-c", HOOK_BOOTSTRAP], self.installed_command
        if tap:
            self.tap(Path(change["settings"]))
        return done.stdout

    def tap(self, settings: Path) -> None:
        data = json.loads(settings.read_text(encoding="utf-8"))
        count = 0
        for groups in data.get("hooks", {}).values():
            for group in groups if isinstance(groups, list) else []:
                # Copilot's handlers sit in the event's list itself, the command under "bash".
                for handler in [group, *group.get("hooks", [])]:
                    for key in ("command", "bash"):
                        if handler.get(key) == self.installed_command:
                            handler[key] = shlex.join(
                                [sys.executable, str(TAP), str(self.taplog), "--", handler[key]]
                            )
                            count += 1
        assert count, f"earnest's command {self.installed_command!r} not found in {settings}"
        settings.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")

    def stops(self, event: str | None = None) -> list[Stop]:
        if not self.taplog.exists():
            return []
        out = []
        for line in self.taplog.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            payload = record["input"] if isinstance(record["input"], dict) else {}
            text = record["stdout"].strip()
            answer: dict[str, Any] = json.loads(text) if text.startswith("{") else {}
            blocked = answer.get("decision") in {"block", "deny"}
            stop = Stop(
                event=str(payload.get("hook_event_name", "")),
                decision="block" if blocked else "allow",
                reason=str(answer.get("reason", "")),
                note=str(answer.get("systemMessage", "")),
                payload=payload,
                stderr=record["stderr"],
                ms=record["ms"],
                rc_error=record["rc"] != 0,
            )
            if event is None or stop.event == event:
                out.append(stop)
        return out

    def decisions(self, event: str | None = None) -> list[str]:
        """``block`` / ``allow`` / ``exhausted`` / ``pending`` for each stop, in order.

        A stop the hook allowed because it failed (its one line on stderr ends "stop allowed")
        is an error here, not an "allow": the hook must have judged every stop.
        """
        stops = self.stops(event)
        failed = [s.stderr for s in stops if "stop allowed" in s.stderr or s.rc_error]
        assert not failed, f"the hook did not judge: {failed}"
        return [
            "exhausted" if s.exhausted else "pending" if s.pending else s.decision for s in stops
        ]

    # ------------------------------------------------------------------ earnest on the transcript
    def score(self, transcript: Path) -> dict[str, Any]:
        done = run_earnest("trajectory", "score", str(transcript), "--format", "json")
        assert done.returncode == 0, done.stdout + done.stderr
        trajectories: list[dict[str, Any]] = json.loads(done.stdout)["trajectories"]
        assert trajectories, done.stderr
        return trajectories[-1]

    def replay(self, transcript: Path) -> dict[str, Any]:
        done = run_earnest("trajectory", "replay-gate", str(transcript), "--format", "json")
        assert done.returncode == 0, done.stdout + done.stderr
        summary: dict[str, Any] = json.loads(done.stdout)["summary"]
        return summary


_INSTALLED: dict[str, tuple[Path | None, str]] = {}


def runs_on(cli: str, env: dict[str, str]) -> dict[str, str]:
    """``env`` with the node the pin ``cli`` runs on first on PATH (node 22 for the newest)."""
    from clis import PINS, path_env

    return path_env(PINS[cli], env)


def need(cli: str) -> Path:
    """The pinned CLI's binary, installed on first use; skip (or fail, when required) if not."""
    from clis import PINS, REQUIRE_ENV, install, required

    if cli not in _INSTALLED:
        _INSTALLED[cli] = install(PINS[cli])
    exe, why = _INSTALLED[cli]
    if exe is None:
        if required(cli):
            pytest.fail(f"{cli} required ({REQUIRE_ENV}) but {why}")
        pytest.skip(why)
    return exe


def model_env(
    sb: Sandbox, cli: str, url: str, *, path_first: Path, models: Sequence[str] = ()
) -> dict[str, str]:
    """The sandbox's environment for a headless ``cli`` child that talks to the fake model at
    ``url`` (its key, base URL and, for Codex, Gemini and Pi, the settings that name them;
    Copilot's offline BYOK variables, its package unpacked into the sandbox's cache),
    with ``path_first`` ahead on PATH (where the child finds the CLI). ``models``: Pi's
    ``provider/id`` names its custom provider ``fake`` lists (default ``fake/fake-model``)."""
    env = {**sb.env, "PATH": f"{path_first}:{sb.env['PATH']}"}
    if cli == "claude-code":
        env.update(
            ANTHROPIC_BASE_URL=url,
            ANTHROPIC_API_KEY="sk-ant-fake-key",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
        )
    elif cli == "codex":
        home = sb.home / ".codex"
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(
            f"""model_provider = "fake"
approval_policy = "never"

[model_providers.fake]
name = "fake"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"
""",
            encoding="utf-8",
        )
        env.update(CODEX_HOME=str(home), FAKE_MODEL_KEY="sk-fake-key")
    elif cli == "qwen":
        # Qwen Code's OpenAI-compatible auth: chosen in its user settings, key and URL from the
        # environment (exec:qwen passes --model).
        settings = sb.home / ".qwen" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"security": {"auth": {"selectedType": "openai"}}}), "utf-8")
        env.update(OPENAI_API_KEY="sk-fake-key", OPENAI_BASE_URL=f"{url}/v1")
    elif cli == "copilot":
        # Copilot offline with its own-model provider (BYOK), no GitHub token (exec:copilot
        # passes --model). It unpacks itself into ~/.cache/copilot on its first start: done
        # once here, so that the samples (two at a time in act mode) find it there.
        env.update(
            COPILOT_OFFLINE="true",
            COPILOT_PROVIDER_BASE_URL=f"{url}/v1",
            COPILOT_PROVIDER_TYPE="openai",
            COPILOT_AUTO_UPDATE="false",
        )
        subprocess.run(
            [str(need(cli)), "--version"],  # the CLI itself, not a test's shim
            env=env,  # XDG_CACHE_HOME: the sandbox HOME's .cache
            cwd=sb.home,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
            check=True,
        )
    elif cli == "pi":
        agent = sb.home / ".pi" / "agent"
        agent.mkdir(parents=True, exist_ok=True)
        provider = {"baseUrl": f"{url}/v1", "api": "openai-completions", "apiKey": "sk-fake-key",
                    "models": [{"id": m.split("/", 1)[-1]} for m in models or ["fake-model"]]}  # fmt: skip
        (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}), "utf-8")
    else:
        settings = sb.home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(
            json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}),
            encoding="utf-8",
        )
        env.update(GOOGLE_GEMINI_BASE_URL=url, GEMINI_API_KEY="fake-gemini-key")
    return env
