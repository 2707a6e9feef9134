"""Read a user's text file safely: regular files only, UTF-8 with or without a byte-order mark.

Every reader of suite files (config, doctrine, agent docs, fixtures) goes through
:func:`read_text`, so the same input gives the same answer everywhere:

- a FIFO, a device or a socket is refused *without being read*: the file is opened with
  ``O_NONBLOCK`` (opening a FIFO without a writer would otherwise block forever) and
  checked with ``fstat`` before a byte is read;
- a leading UTF-8 byte-order mark is dropped (editors on Windows write one; left in place it
  hides a ``---`` front-matter line or a ``### 1.`` rule heading);
- bytes that are not UTF-8 are an :class:`~earnest.errors.InputError` naming the line.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "doc.md"
    >>> _ = p.write_bytes(b"\\xef\\xbb\\xbf### 1. Rule")
    >>> read_text(p)
    '### 1. Rule'
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from earnest.errors import InputError

BOM = "\ufeff"


def file_kind(mode: int) -> str:
    """A short name for a non-regular file type, for messages."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_regular(path: Path) -> str | None:
    """Why ``path`` is not a regular file (``None`` when it is), from ``stat`` alone."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None  # the reader reports the real error (missing, permission, NUL byte)
    return None if stat.S_ISREG(mode) else file_kind(mode)


def read_bytes(path: Path, what: str = "file") -> bytes:
    """The bytes of the regular file ``path``; anything else is an :class:`InputError`."""
    if "\x00" in str(path):
        raise InputError(str(path).replace("\x00", "\\0"), None, "the path contains a NUL byte")
    kind = not_regular(path)
    if kind is not None:
        raise InputError(path, None, f"{what} is {kind}, not a regular file: not read")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(path, None, f"{what} does not exist") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read {what}: {exc.strerror}") from None
    try:
        # Checked again on the open file: the path may have been swapped since the stat.
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(
                path, None, f"{what} is {file_kind(mode)}, not a regular file: not read"
            )
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(path, None, f"cannot read {what}: {exc.strerror}") from None
    finally:
        os.close(fd)


def decode_text(data: bytes, path: Path | str, what: str = "file") -> str:
    """``data`` as UTF-8 without a leading byte-order mark; bad bytes name their line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            path, f"line {line}", f"{what} is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    return text[1:] if text.startswith(BOM) else text


def read_text(path: Path, what: str = "file") -> str:
    """The UTF-8 text of the regular file ``path``, byte-order mark dropped."""
    return decode_text(read_bytes(path, what), path, what)


__all__ = ["BOM", "decode_text", "file_kind", "not_regular", "read_bytes", "read_text"]
