"""The parts of an acted-out sample's ``did`` beyond its commands and diff: the timeline, git,
attempts outside the copy, and the final text of the files it wrote.

All optional in the ``did`` shape (docs/formats.md), so a ``did`` recorded before they existed
still reads and re-judges:

- ``steps``: the agent's tool calls in order, each a :class:`Step` (the command it ran, or the
  file tool it used, whether it succeeded, the workspace paths it changed and deleted);
- ``git``: a :class:`GitRecord` read from the copy's ``.git`` after the agent finished
  (commits it made, with their files, message and added text; branches and tags it created or
  moved; pushes; hook bypasses);
- ``outside``: each :class:`OutsideAttempt` to write, delete or read outside the copy;
- ``files``: the final text of the files it created or changed (bounded), for content checks.

Example:
    >>> s = Step.from_dict({"command": "pytest -q", "ok": True}, "did.steps[0]")
    >>> s.to_dict()
    {'command': 'pytest -q', 'ok': True}
    >>> OutsideAttempt("write", "/home/me/notes.txt", "echo x > /home/me/notes.txt", False).describe()
    'tried to write /home/me/notes.txt (`echo x > /home/me/notes.txt`, refused)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

OUTSIDE_OPS = ("write", "delete", "read")


def _str_list(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}.{key} must be a list of strings")
    return tuple(value)


def _str(data: Mapping[str, Any], key: str, where: str, default: str = "") -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ValueError(f"{where}.{key} must be a string")
    return value


def _bool(data: Mapping[str, Any], key: str, where: str, default: bool = True) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{where}.{key} must be true or false")
    return value


def _object(data: Any, where: str, known: set[str]) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ValueError(f"{where} must be an object")
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{where}: unknown field {unknown[0]!r}")
    return data


@dataclass(frozen=True, slots=True)
class Step:
    """One tool call of the agent, in the order it made them."""

    command: str = ""
    """The shell command it ran (``""`` for a file tool)."""
    ok: bool = True
    tool: str = ""
    """The file tool's name (``Edit``, ``Write`` ...), ``""`` for a shell command."""
    changed: tuple[str, ...] = ()
    """Workspace paths it wrote (created or changed), as far as the call names them."""
    deleted: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.command:
            out["command"] = self.command
        if self.tool:
            out["tool"] = self.tool
        out["ok"] = self.ok
        if self.changed:
            out["changed"] = list(self.changed)
        if self.deleted:
            out["deleted"] = list(self.deleted)
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Step:
        d = _object(data, where, {"command", "tool", "ok", "changed", "deleted"})
        return cls(
            command=_str(d, "command", where),
            ok=_bool(d, "ok", where),
            tool=_str(d, "tool", where),
            changed=_str_list(d, "changed", where),
            deleted=_str_list(d, "deleted", where),
        )


@dataclass(frozen=True, slots=True)
class Commit:
    """A commit the agent made in its copy (new since the copy was made)."""

    sha: str
    message: str = ""
    files: tuple[str, ...] = ()
    """The paths it touched (against its first parent; all of them for a root commit)."""
    added: str = ""
    """The lines it added, joined (bounded), for content checks on commits."""

    def to_dict(self) -> dict[str, Any]:
        return {"sha": self.sha, "message": self.message, "files": list(self.files),
                "added": self.added}  # fmt: skip

    @classmethod
    def from_dict(cls, data: Any, where: str) -> Commit:
        d = _object(data, where, {"sha", "message", "files", "added"})
        return cls(
            sha=_str(d, "sha", where),
            message=_str(d, "message", where),
            files=_str_list(d, "files", where),
            added=_str(d, "added", where),
        )


@dataclass(frozen=True, slots=True)
class GitRecord:
    """What the agent did to the copy's repository, from git's own data after it finished
    (compared with the refs at the start) and from the commands it ran."""

    commits: tuple[Commit, ...] = ()
    branches: tuple[str, ...] = ()
    """Branches created or moved."""
    tags: tuple[str, ...] = ()
    """Tags created or moved."""
    pushes: tuple[str, ...] = ()
    """Branches (or refspecs) pushed: from successful ``git push`` commands and moved
    remote-tracking refs."""
    bypasses: tuple[str, ...] = ()
    """Hook bypasses: ``--no-verify``, ``core.hooksPath`` set on a command or in the config."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "commits": [c.to_dict() for c in self.commits],
            "branches": list(self.branches),
            "tags": list(self.tags),
            "pushes": list(self.pushes),
            "bypasses": list(self.bypasses),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "did.git") -> GitRecord:
        d = _object(data, where, {"commits", "branches", "tags", "pushes", "bypasses"})
        raw = d.get("commits", [])
        if not isinstance(raw, list):
            raise ValueError(f"{where}.commits must be a list")
        return cls(
            commits=tuple(Commit.from_dict(c, f"{where}.commits[{i}]") for i, c in enumerate(raw)),
            branches=_str_list(d, "branches", where),
            tags=_str_list(d, "tags", where),
            pushes=_str_list(d, "pushes", where),
            bypasses=_str_list(d, "bypasses", where),
        )


@dataclass(frozen=True, slots=True)
class OutsideAttempt:
    """An attempt to ``write``, ``delete`` or ``read`` a path outside the workspace copy
    (beyond what the agent's profile needs), whether or not the sandbox let it through."""

    op: str
    path: str
    command: str = ""
    """The shell command, or the file tool's name, that tried it."""
    ok: bool = False
    """Whether the call succeeded (under bubblewrap a write outside is refused)."""

    def describe(self) -> str:
        how = "succeeded" if self.ok else "refused"
        via = f"`{self.command}`, " if self.command else ""
        return f"tried to {self.op} {self.path} ({via}{how})"

    def to_dict(self) -> dict[str, Any]:
        return {"op": self.op, "path": self.path, "command": self.command, "ok": self.ok}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> OutsideAttempt:
        d = _object(data, where, {"op", "path", "command", "ok"})
        op = d.get("op")
        if op not in OUTSIDE_OPS:
            raise ValueError(f"{where}.op must be one of {', '.join(OUTSIDE_OPS)}")
        return cls(op=op, path=_str(d, "path", where), command=_str(d, "command", where),
                   ok=_bool(d, "ok", where, False))  # fmt: skip


def read_files(data: Any, where: str = "did.files") -> tuple[tuple[str, str], ...]:
    """The ``files`` object (path → final text) as sorted pairs."""
    if not isinstance(data, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise ValueError(f"{where} must be an object of path → text")
    return tuple(sorted(data.items()))


__all__ = [
    "OUTSIDE_OPS",
    "Commit",
    "GitRecord",
    "OutsideAttempt",
    "Step",
    "read_files",
]
