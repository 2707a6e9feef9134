"""The pre-commit hook (``.pre-commit-hooks.yaml``), run by pre-commit itself.

``pre-commit try-repo CHECKOUT earnest-lint`` clones this checkout (with its uncommitted
changes), builds the hook's environment as it would for a user's ``rev:`` (a virtualenv,
``pip install`` of the repository) and runs the hook in a throwaway git repository holding a
suite. The environment is built once for the module (about 20-40 s), offline: pip inside
pre-commit's virtualenv reads the local wheelhouse of ``tests/ship/wheelhouse.py`` with every
index turned off (no wheelhouse: the tests skip naming the command, or fail under
``EARNEST_REQUIRE_WHEELHOUSE=1``); the runs take seconds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from shipkit import clean_env, offline, run

from conftest import REPO

HOOKS = REPO / ".pre-commit-hooks.yaml"


@pytest.fixture(scope="module")
def precommit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if run(sys.executable, "-m", "pre_commit", "--version", cwd=REPO).returncode != 0:
        pytest.skip("pre-commit is not installed here (pip install -e '.[dev]')")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    return tmp_path_factory.mktemp("pre-commit-home")


def _git_repo(root: Path) -> None:
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(cmd, cwd=root, check=True, capture_output=True)


def try_repo(root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = clean_env(PRE_COMMIT_HOME=str(home), HOME=str(root.parent),
                    GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
                    GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid",
                    **offline())  # fmt: skip
    done = run(sys.executable, "-m", "pre_commit", "try-repo", REPO, "earnest-lint",
               "--all-files", "--verbose", cwd=root, env=env, timeout=900)  # fmt: skip
    assert "An unexpected error has occurred" not in done.stdout + done.stderr, (
        f"pre-commit could not install the hook's environment offline: {done.stdout}{done.stderr}"
    )
    return done


def test_the_hook_definition() -> None:
    (hook,) = yaml.safe_load(HOOKS.read_text(encoding="utf-8"))
    assert hook["id"] == "earnest-lint" and hook["entry"] == "earnest lint"
    assert hook["language"] == "python" and hook["pass_filenames"] is False


def _suite_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    done = run(sys.executable, "-m", "earnest", "init", "suite", cwd=root,
               env=clean_env(PYTHONPATH=str(REPO / "src")))  # fmt: skip
    assert done.returncode == 0, done.stderr
    # The hook's default is `--suite .`: the suite at the repository's root.
    for path in (root / "suite").iterdir():
        path.rename(root / path.name)
    (root / "suite").rmdir()
    return root


def test_a_clean_suite_passes(precommit_home: Path, tmp_path: Path) -> None:
    root = _suite_repo(tmp_path)
    _git_repo(root)
    done = try_repo(root, precommit_home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "earnest lint" in done.stdout and "Passed" in done.stdout


def test_a_broken_fixture_fails_the_commit_naming_it(precommit_home: Path, tmp_path: Path) -> None:
    root = _suite_repo(tmp_path)
    fixture = root / "pressure" / "IMPL-R1-RETRY.json"
    data = json.loads(fixture.read_text(encoding="utf-8"))
    data["correct_choice"] = "Z"  # not one of the choices
    fixture.write_text(json.dumps(data), encoding="utf-8")
    _git_repo(root)
    done = try_repo(root, precommit_home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout and "IMPL-R1-RETRY.json" in done.stdout
