"""The workspace: path safety, and what changed since the run began.

**Path safety.** Containment is decided from the path's text first: a reference whose
normalised form leaves the workspace root is :attr:`ArtifactStatus.OUTSIDE` (unverified)
without a system call. A reference inside is resolved one component at a time, and a
symlink's target is judged by its text before it is followed, so a link out is outside too
and no path outside the workspace is ever ``lstat``-ed or ``stat``-ed. The gate only stats files, and
hashes them to compare with a baseline; it never reads them otherwise.

**Baseline.** :meth:`WorkspaceBaseline.capture` records the workspace at the start of a run so
that, later, an artifact counts only if it was created, modified or deleted *during* the run
(a goal file that already existed untouched does not). Two modes, chosen automatically:

- ``git`` (the workspace is inside a repository): ``git rev-parse HEAD``,
  ``git ls-files -s -z`` (every tracked file's blob hash, read from the index, no file I/O)
  and ``git status --porcelain -z`` (dirty, untracked and ignored paths); dirty and untracked
  files are statted and hashed. Cost is what ``git status`` costs plus the dirty files, so it
  stays fast on big trees. At gate time a clean tracked file whose mtime and ctime are both
  older than the capture is unchanged without reading it; otherwise its git blob hash is
  compared with the index's. Git runs as a list argv (never a shell) with
  ``core.fsmonitor=false`` and ``GIT_OPTIONAL_LOCKS=0``, so it neither runs repository hooks
  nor writes the index.
- ``snapshot`` (no repository): one ``os.scandir`` walk recording size, mtime, inode and mode
  of every file and folder, skipping dependency and cache folders (:data:`PRUNED_DIRS`) and
  stopping after ``max_entries``. No file is read. At gate time a known file is changed when
  its stat differs (so rewriting identical bytes counts as a change in this mode).

Paths the baseline cannot speak for (git-ignored, pruned, or past the entry limit) fall back to
timestamps: changed when their mtime or ctime is after the capture (less :data:`CLOCK_SLOP_NS`);
a missing one is :attr:`ArtifactStatus.UNKNOWN`, which counts rather than blocks.

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "goal.txt").write_text("already here")
    >>> ws = Workspace(root, WorkspaceBaseline.capture(root))
    >>> ws.check("goal.txt").status.value
    'unchanged'
    >>> _ = (root / "new.txt").write_text("made in the run")
    >>> ws.check("new.txt").status.value, ws.check("../etc/passwd").status.value
    ('created', 'outside')
"""

from __future__ import annotations

import os
import stat as stat_mod
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any, Literal

PRUNED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
     ".pytest_cache", ".ruff_cache", ".tox", ".nox", ".cache", ".gradle", ".next", ".nuxt",
     "target", ".terraform", ".idea", ".eggs"}
)  # fmt: skip
"""Folders the snapshot walk does not enter (dependencies, caches, build trees)."""

CLOCK_SLOP_NS = 2_000_000_000
"""Timestamps are trusted only beyond this margin: kernels stamp files from a coarse clock
that can lag the process clock, and some filesystems store whole seconds."""

MAX_HASH_BYTES = 32 * 1024 * 1024
MAX_HASHED_AT_CAPTURE = 2_000
GIT_TIMEOUT_S = 20.0
BASELINE_SCHEMA = "earnest.workspace-baseline/1"


class ArtifactStatus(StrEnum):
    """What happened to one path, as far as the workspace can tell."""

    CREATED = "created"
    MODIFIED = "modified"
    DELETED = "deleted"
    UNCHANGED = "unchanged"
    ABSENT = "absent"
    """Neither there at the baseline nor now."""
    OUTSIDE = "outside"
    """The path leaves the workspace (``..``, an absolute path elsewhere, a symlink out)."""
    EXISTS = "exists"
    """No baseline: the path exists now."""
    MISSING = "missing"
    """No baseline: the path does not exist now."""
    UNKNOWN = "unknown"
    """The baseline cannot say (an ignored or pruned path that is gone)."""

    @property
    def changed(self) -> bool:
        return self in _CHANGED


