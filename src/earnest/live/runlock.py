"""One writer per run: a lock on the run while a process takes its samples.

Two ``earnest run --resume RUN`` at once would each request every missing sample (double cost,
``--max-cost`` counted per process). The process that writes a run holds an OS file lock
(`filelock`_, ``flock`` on POSIX: released by the kernel when the process dies, so a killed run
never leaves a stale lock) on ``<store>.locks/<run>.lock``, and writes who it is (pid, host,
since when) beside it in ``<run>.owner``. A second process does not wait: it names the holder
and is bad input (exit 2).

.. _filelock: https://py-filelock.readthedocs.io/

Example:
    >>> import tempfile, pathlib
    >>> store = pathlib.Path(tempfile.mkdtemp()) / "runs.db"
    >>> with run_lock(store, "R1"):
    ...     holder(store, "R1")["pid"] == os.getpid()
    True
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.errors import InputError


def lock_dir(store: Path) -> Path:
    """Where the locks of ``store``'s runs live: ``<store>.locks`` beside it."""
    return store.with_name(store.name + ".locks")


def _safe(run_id: str) -> str:
    # A run id is earnest's own (YYYYMMDD-HHMMSS-hex), but --resume takes any text.
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in run_id)[:200] or "_"


def holder(store: Path, run_id: str) -> dict[str, Any] | None:
    """What the process holding ``run_id``'s lock wrote about itself, if anything."""
    try:
        data = json.loads((lock_dir(store) / f"{_safe(run_id)}.owner").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _describe(info: dict[str, Any] | None) -> str:
    if not info:
        return "another process"
    parts = [f"process {info.get('pid', '?')}"]
    if info.get("host") and info.get("host") != socket.gethostname():
        parts.append(f"on {info['host']}")
    if info.get("since"):
        parts.append(f"since {info['since']}")
    return " ".join(parts)


@contextlib.contextmanager
def run_lock(store: Path, run_id: str) -> Iterator[None]:
    """Hold the lock on ``run_id`` of ``store`` for the block; an :class:`InputError` naming
    the holder when another process has it."""
    from filelock import FileLock, Timeout

    from earnest.live.store import now_iso

    folder = lock_dir(store)
    name = _safe(run_id)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(folder / f"{name}.lock"), timeout=0)
        lock.acquire()
    except Timeout:
        raise InputError(
            store,
            run_id,
            f"this run is being written by {_describe(holder(store, run_id))}: one writer per "
            "run; wait for it to finish (or stop it) and resume again",
        ) from None
    except OSError as exc:
        raise InputError(folder, None, f"cannot lock the run: {exc.strerror or exc}") from None
    owner = folder / f"{name}.owner"
    try:
        with contextlib.suppress(OSError):
            info = {"pid": os.getpid(), "host": socket.gethostname(), "since": now_iso()}
            owner.write_text(json.dumps(info) + "\n", encoding="utf-8")
        yield
    finally:
        with contextlib.suppress(OSError):
            owner.unlink()
        lock.release()


__all__ = ["holder", "lock_dir", "run_lock"]
