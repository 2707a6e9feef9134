"""Path safety and the workspace baseline (git-aware and snapshot)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from earnest.effects import ArtifactStatus, Workspace, WorkspaceBaseline, resolve_inside
from earnest.effects import workspace as ws_mod

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git not installed")


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}  # fmt: skip
    subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)


def status(ws: Workspace, ref: str) -> ArtifactStatus:
    return ws.check(ref).status


# -- path safety ----------------------------------------------------------------------------


def test_relative_and_absolute_paths_inside_resolve(tmp_path: Path):
    (tmp_path / "a.txt").write_text("x")
    ws = Workspace(tmp_path)
    assert ws.resolve("a.txt") == tmp_path.resolve() / "a.txt"
    assert ws.resolve(str(tmp_path / "a.txt")) == tmp_path.resolve() / "a.txt"
    assert ws.resolve("sub/../a.txt") == tmp_path.resolve() / "a.txt"
    assert ws.exists("a.txt") and not ws.exists("nope.txt")


def test_dotdot_and_outside_absolute_paths_are_unverified(tmp_path: Path):
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s")
    ws = Workspace(root)
    for ref in ("../secret.txt", str(tmp_path / "secret.txt"), "/etc/passwd", "a/../../secret.txt"):
        assert ws.resolve(ref) is None, ref
        assert status(ws, ref) is ArtifactStatus.OUTSIDE, ref
        assert not ws.exists(ref)


def test_symlinks_that_leave_the_workspace_are_unverified(tmp_path: Path):
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (root / "link_dir").symlink_to(outside)
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "inside.txt").write_text("i")
    (root / "good_link").symlink_to(root / "inside.txt")
    ws = Workspace(root)
    assert status(ws, "link_dir/secret.txt") is ArtifactStatus.OUTSIDE
    assert status(ws, "link_file") is ArtifactStatus.OUTSIDE
    assert status(ws, "good_link") is ArtifactStatus.EXISTS
    assert resolve_inside(root.resolve(), "link_file") is None


class StatSpy:
    """Records every path ``os.stat``/``os.lstat`` (and ``os.readlink``) is called with."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
        self.paths: list[str] = []
        self.prefix = str(root.resolve()) + os.sep  # before spying: resolve() lstats
        for name in ("stat", "lstat", "readlink"):
            real = getattr(os, name)
            monkeypatch.setattr(os, name, self._wrap(name, real))

    def _wrap(self, name: str, real: Any) -> Any:
        def spy(path: Any, *args: Any, **kw: Any) -> Any:
            if name != "readlink":  # readlink reads the link itself, which is inside
                self.paths.append(os.fspath(path))
            return real(path, *args, **kw)

        return spy

    def outside(self) -> list[str]:
        prefix = self.prefix
        return [p for p in self.paths if p != prefix[:-1] and not p.startswith(prefix)]


def test_no_path_outside_the_workspace_is_ever_statted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (outside / "sub").mkdir()
    (root / "d").mkdir()
    (root / "inside.txt").write_text("i")
    (root / "link_dir").symlink_to(outside)
    (root / "link_file").symlink_to(outside / "secret.txt")
    (root / "rel_link").symlink_to("../outside/secret.txt")
    (root / "d" / "up").symlink_to("../..")
    (root / "chain").symlink_to("d/up")
    (root / "good_link").symlink_to("inside.txt")
    ws = Workspace(root, WorkspaceBaseline.capture(root, use_git=False))
    spy = StatSpy(monkeypatch, root)
    refs = [
        "../outside/secret.txt",
        str(outside / "secret.txt"),
        "a/../../outside/secret.txt",
        "d/../../outside",
        "link_dir/secret.txt",
        "link_dir/sub/../secret.txt",
        "link_file",
        "rel_link",
        "d/up/outside/secret.txt",
        "chain/outside",
        "~/x",
    ]
    for ref in refs:
        assert ws.check(ref).status is ArtifactStatus.OUTSIDE, ref
        assert not ws.exists(ref) and ws.resolve(ref) is None, ref
        assert spy.outside() == [], ref
    # paths inside are still resolved, links that stay inside followed
    assert ws.check("good_link").status is ArtifactStatus.UNCHANGED
    assert ws.check("d/../inside.txt").status is ArtifactStatus.UNCHANGED
    assert ws.check("new.txt").status is ArtifactStatus.ABSENT
    assert spy.outside() == [] and spy.paths


