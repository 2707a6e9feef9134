"""promptfoo for ``bench_score_peers.py``: the pinned release, installed from npm into a cache.

The version is pinned here and only here. It is installed with the ordinary ``npm install
--prefix`` into its own folder under the cache (``.cache/peers/`` in the checkout, gitignored;
``EARNEST_PEERS_CACHE`` moves it), as ``tests/realcli/clis.py`` installs the agent CLIs, so a
second run finds it there. Only the standard library is imported: ``.ci/run`` installs it
before the tests with ``python3 benchmarks/peer_promptfoo.py install``, which prints
``promptfoo`` when it works; CI exports that as ``EARNEST_REQUIRE_PEERS``, and then the test
that runs promptfoo fails instead of skipping when it is missing. ``EARNEST_PEERS=0`` never
calls npm.

Example:
    >>> promptfoo_binary().name, PROMPTFOO_VERSION in str(promptfoo_binary())
    ('promptfoo', True)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROMPTFOO_PACKAGE = "promptfoo"
# The newest release whose ``engines`` accepts node 20 (0.122+ needs node >= 22.22).
PROMPTFOO_VERSION = "0.121.20"
INSTALL_TIMEOUT = 900  # seconds for the npm install (about 1.4 GB of node_modules)
REQUIRE_ENV = "EARNEST_REQUIRE_PEERS"
SKIP_ENV = "EARNEST_PEERS"


def process_env() -> dict[str, str]:
    """The timed processes' environment: this one's, but free to write bytecode caches, as a
    user's machine is (``PYTHONDONTWRITEBYTECODE`` would make every earnest run compile its
    modules again, while the peers' site-packages come compiled by pip)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def promptfoo_env(home: Path) -> dict[str, str]:
    """promptfoo offline: no telemetry, update check, sharing, cache or user config."""
    return {
        **process_env(),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "PROMPTFOO_CACHE_ENABLED": "false",
        "PROMPTFOO_CONFIG_DIR": str(home),
        "PROMPTFOO_SELF_HOSTED": "1",
        "NO_COLOR": "1",
    }


def promptfoo_cache() -> Path:
    explicit = os.environ.get("EARNEST_PEERS_CACHE")
    return Path(explicit) if explicit else REPO / ".cache" / "peers"


def promptfoo_binary() -> Path:
    folder = promptfoo_cache() / f"promptfoo-{PROMPTFOO_VERSION}"
    return folder / "node_modules" / ".bin" / "promptfoo"


def _promptfoo_version_ok(exe: Path) -> str | None:
    """None when ``exe --version`` prints the pinned version, else why not."""
    try:
        done = subprocess.run(
            [str(exe), "--version"],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            env=promptfoo_env(Path(tempfile.gettempdir())),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{exe} --version did not run: {exc}"
    if PROMPTFOO_VERSION not in done.stdout:
        tail = " ".join((done.stdout + done.stderr).split())[-300:]
        return f"{exe} --version printed {tail!r}, not {PROMPTFOO_VERSION}"
    return None


def install_promptfoo(allow: bool) -> tuple[Path | None, str]:
    """The pinned promptfoo (installed with ``npm install --prefix`` into the cache when
    ``allow``); (binary, "") or (None, why not)."""
    exe = promptfoo_binary()
    if exe.exists() and _promptfoo_version_ok(exe) is None:
        return exe, ""
    spec = f"{PROMPTFOO_PACKAGE}@{PROMPTFOO_VERSION}"
    if not allow or os.environ.get(SKIP_ENV, "").strip().lower() in {"0", "false", "no", "off"}:
        return None, f"{spec} is not in {promptfoo_cache()} and installing is off"
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        return None, "npm and node are not installed (apt-get install nodejs npm)"
    target = exe.parents[2]
    target.mkdir(parents=True, exist_ok=True)
    # A package.json of its own keeps npm from walking up into the checkout.
    (target / "package.json").write_text(
        json.dumps({"name": "earnest-peers-promptfoo", "private": True}) + "\n", encoding="utf-8"
    )
    try:
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(target), spec],
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None, f"npm install {spec} took over {INSTALL_TIMEOUT} s"
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).split())[-400:]
        return None, f"npm install {spec} failed ({done.returncode}): {tail}"
    if not exe.exists():
        return None, f"npm install {spec} left no {exe}"
    why = _promptfoo_version_ok(exe)
    return (None, why) if why else (exe, "")


def required() -> bool:
    """Whether the environment says promptfoo must be there (a skip becomes a failure)."""
    value = os.environ.get(REQUIRE_ENV, "").strip()
    return value == "1" or PROMPTFOO_PACKAGE in {v.strip() for v in value.split(",")}


def main(argv: list[str]) -> int:
    """``install``: install the pinned promptfoo; print ``promptfoo`` on stdout when it works."""
    if argv != ["install"]:
        print("usage: python3 benchmarks/peer_promptfoo.py install", file=sys.stderr)
        return 2
    exe, why = install_promptfoo(True)
    if exe is None:
        print(
            f"peers: {PROMPTFOO_PACKAGE}@{PROMPTFOO_VERSION} not installed: {why}", file=sys.stderr
        )
        return 0
    print(f"peers: {PROMPTFOO_PACKAGE}@{PROMPTFOO_VERSION} at {exe}", file=sys.stderr)
    print(PROMPTFOO_PACKAGE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
