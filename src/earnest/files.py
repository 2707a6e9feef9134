"""Writing the user's files safely: whole or not at all, with the user's umask, never onto a
file the command reads or the suite owns.

Every file earnest writes for the user (``--output``, ``trajectory convert -o``, a baseline)
goes through :func:`atomic_writer`: the text goes to a temporary file beside the target, which
replaces the target only once everything was written. A full disk (``ENOSPC``), a folder that
may not be written (``EACCES``) or any other ``OSError`` becomes an :class:`InputError` naming
the file, and the user's previous file stays as it was.

A new file gets the mode the user's umask gives (``0o666 & ~umask``, as ``open()`` would); a
replaced file keeps its mode. (``tempfile.mkstemp`` alone would leave every output ``0600``.)

Example:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> write_text_atomic(d / "out.txt", "ok\\n"); (d / "out.txt").read_text()
    'ok\\n'
    >>> try:
    ...     refuse_overwrite(d / "out.txt", [d / "x" / ".." / "out.txt"], "an input")
    ... except InputError as e:
    ...     e.message.startswith("refusing to overwrite an input")
    True
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from earnest.errors import InputError


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` would give a new file under the current umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _mode_for(path: Path) -> int:
    """The mode the written file gets: an existing regular file's own mode, else the umask's
    (a symbolic link is replaced, so its target's mode is not copied)."""
    try:
        st = path.lstat()
    except OSError:
        return new_file_mode()
    if stat.S_ISREG(st.st_mode):
        return st.st_mode & 0o7777
    return new_file_mode()


def same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same inode (hard links, symlinks, ``..``) when
    both exist, else the same resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        try:
            return a.resolve() == b.resolve()
        except (OSError, RuntimeError):
            return False


def refuse_overwrite(output: Path, protected: Iterable[Path], why: str) -> None:
    """An :class:`InputError` when ``output`` is one of ``protected`` (``why`` says what they
    are, e.g. "a file the command reads")."""
    for p in protected:
        if same_file(output, Path(p)):
            raise InputError(output, None, f"refusing to overwrite {why}: {p}")


def check_target(output: Path) -> None:
    """An :class:`InputError` when ``output`` cannot be a file to write: a folder (or a link to
    one), or in a folder that does not exist (it is never created)."""
    if output.is_dir():
        raise InputError(output, None, "--output is a folder, expected a file path")
    parent = output.parent if str(output.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(output, None, f"folder {parent} does not exist")


def _write_error(path: Path, exc: OSError) -> InputError:
    reason = exc.strerror or str(exc)
    return InputError(
        path, None, f"cannot write: {reason}; nothing was written (the old file is kept)"
    )


@contextlib.contextmanager
def atomic_path(path: str | Path, *, suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary file's path beside ``path`` for a library that writes to a path (pyarrow's
    Parquet writer, inspect_ai's log writer); ``path`` is replaced by it when the block ends
    without an exception, with the mode :func:`atomic_writer` gives. The same rules as every
    other output: an ``OSError`` (creating, writing, replacing) is an :class:`InputError` that
    leaves ``path`` as it was; a symbolic link at ``path`` is replaced, never written through.
    ``suffix`` ends the temporary name (a library that checks the extension).

    Example:
        >>> import tempfile, pathlib
        >>> d = pathlib.Path(tempfile.mkdtemp())
        >>> with atomic_path(d / "out.bin") as tmp:
        ...     _ = tmp.write_bytes(b"ok")
        >>> (d / "out.bin").read_bytes(), sorted(p.name for p in d.iterdir())
        (b'ok', ['out.bin'])
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=directory)
        os.close(fd)
    except OSError as exc:
        raise _write_error(path, exc) from None
    try:
        try:
            yield Path(tmp)
            os.chmod(tmp, _mode_for(path))
            os.replace(tmp, path)
        except OSError as exc:
            raise _write_error(path, exc) from None
    except KeepOld:
        pass
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, errors: str = "strict") -> Iterator[IO[str]]:
    """A text handle on a temporary file beside ``path``; ``path`` is replaced when the block
    ends without an exception (:func:`atomic_path`'s rules). An ``OSError`` (while creating,
    writing or replacing) is an :class:`InputError` and leaves ``path`` as it was.

    A block that should not replace the file after all (nothing worth writing) raises
    :class:`KeepOld` to discard the temporary file quietly.
    """
    with atomic_path(path) as tmp:
        try:
            handle = open(tmp, "w", encoding="utf-8", errors=errors, newline="")  # noqa: SIM115
        except OSError as exc:
            raise _write_error(Path(path), exc) from None
        with handle:
            yield handle


class KeepOld(Exception):
    """Raised inside :func:`atomic_writer` to discard what was written and keep the old file."""


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_writer`."""
    with atomic_writer(path) as handle:
        handle.write(text)


__all__ = [
    "KeepOld",
    "atomic_path",
    "atomic_writer",
    "check_target",
    "new_file_mode",
    "refuse_overwrite",
    "same_file",
    "write_text_atomic",
]