def test_a_path_that_cannot_be_statted_outside_is_outside_without_a_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "link").symlink_to(tmp_path / "forbidden" / "x")
    ws = Workspace(root)
    touched: list[str] = []

    def guard(real: Any) -> Any:
        def call(path: Any, *a: Any, **kw: Any) -> Any:
            if "forbidden" in os.fspath(path):
                touched.append(os.fspath(path))
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real(path, *a, **kw)

        return call

    monkeypatch.setattr(os, "lstat", guard(os.lstat))
    monkeypatch.setattr(os, "stat", guard(os.stat))
    for ref in ("link", "link/y", "../forbidden/x", str(tmp_path / "forbidden")):
        assert ws.check(ref).status is ArtifactStatus.OUTSIDE, ref
    assert touched == []


def test_odd_references_never_raise(tmp_path: Path):
    ws = Workspace(tmp_path)
    for ref in ("", "\0", "a\0b", ".", "..", "/", "~", "x" * 5000):
        ws.check(ref)


def test_unresolvable_workspace(tmp_path: Path):
    ws = Workspace(tmp_path / "missing")
    assert not ws.resolvable and ws.resolve("a") is None
    with pytest.raises(ValueError, match="not an existing folder"):
        WorkspaceBaseline.capture(tmp_path / "missing")


def test_without_a_baseline_existence_decides(tmp_path: Path):
    (tmp_path / "a.txt").write_text("x")
    ws = Workspace(tmp_path)
    assert status(ws, "a.txt") is ArtifactStatus.EXISTS
    assert status(ws, "b.txt") is ArtifactStatus.MISSING


def test_the_folder_cache_is_cleared_on_request(tmp_path: Path):
    (tmp_path / "real").mkdir()
    (tmp_path / "elsewhere").mkdir()
    root = tmp_path / "ws"
    root.mkdir()
    (root / "d").mkdir()
    ws = Workspace(root)
    assert status(ws, "d/x") is ArtifactStatus.MISSING
    (root / "d").rmdir()
    (root / "d").symlink_to(tmp_path / "elsewhere")  # the folder became a link out
    ws.clear_cache()
    assert status(ws, "d/x") is ArtifactStatus.OUTSIDE


# -- snapshot baseline (no repository) ------------------------------------------------------


def modify_later(path: Path, text: str) -> None:
    time.sleep(0.02)
    path.write_text(text)


def test_snapshot_baseline_detects_created_modified_deleted_and_untouched(tmp_path: Path):
    (tmp_path / "goal.txt").write_text("already done")
    (tmp_path / "edit.txt").write_text("v1")
    (tmp_path / "gone.txt").write_text("bye")
    (tmp_path / "pkg").mkdir()
    base = WorkspaceBaseline.capture(tmp_path)
    assert base.mode == "snapshot" and base.complete
    ws = Workspace(tmp_path, base)
    modify_later(tmp_path / "edit.txt", "v2 longer")
    (tmp_path / "new.txt").write_text("n")
    (tmp_path / "gone.txt").unlink()
    assert status(ws, "goal.txt") is ArtifactStatus.UNCHANGED
    assert status(ws, "edit.txt") is ArtifactStatus.MODIFIED
    assert status(ws, "new.txt") is ArtifactStatus.CREATED
    assert status(ws, "gone.txt") is ArtifactStatus.DELETED
    assert status(ws, "never.txt") is ArtifactStatus.ABSENT
    assert status(ws, "pkg") is ArtifactStatus.UNCHANGED
    (tmp_path / "newdir").mkdir()
    assert status(ws, "newdir") is ArtifactStatus.CREATED


def test_snapshot_counts_a_chmod_as_a_change(tmp_path: Path):
    (tmp_path / "run.sh").write_text("echo")
    ws = Workspace(tmp_path, WorkspaceBaseline.capture(tmp_path))
    os.chmod(tmp_path / "run.sh", 0o755)
    assert status(ws, "run.sh") is ArtifactStatus.MODIFIED