_CHANGED = frozenset({ArtifactStatus.CREATED, ArtifactStatus.MODIFIED, ArtifactStatus.DELETED})


@dataclass(frozen=True, slots=True)
class FileState:
    """A path's stat (and, when hashed, its git blob hash) at one moment."""

    kind: Literal["file", "dir", "other", "missing"]
    size: int = -1
    mtime_ns: int = 0
    ctime_ns: int = 0
    ino: int = 0
    executable: bool = False
    digest: str | None = None

    def same_stat(self, other: FileState) -> bool:
        return (
            self.kind == other.kind
            and self.size == other.size
            and self.mtime_ns == other.mtime_ns
            and self.ino == other.ino
            and self.executable == other.executable
        )


MISSING = FileState("missing")


def stat_state(path: str | os.PathLike[str]) -> FileState:
    """The :class:`FileState` of ``path`` (following symlinks), without reading it."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return MISSING
    return _state_of(st)


def _state_of(st: os.stat_result) -> FileState:
    if stat_mod.S_ISREG(st.st_mode):
        kind: Literal["file", "dir", "other"] = "file"
    elif stat_mod.S_ISDIR(st.st_mode):
        kind = "dir"
    else:
        kind = "other"
    return FileState(
        kind, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, bool(st.st_mode & 0o111)
    )


def blob_digest(path: str | os.PathLike[str], size: int) -> str | None:
    """Git's blob hash of a file (``sha1("blob <size>\\0" + bytes)``), or None if unreadable."""
    if size < 0 or size > MAX_HASH_BYTES:
        return None
    import hashlib  # here: only a baseline hashes files, and hashlib loads OpenSSL

    digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


def _hashed(path: Path, state: FileState) -> FileState:
    if state.kind != "file":
        return state
    return FileState(
        state.kind, state.size, state.mtime_ns, state.ctime_ns, state.ino, state.executable,
        blob_digest(path, state.size),
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Path safety


def resolve_root(root: str | os.PathLike[str]) -> Path | None:
    """The real path of a workspace root, or None when it is not an existing folder."""
    try:
        real = Path(os.path.realpath(root))
    except (OSError, ValueError):
        return None
    return real if real.is_dir() else None


def resolve_inside(root: Path, reference: str) -> Path | None:
    """``reference`` (relative to ``root`` or absolute) resolved, or None if it leaves ``root``.

    ``root`` must already be real (see :func:`resolve_root`). Symlinks are followed, so a link
    inside the workspace that points outside it resolves outside and gives None.
    """
    real, _ = Workspace(root)._locate(reference)
    return Path(real) if real is not None else None


# --------------------------------------------------------------------------------------------
# Baseline


def _git(root: Path, *args: str) -> bytes | None:
    import subprocess  # only a git baseline needs it; stop hooks pay for imports

    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "-c", "core.quotePath=false", *args],
            cwd=root,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


