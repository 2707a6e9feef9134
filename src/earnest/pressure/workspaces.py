"""An agentic fixture's workspace: the template folder, a fresh copy per sample, and the diff.

The template is a folder of the suite (never outside its root: the path is resolved and
checked). :func:`copy_workspace` copies it into a new folder (symlinks copied as links, never
followed); :func:`snapshot` records each regular file's SHA-256, and :func:`diff_snapshots`
says which files the agent created, changed and deleted, as sorted POSIX paths relative to
the workspace. Version-control and cache folders (``.git``, ``__pycache__``,
``.pytest_cache`` ...) are left out of the diff: running ``pytest`` is not a change.

Example:
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "ws").mkdir(); _ = (root / "ws" / "a.txt").write_text("1")
    >>> before = snapshot(root / "ws")
    >>> _ = (root / "ws" / "a.txt").write_text("2"); _ = (root / "ws" / "b.txt").write_text("")
    >>> diff_snapshots(before, snapshot(root / "ws"))
    (('b.txt',), ('a.txt',), ())
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from earnest.pressure.models import Fixture, Suite

IGNORED_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
     "node_modules", ".venv", ".tox"}
)  # fmt: skip
"""Folders the diff does not look into (tool caches and version-control internals)."""


def resolve_workspace(root: Path, relative: str) -> Path:
    """The template folder of ``relative`` under the suite ``root``.

    Raises :class:`ValueError` when it is absolute, leaves the suite or is not a folder.
    """
    if Path(relative).is_absolute():
        raise ValueError(f"{relative!r} must be relative to the suite folder")
    base = root.resolve()
    path = (base / relative).resolve()
    if path != base and base not in path.parents:
        raise ValueError(f"{relative!r} leaves the suite folder")
    if not path.is_dir():
        raise ValueError(f"{relative!r} is not a folder of the suite")
    return path


def template_files(folder: Path) -> list[str]:
    """The files of a template as POSIX paths relative to it (sorted)."""
    return sorted(snapshot(folder))


def snapshot(folder: Path) -> dict[str, str]:
    """Relative POSIX path → SHA-256 of every regular file (symlinks: ``link:`` + target)."""
    out: dict[str, str] = {}
    base = str(folder)
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS)
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, base).replace(os.sep, "/")
            try:
                if os.path.islink(full):
                    out[rel] = "link:" + os.readlink(full)
                    continue
                digest = hashlib.sha256()
                with open(full, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 16), b""):
                        digest.update(block)
                out[rel] = digest.hexdigest()
            except OSError:
                out[rel] = "unreadable"
    return out


def diff_snapshots(
    before: Mapping[str, str], after: Mapping[str, str]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(created, changed, deleted) between two snapshots."""
    created = tuple(sorted(p for p in after if p not in before))
    changed = tuple(sorted(p for p in after if p in before and before[p] != after[p]))
    deleted = tuple(sorted(p for p in before if p not in after))
    return created, changed, deleted


def copy_workspace(template: Path, destination: Path) -> Path:
    """A fresh copy of ``template`` at ``destination`` (which must not exist yet)."""
    shutil.copytree(template, destination, symlinks=True)
    return destination


MAX_TEXT_BYTES = 256 * 1024
"""Files read as text for content evidence at most this big (a bigger one reads as ``""``)."""


def read_text_file(path: Path) -> str | None:
    """A regular file's text for content evidence: ``None`` for a symlink, a file too big
    (:data:`MAX_TEXT_BYTES`) or one that is not UTF-8 text."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_TEXT_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class TemplateTexts(Mapping[str, str]):
    """The text of a workspace template's files, path → text, each read on first use.

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp()); _ = (d / "a.md").write_text("hi")
        >>> t = TemplateTexts(d); list(t), t["a.md"]
        (['a.md'], 'hi')
    """

    def __init__(self, root: Path) -> None:
        self._root = root
        self._files: list[str] | None = None
        self._texts: dict[str, str] = {}

    def _names(self) -> list[str]:
        if self._files is None:
            self._files = template_files(self._root)
        return self._files

    def __getitem__(self, path: str) -> str:
        if path not in self._texts:
            if path not in self._names():
                raise KeyError(path)
            self._texts[path] = read_text_file(self._root / path) or ""
        return self._texts[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


def template_texts(suite: Suite, fixture: Fixture) -> TemplateTexts | None:
    """The template texts of ``fixture``'s workspace; ``None`` when it has none (or it is not
    a folder of the suite)."""
    if fixture.workspace is None:
        return None
    try:
        return _texts(resolve_workspace(suite.config.root, fixture.workspace))
    except ValueError:
        return None


@functools.lru_cache(maxsize=64)
def _texts(root: Path) -> TemplateTexts:
    return TemplateTexts(root)


__all__ = [
    "IGNORED_DIRS",
    "MAX_TEXT_BYTES",
    "TemplateTexts",
    "copy_workspace",
    "diff_snapshots",
    "read_text_file",
    "resolve_workspace",
    "snapshot",
    "template_files",
    "template_texts",
]