def test_snapshot_prunes_dependency_folders_and_falls_back_to_timestamps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(ws_mod, "CLOCK_SLOP_NS", 0)
    nm = tmp_path / "node_modules" / "pkg"
    nm.mkdir(parents=True)
    (nm / "old.js").write_text("o")
    (nm / "doomed.js").write_text("d")
    base = WorkspaceBaseline.capture(tmp_path)
    assert "node_modules" in base.opaque
    assert not any(k.startswith("node_modules/") for k in base.states)
    ws = Workspace(tmp_path, base)
    time.sleep(0.05)
    (nm / "new.js").write_text("n")
    (nm / "doomed.js").unlink()
    assert status(ws, "node_modules/pkg/old.js") is ArtifactStatus.UNCHANGED
    assert status(ws, "node_modules/pkg/new.js") is ArtifactStatus.MODIFIED
    assert status(ws, "node_modules/pkg/doomed.js") is ArtifactStatus.UNKNOWN


def test_snapshot_stops_at_its_entry_limit_and_says_so(tmp_path: Path):
    for i in range(30):
        (tmp_path / f"f{i}.txt").write_text(str(i))
    base = WorkspaceBaseline.capture(tmp_path, max_entries=10)
    assert not base.complete and base.notes
    ws = Workspace(tmp_path, base)
    # paths it never saw are judged by timestamps, never reported ABSENT
    assert all(status(ws, f"f{i}.txt") is not ArtifactStatus.ABSENT for i in range(30))


