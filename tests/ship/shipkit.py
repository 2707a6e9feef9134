"""earnest as a user installs it: the sdist and wheel built once per test session, the wheel
installed (not editable) into a fresh virtual environment outside the checkout.

``installed(tmp_path_factory)`` builds with ``python -m build`` (the wheel from the sdist, as
an installer does), makes a venv under pytest's temporary root and pip installs the wheel into
it. One build serves the whole session, xdist workers too (a file lock in pytest's shared
temporary root). Everything installs offline, from the local wheelhouse of
``tests/ship/wheelhouse.py`` with every index turned off (:func:`offline`): without a wheelhouse
the tests skip naming the command that makes one (fail, under ``EARNEST_REQUIRE_WHEELHOUSE=1``).

Example::

    wheel = installed(tmp_path_factory)
    run(wheel.bin / "earnest", "--version", cwd=tmp_path)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import wheelhouse
from filelock import FileLock

from conftest import REPO

# What a build reads from the checkout: the rest (tests, examples, docs) is not shipped.
SOURCES = ("pyproject.toml", "README.md", "CHANGELOG.md", "MANIFEST.in", "src")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    sdist: Path
    venv: Path

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    @property
    def python(self) -> Path:
        return self.bin / "python"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment a user's shell has: no PYTHONPATH into the checkout, no venv active."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(NO_COLOR="1", COLUMNS="120", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None, input: str | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:  # fmt: skip
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env or clean_env(), input=input,
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def offline() -> dict[str, str]:
    """pip's and uv's variables for an offline install from the local wheelhouse (skips, or
    fails under ``EARNEST_REQUIRE_WHEELHOUSE=1``, when there is none)."""
    where = wheelhouse.ready()
    if where is None:
        why = "no local wheelhouse for an offline install: python3 tests/ship/wheelhouse.py install"
        if os.environ.get("EARNEST_REQUIRE_WHEELHOUSE") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return wheelhouse.offline_env(where)


def _shared_root(factory: pytest.TempPathFactory) -> Path:
    base = factory.getbasetemp()
    # Under xdist each worker has its own basetemp inside the session's: share the parent.
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _tail(proc: subprocess.CompletedProcess[str]) -> str:
    return (proc.stdout + proc.stderr).strip()[-1500:]


def _build(root: Path, env: dict[str, str]) -> dict[str, str]:
    """Build and install offline; the paths, or ``{"skip": reason}``."""
    source = root / "source"
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(
                src, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, source / name)
    dist = root / "dist"
    built = run(
        sys.executable, "-m", "build", "--outdir", dist, source, cwd=root, env=env, timeout=600
    )
    if built.returncode != 0:
        if "No module named build" in built.stderr:
            return {"skip": "the build frontend is missing (pip install -e '.[dev]')"}
        return {"fail": f"python -m build could not build from the wheelhouse: {_tail(built)}"}
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(dist.iterdir())
    venv = root / "venv"
    made = run(sys.executable, "-m", "venv", venv, cwd=root)
    assert made.returncode == 0, _tail(made)
    pip = run(
        venv / "bin" / "python", "-m", "pip", "install", "-q", wheels[0], cwd=root, env=env,
        timeout=600,
    )  # fmt: skip
    if pip.returncode != 0:
        return {"fail": f"pip could not install the wheel from the wheelhouse: {_tail(pip)}"}
    return {"wheel": str(wheels[0]), "sdist": str(sdists[0]), "venv": str(venv)}


def installed(factory: pytest.TempPathFactory) -> Installed:
    """The session's wheel, installed in a fresh venv (built on first use); skips if it cannot."""
    env = clean_env(**offline())
    root = _shared_root(factory) / "earnest-wheel"
    root.mkdir(exist_ok=True)
    record = root / "built.json"
    with FileLock(str(root) + ".lock"):
        if not record.is_file():
            record.write_text(json.dumps(_build(root, env)), encoding="utf-8")
    found = json.loads(record.read_text(encoding="utf-8"))
    if "skip" in found:
        pytest.skip(found["skip"])
    if "fail" in found:
        pytest.fail(found["fail"])
    return Installed(Path(found["wheel"]), Path(found["sdist"]), Path(found["venv"]))


def wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def sdist_names(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as tf:
        return {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}


__all__ = ["Installed", "clean_env", "installed", "offline", "run", "sdist_names", "wheel_names"]
