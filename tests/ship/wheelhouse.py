"""A local wheelhouse, so the package tests (tests/ship) install earnest offline.

A user's installer fetches earnest's build requirements and dependencies from an index. The
ship tests do the same, but from a folder of wheels fetched once beforehand, with every index
turned off (``PIP_NO_INDEX``, ``uv --offline --no-index``): the build, the wheel's install,
``pipx install``, ``uv tool install`` and pre-commit's hook environment then touch no network,
and a test that passes proves the install needs nothing but the wheels named here.

``python3 tests/ship/wheelhouse.py install`` (run by ``.ci/run``, like the real-CLI tier's
installs) downloads the build requirements and the runtime dependencies of ``pyproject.toml``
into ``.cache/wheelhouse`` (or ``$EARNEST_WHEELHOUSE``) and prints the folder; a complete
wheelhouse is reused. Without one the ship tests skip, naming this command; with
``EARNEST_REQUIRE_WHEELHOUSE=1`` (set by ``.ci/run`` once the install succeeded) they fail
instead.

Example::

    python3 tests/ship/wheelhouse.py install   # -> .../.cache/wheelhouse
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MARKER = "wheelhouse.json"


def requirements() -> list[str]:
    """What installing earnest's wheel needs: the build requirements and the dependencies."""
    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return [*meta["build-system"]["requires"], *meta["project"]["dependencies"]]


def folder() -> Path:
    return Path(os.environ.get("EARNEST_WHEELHOUSE") or REPO / ".cache" / "wheelhouse")


def ready() -> Path | None:
    """The wheelhouse, when it holds every current requirement; else None."""
    where = folder()
    try:
        done = json.loads((where / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return where if done.get("requirements") == requirements() else None


def install() -> Path:
    """Download the requirements' wheels (binary only, with their dependencies)."""
    where = folder()
    where.mkdir(parents=True, exist_ok=True)
    reqs = requirements()
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "--dest",
         str(where), *reqs],
        check=True, env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )  # fmt: skip
    (where / MARKER).write_text(json.dumps({"requirements": reqs}), encoding="utf-8")
    return where


def offline_env(where: Path) -> dict[str, str]:
    """The variables that point pip and uv at the wheelhouse alone, no index."""
    return {
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(where),
        "UV_OFFLINE": "1",
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(where),
        "UV_PYTHON_DOWNLOADS": "never",
    }


def main(argv: list[str]) -> int:
    if argv != ["install"]:
        print("usage: python3 tests/ship/wheelhouse.py install", file=sys.stderr)
        return 2
    if ready() is None:
        try:
            install()
        except subprocess.CalledProcessError as exc:
            print(f"wheelhouse: pip download failed ({exc.returncode})", file=sys.stderr)
            return 1
    print(folder())
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