# -- git baseline -------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / "goal.txt").write_text("already done\n")
    (root / "edit.txt").write_text("v1\n")
    (root / "gone.txt").write_text("bye\n")
    (root / "src").mkdir()
    (root / "src" / "mod.py").write_text("x = 1\n")
    (root / ".gitignore").write_text("*.log\nbuild/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    return root


@needs_git
def test_git_baseline_detects_created_modified_deleted_and_untouched(repo: Path):
    base = WorkspaceBaseline.capture(repo)
    assert base.mode == "git" and base.head and len(base.head) == 40
    assert base.tracked["goal.txt"][0]  # blob hash from the index
    ws = Workspace(repo, base)
    modify_later(repo / "edit.txt", "v2\n")
    (repo / "new.txt").write_text("n\n")
    (repo / "gone.txt").unlink()
    assert status(ws, "goal.txt") is ArtifactStatus.UNCHANGED
    assert status(ws, "edit.txt") is ArtifactStatus.MODIFIED
    assert status(ws, "new.txt") is ArtifactStatus.CREATED
    assert status(ws, "gone.txt") is ArtifactStatus.DELETED
    assert status(ws, "never.txt") is ArtifactStatus.ABSENT
    assert status(ws, "src") is ArtifactStatus.UNCHANGED


@needs_git
def test_git_baseline_ignores_a_rewrite_with_identical_content(repo: Path):
    ws = Workspace(repo, WorkspaceBaseline.capture(repo))
    modify_later(repo / "goal.txt", "already done\n")  # touched, same bytes
    assert status(ws, "goal.txt") is ArtifactStatus.UNCHANGED
    os.chmod(repo / "goal.txt", 0o755)
    assert status(ws, "goal.txt") is ArtifactStatus.MODIFIED


@needs_git
def test_git_baseline_records_dirty_and_untracked_files_as_they_were(repo: Path):
    (repo / "edit.txt").write_text("dirty before the run\n")
    (repo / "scratch.txt").write_text("untracked before the run\n")
    base = WorkspaceBaseline.capture(repo)
    assert {"edit.txt", "scratch.txt"} <= set(base.states)
    ws = Workspace(repo, base)
    # dirty before the run, untouched since: not a change made by this run
    assert status(ws, "edit.txt") is ArtifactStatus.UNCHANGED
    assert status(ws, "scratch.txt") is ArtifactStatus.UNCHANGED
    modify_later(repo / "scratch.txt", "changed in the run\n")
    assert status(ws, "scratch.txt") is ArtifactStatus.MODIFIED


@needs_git
def test_git_baseline_judges_ignored_paths_by_timestamps(
    repo: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(ws_mod, "CLOCK_SLOP_NS", 0)
    (repo / "old.log").write_text("o")
    (repo / "build").mkdir()
    (repo / "build" / "out.bin").write_text("b")
    base = WorkspaceBaseline.capture(repo)
    assert "old.log" in base.opaque and "build/" in base.opaque
    ws = Workspace(repo, base)
    time.sleep(0.05)
    (repo / "new.log").write_text("n")
    (repo / "build" / "out.bin").unlink()
    assert status(ws, "old.log") is ArtifactStatus.UNCHANGED
    assert status(ws, "new.log") is ArtifactStatus.CREATED  # not ignored-at-baseline: new
    assert status(ws, "build/out.bin") is ArtifactStatus.UNKNOWN


@needs_git
def test_git_baseline_in_a_subfolder_and_without_commits(repo: Path, tmp_path: Path):
    base = WorkspaceBaseline.capture(repo / "src")
    assert base.mode == "git" and base.root == repo.resolve()
    ws = Workspace(repo / "src", base)
    modify_later(repo / "src" / "mod.py", "x = 2\n")
    assert status(ws, "mod.py") is ArtifactStatus.MODIFIED
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    git(fresh, "init", "-q")
    (fresh / "a.txt").write_text("a")
    base = WorkspaceBaseline.capture(fresh)
    assert base.mode == "git" and base.head is None
    assert status(Workspace(fresh, base), "a.txt") is ArtifactStatus.UNCHANGED


@needs_git
def test_git_capture_does_not_write_the_index(repo: Path):
    index = repo / ".git" / "index"
    time.sleep(0.02)
    os.utime(repo / "goal.txt")  # stat changed, content not: git status would refresh the index
    before = index.stat().st_mtime_ns
    WorkspaceBaseline.capture(repo)
    assert index.stat().st_mtime_ns == before


def test_git_can_be_turned_off(tmp_path: Path):
    assert WorkspaceBaseline.capture(tmp_path, use_git=False).mode == "snapshot"


def test_baseline_summary(tmp_path: Path):
    (tmp_path / "a").write_text("a")
    summary = WorkspaceBaseline.capture(tmp_path).summary()
    assert summary["mode"] == "snapshot" and summary["recorded_paths"] == 1


# -- persistence -----------------------------------------------------------------------------


def roundtrip(base: WorkspaceBaseline) -> WorkspaceBaseline:
    return WorkspaceBaseline.from_dict(json.loads(json.dumps(base.to_dict())))


def test_snapshot_baseline_survives_a_json_roundtrip(tmp_path: Path):
    (tmp_path / "goal.txt").write_text("g")
    (tmp_path / "edit.txt").write_text("e")
    loaded = roundtrip(WorkspaceBaseline.capture(tmp_path))
    ws = Workspace(tmp_path, loaded)
    modify_later(tmp_path / "edit.txt", "changed")
    assert loaded.mode == "snapshot"
    assert status(ws, "goal.txt") is ArtifactStatus.UNCHANGED
    assert status(ws, "edit.txt") is ArtifactStatus.MODIFIED


@needs_git
def test_git_baseline_roundtrip_rereads_tracked_hashes_from_head(repo: Path):
    (repo / "edit.txt").write_text("dirty at the start\n")
    base = WorkspaceBaseline.capture(repo)
    data = base.to_dict()
    assert "tracked" not in data  # compact: HEAD holds them
    loaded = roundtrip(base)
    assert loaded.tracked["goal.txt"] == base.tracked["goal.txt"]
    ws = Workspace(repo, loaded)
    modify_later(repo / "src" / "mod.py", "x = 2\n")
    assert status(ws, "goal.txt") is ArtifactStatus.UNCHANGED
    assert status(ws, "edit.txt") is ArtifactStatus.UNCHANGED
    assert status(ws, "src/mod.py") is ArtifactStatus.MODIFIED


@needs_git
def test_git_baseline_without_commits_keeps_its_tracked_hashes(tmp_path: Path):
    git(tmp_path, "init", "-q")
    (tmp_path / "a.txt").write_text("a")
    git(tmp_path, "add", "a.txt")
    base = WorkspaceBaseline.capture(tmp_path)
    assert base.head is None and "tracked" in base.to_dict()
    assert roundtrip(base).tracked == base.tracked


@pytest.mark.parametrize(
    "data",
    [{}, {"schema": "nope"}, {"schema": "earnest.workspace-baseline/1"},
     {"schema": "earnest.workspace-baseline/1", "root": "/x", "mode": "weird", "states": {}},
     {"schema": "earnest.workspace-baseline/1", "root": "/x", "mode": "snapshot",
      "started_ns": 1, "states": {"a": ["file", 1]}, "dirs": [], "opaque": [], "complete": True}],
)  # fmt: skip
def test_malformed_baselines_are_value_errors(data: dict[str, object]):
    with pytest.raises(ValueError):
        WorkspaceBaseline.from_dict(data)