@dataclass(frozen=True, eq=False)
class WorkspaceBaseline:
    """The workspace at the start of a run (see the module docstring for the two modes).

    Paths are keys relative to ``root`` (the git top level in git mode), POSIX-style.
    """

    root: Path
    mode: Literal["git", "snapshot"]
    started_ns: int
    head: str | None = None
    states: Mapping[str, FileState] = field(default_factory=dict)
    """Paths whose state was recorded (snapshot: every entry; git: dirty and untracked)."""
    tracked: Mapping[str, tuple[str, bool]] = field(default_factory=dict)
    """git mode: tracked path → (index blob hash, executable)."""
    dirs: frozenset[str] = frozenset()
    """Folders known to exist at the start."""
    opaque: tuple[str, ...] = ()
    """Prefixes the baseline cannot speak for (ignored or pruned folders)."""
    complete: bool = True
    notes: tuple[str, ...] = ()

    @classmethod
    def capture(
        cls, workspace: str | os.PathLike[str], *, max_entries: int = 200_000, use_git: bool = True
    ) -> WorkspaceBaseline:
        """Record the workspace now. Raises ``ValueError`` if it is not an existing folder."""
        root = resolve_root(workspace)
        if root is None:
            raise ValueError(f"workspace {os.fspath(workspace)!r} is not an existing folder")
        started = time.time_ns()
        if use_git:
            baseline = cls._capture_git(root, started)
            if baseline is not None:
                return baseline
        return cls._capture_snapshot(root, started, max_entries)

    @classmethod
    def _capture_git(cls, root: Path, started: int) -> WorkspaceBaseline | None:
        top_out = _git(root, "rev-parse", "--show-toplevel")
        if top_out is None:
            return None
        top = resolve_root(top_out.decode("utf-8", "surrogateescape").strip())
        if top is None:
            return None
        head_out = _git(top, "rev-parse", "--verify", "-q", "HEAD")
        head = head_out.decode().strip() if head_out else None
        ls = _git(top, "ls-files", "-s", "-z", "--full-name")
        status = _git(top, "status", "--porcelain=v1", "-z", "--untracked-files=all",
                      "--ignored=matching", "--no-renames")  # fmt: skip
        if ls is None or status is None:
            return None
        tracked: dict[str, tuple[str, bool]] = {}
        for line in ls.split(b"\0"):
            if not line:
                continue
            meta, _, raw_path = line.partition(b"\t")
            parts = meta.split()
            if len(parts) >= 2:
                tracked[raw_path.decode("utf-8", "surrogateescape")] = (
                    parts[1].decode(), parts[0] == b"100755"
                )  # fmt: skip
        states: dict[str, FileState] = {}
        opaque: list[str] = []
        hashed = 0
        for item in status.split(b"\0"):
            if len(item) < 4:
                continue
            code, path = item[:2], item[3:].decode("utf-8", "surrogateescape")
            if code == b"!!":
                opaque.append(path)
                continue
            state = stat_state(top / path)
            if hashed < MAX_HASHED_AT_CAPTURE:
                state = _hashed(top / path, state)
                hashed += 1
            states[path.rstrip("/")] = state
        dirs = {""}
        for path in (*tracked, *states):
            parent = path.rpartition("/")[0]
            while parent and parent not in dirs:
                dirs.add(parent)
                parent = parent.rpartition("/")[0]
        notes = () if hashed < MAX_HASHED_AT_CAPTURE else ("too many dirty files to hash all",)
        return cls(top, "git", started, head, MappingProxyType(states),
                   MappingProxyType(tracked), frozenset(dirs), tuple(opaque), True, notes)  # fmt: skip

    @classmethod
    def _capture_snapshot(cls, root: Path, started: int, max_entries: int) -> WorkspaceBaseline:
        states: dict[str, FileState] = {}
        dirs = {""}
        opaque: list[str] = []
        complete = True
        stack = [(root, "")]
        while stack:
            folder, rel = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                opaque.append(rel)
                continue
            for entry in entries:
                if len(states) >= max_entries:
                    complete = False
                    break
                rel_path = f"{rel}/{entry.name}" if rel else entry.name
                try:
                    st = entry.stat(follow_symlinks=True)
                except OSError:
                    continue
                if stat_mod.S_ISDIR(st.st_mode):
                    dirs.add(rel_path)
                    if entry.name in PRUNED_DIRS or entry.is_symlink():
                        opaque.append(rel_path)
                    else:
                        stack.append((Path(entry.path), rel_path))
                    continue
                kind: Literal["file", "other"] = "file" if stat_mod.S_ISREG(st.st_mode) else "other"
                states[rel_path] = FileState(
                    kind, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
                    bool(st.st_mode & 0o111),
                )  # fmt: skip
            if not complete:
                break
        notes = () if complete else (f"snapshot stopped at {max_entries} entries",)
        return cls(root, "snapshot", started, None, MappingProxyType(states), {},
                   frozenset(dirs), tuple(opaque), complete, notes)  # fmt: skip

    # -- comparison ------------------------------------------------------------------------

    def _is_opaque(self, rel: str) -> bool:
        if not self.complete:
            return True
        for prefix in self.opaque:
            p = prefix.rstrip("/")
            if rel == p or rel.startswith(p + "/") or p == "":
                return True
        return False

    def _recent(self, now: FileState) -> bool:
        return max(now.mtime_ns, now.ctime_ns) >= self.started_ns - CLOCK_SLOP_NS

    def status(self, path: str | os.PathLike[str], now: FileState | None = None) -> ArtifactStatus:
        """What happened to ``path`` (already resolved inside the workspace) since capture.

        ``now`` is the path's current state when the caller already has it.
        """
        real = os.fspath(path)
        root = str(self.root)
        if real == root:
            rel = ""
        elif real.startswith(root.rstrip(os.sep) + os.sep):
            rel = real[len(root.rstrip(os.sep)) + 1 :].replace(os.sep, "/")
        else:
            return ArtifactStatus.OUTSIDE
        if now is None:
            now = stat_state(real)
        before = self.states.get(rel)
        if before is not None:
            return _compare(before, now, real)
        clean = self.tracked.get(rel)
        if clean is not None:
            if now.kind == "missing":
                return ArtifactStatus.DELETED
            if now.kind != "file" or now.executable != clean[1]:
                return ArtifactStatus.MODIFIED
            if not self._recent(now):
                return ArtifactStatus.UNCHANGED
            digest = blob_digest(real, now.size)
            return ArtifactStatus.UNCHANGED if digest == clean[0] else ArtifactStatus.MODIFIED
        if rel in self.dirs:
            if now.kind == "dir":
                return ArtifactStatus.UNCHANGED
            return ArtifactStatus.DELETED if now.kind == "missing" else ArtifactStatus.MODIFIED
        if self._is_opaque(rel):
            if now.kind == "missing":
                return ArtifactStatus.UNKNOWN
            return ArtifactStatus.MODIFIED if self._recent(now) else ArtifactStatus.UNCHANGED
        return ArtifactStatus.ABSENT if now.kind == "missing" else ArtifactStatus.CREATED

    def summary(self) -> dict[str, object]:
        return {
            "mode": self.mode,
            "root": str(self.root),
            "head": self.head,
            "recorded_paths": len(self.states) + len(self.tracked),
            "complete": self.complete,
            "notes": list(self.notes),
        }

    # -- persistence (a session-start hook captures, a stop hook in another process loads) --

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form. In git mode with a HEAD, tracked hashes are left out: every
        file that was not dirty matched HEAD, so :meth:`from_dict` re-reads them from it."""
        data: dict[str, Any] = {
            "schema": BASELINE_SCHEMA,
            "root": str(self.root),
            "mode": self.mode,
            "started_ns": self.started_ns,
            "head": self.head,
            "states": {p: _state_list(s) for p, s in self.states.items()},
            "dirs": sorted(self.dirs),
            "opaque": list(self.opaque),
            "complete": self.complete,
            "notes": list(self.notes),
        }
        if self.mode == "git" and self.head is None:
            data["tracked"] = {p: [h, x] for p, (h, x) in self.tracked.items()}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkspaceBaseline:
        """Load what :meth:`to_dict` wrote; ``ValueError`` names what is malformed."""
        if not isinstance(data, Mapping) or data.get("schema") != BASELINE_SCHEMA:
            raise ValueError(f"not a workspace baseline (schema {BASELINE_SCHEMA!r} expected)")
        try:
            root = Path(str(data["root"]))
            mode = data["mode"]
            if mode not in ("git", "snapshot"):
                raise ValueError(f"unknown mode {mode!r}")
            states = {str(p): _state_from_list(v) for p, v in dict(data["states"]).items()}
            head = data.get("head")
            tracked: dict[str, tuple[str, bool]] = {
                str(p): (str(v[0]), bool(v[1])) for p, v in dict(data.get("tracked", {})).items()
            }
            if mode == "git" and head is not None and "tracked" not in data:
                tracked = _tracked_at(root, str(head))
            return cls(
                root, mode, int(data["started_ns"]), head, MappingProxyType(states),
                MappingProxyType(tracked), frozenset(str(d) for d in data["dirs"]),
                tuple(str(o) for o in data["opaque"]), bool(data["complete"]),
                tuple(str(n) for n in data.get("notes", ())),
            )  # fmt: skip
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"malformed workspace baseline: {exc!r}") from None


def _state_list(s: FileState) -> list[Any]:
    return [s.kind, s.size, s.mtime_ns, s.ctime_ns, s.ino, s.executable, s.digest]


def _state_from_list(v: Any) -> FileState:
    kind, size, mtime, ctime, ino, executable, digest = v
    if kind not in ("file", "dir", "other", "missing"):
        raise ValueError(f"unknown file kind {kind!r}")
    return FileState(kind, int(size), int(mtime), int(ctime), int(ino), bool(executable),
                     None if digest is None else str(digest))  # fmt: skip


def _tracked_at(root: Path, head: str) -> dict[str, tuple[str, bool]]:
    """Blob hash and executable bit of every file in commit ``head`` (``git ls-tree``)."""
    out = _git(root, "ls-tree", "-r", "-z", "--full-tree", head)
    if out is None:
        raise ValueError(f"cannot read commit {head} in {root}")
    tracked: dict[str, tuple[str, bool]] = {}
    for line in out.split(b"\0"):
        meta, _, raw_path = line.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob":
            tracked[raw_path.decode("utf-8", "surrogateescape")] = (
                parts[2].decode(), parts[0] == b"100755"
            )  # fmt: skip
    return tracked


def _compare(before: FileState, now: FileState, path: str) -> ArtifactStatus:
    if before.kind == "missing":
        return ArtifactStatus.ABSENT if now.kind == "missing" else ArtifactStatus.CREATED
    if now.kind == "missing":
        return ArtifactStatus.DELETED
    if before.kind == "dir" and now.kind == "dir":
        return ArtifactStatus.UNCHANGED
    if before.same_stat(now):
        return ArtifactStatus.UNCHANGED
    if before.digest is not None and now.kind == "file" and before.executable == now.executable:
        same = blob_digest(path, now.size) == before.digest
        return ArtifactStatus.UNCHANGED if same else ArtifactStatus.MODIFIED
    return ArtifactStatus.MODIFIED


# --------------------------------------------------------------------------------------------
# The workspace as the gate sees it


@dataclass(frozen=True, slots=True)
class ArtifactCheck:
    """The verdict on one reference: its status and its real path (None if outside)."""

    reference: str
    status: ArtifactStatus
    path: str | None


class Workspace:
    """A workspace root (resolved once) and, optionally, its baseline.

    Folders it ``lstat``-ed on the way to a path are cached (the path itself is always looked at
    afresh); :meth:`clear_cache` forgets them (the gate does so at the start of every ``apply``).
    """

    def __init__(
        self, root: str | os.PathLike[str], baseline: WorkspaceBaseline | None = None
    ) -> None:
        self.root = resolve_root(root)
        self.baseline = baseline
        self._prefix = str(self.root).rstrip(os.sep) + os.sep if self.root is not None else ""
        self._stats: dict[str, os.stat_result | None] = {}
        self._parents: dict[str, str | None] = {}

    @property
    def resolvable(self) -> bool:
        return self.root is not None

    def clear_cache(self) -> None:
        """Forget what was statted (call when tool calls may have changed the workspace)."""
        self._stats.clear()
        self._parents.clear()

    def resolve(self, reference: str) -> Path | None:
        """``reference`` resolved inside the workspace, or None (see :func:`resolve_inside`)."""
        real, _ = self._locate(reference)
        return Path(real) if real is not None else None

    def _inside(self, path: str) -> bool:
        return path == self._prefix.rstrip(os.sep) or path.startswith(self._prefix)

    def _lstat(self, path: str, *, cache: bool = True) -> os.stat_result | None:
        """``lstat`` of a path already known to be inside the workspace."""
        if cache and path in self._stats:
            return self._stats[path]
        try:
            st: os.stat_result | None = os.lstat(path)
        except (OSError, ValueError):
            st = None
        if cache:
            self._stats[path] = st
        return st

    def _locate(self, reference: str) -> tuple[str | None, FileState]:
        """Real path (None when outside) and current state.

        Containment is decided from the path alone first: a reference whose normalised text
        leaves the root is outside without a single system call. A reference inside is
        resolved one component at a time, and a symlink's target is judged by its text
        before it is followed, so no path outside the workspace is ever ``lstat``-ed.
        """
        if self.root is None or not reference or "\0" in reference:
            return None, MISSING
        try:
            ref = os.path.expanduser(reference) if reference.startswith("~") else reference
            full = ref if os.path.isabs(ref) else self._prefix + ref
            norm = os.path.normpath(full)
            if not self._inside(norm):
                return None, MISSING
            if ".." not in full.split(os.sep) and norm != self._prefix.rstrip(os.sep):
                # The common case: the folder resolved once, then one lstat per file.
                parent, name = os.path.split(norm)
                real_parent = self._parents.get(parent, "")
                if real_parent == "":
                    real_parent = self._parents[parent] = self._resolve(parent)[0]
                if real_parent is None:
                    return None, MISSING
                candidate = os.path.join(real_parent, name)
                st = self._lstat(candidate, cache=False)
                if st is None:
                    return candidate, MISSING
                if not stat_mod.S_ISLNK(st.st_mode):
                    return candidate, _state_of(st)
            return self._resolve(full)
        except (OSError, ValueError, RuntimeError):
            return None, MISSING

    def _resolve(self, full: str) -> tuple[str | None, FileState]:
        """``os.path.realpath`` that never touches a path outside the workspace."""
        root = self._prefix.rstrip(os.sep)
        pending = full.split(os.sep)[::-1]  # a stack: the next component last
        path = os.sep
        st: os.stat_result | None = None
        links = 0
        while pending:
            name = pending.pop()
            if name in ("", "."):
                continue
            if name == "..":
                path = os.path.dirname(path)
                st = None
                continue
            candidate = os.path.join(path, name)
            if not candidate.startswith(self._prefix):
                # The root and its ancestors are real folders (the root was resolved): walk
                # through them without a call; anything else outside ends the resolution.
                if candidate == root or root.startswith(candidate + os.sep):
                    path, st = candidate, None
                    continue
                return None, MISSING
            # Folders on the way are cached; the last component is always looked at afresh.
            st = self._lstat(candidate, cache=bool(pending))
            if st is None or not stat_mod.S_ISLNK(st.st_mode):
                path = candidate
                continue
            links += 1
            if links > 40:
                return None, MISSING  # a loop of links
            target = os.readlink(candidate)
            if os.path.isabs(target):
                path = os.sep
            # Judge the link by where its text points before following it.
            if not self._inside(os.path.normpath(os.path.join(path, target))):
                return None, MISSING
            pending.extend(target.split(os.sep)[::-1])
            st = None
        if not self._inside(path):
            return None, MISSING
        if st is None:
            st = self._lstat(path, cache=False)
        return path, _state_of(st) if st is not None else MISSING

    def exists(self, reference: str) -> bool:
        """Whether ``reference`` names an existing path inside the workspace."""
        real, state = self._locate(reference)
        return real is not None and state.kind != "missing"

    def check(self, reference: str) -> ArtifactCheck:
        """Status of ``reference``: against the baseline if there is one, else existence."""
        real, state = self._locate(reference)
        if real is None:
            return ArtifactCheck(reference, ArtifactStatus.OUTSIDE, None)
        if self.baseline is not None:
            return ArtifactCheck(reference, self.baseline.status(real, state), real)
        present = state.kind != "missing"
        status = ArtifactStatus.EXISTS if present else ArtifactStatus.MISSING
        return ArtifactCheck(reference, status, real)


__all__ = [
    "BASELINE_SCHEMA",
    "CLOCK_SLOP_NS",
    "PRUNED_DIRS",
    "ArtifactCheck",
    "ArtifactStatus",
    "FileState",
    "Workspace",
    "WorkspaceBaseline",
    "blob_digest",
    "resolve_inside",
    "resolve_root",
    "stat_state",
]
