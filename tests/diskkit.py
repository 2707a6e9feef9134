"""Real faults of the file system for the safety tests: a full disk and a folder that may not
be written.

``small_disk`` mounts a tiny tmpfs (root only; skips when mounting is impossible, where the
tests fall back to a mocked ``ENOSPC`` in process). ``run_unprivileged`` runs earnest so that a
read-only folder stops it: as root it drops the capabilities that ignore permission bits.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from conftest import SRC


def can_mount() -> bool:
    return (
        sys.platform.startswith("linux") and os.geteuid() == 0 and shutil.which("mount") is not None
    )


@contextlib.contextmanager
def small_disk(size_kib: int = 256) -> Iterator[Path | None]:
    """A fresh tmpfs of ``size_kib`` KiB, or ``None`` when one cannot be mounted."""
    where = Path(tempfile.mkdtemp(prefix="earnest-disk-"))
    mounted = False
    try:
        if can_mount():
            proc = subprocess.run(
                ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0777", "tmpfs", str(where)],
                capture_output=True,
            )
            mounted = proc.returncode == 0
        yield where if mounted else None
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(where)], capture_output=True)
        shutil.rmtree(where, ignore_errors=True)


def fill(disk: Path, leave: int = 2048) -> None:
    """Fill ``disk`` until at most ``leave`` bytes are free."""
    block = b"\0" * 4096
    with open(disk / "filler", "wb") as fh, contextlib.suppress(OSError):
        while True:
            st = os.statvfs(disk)
            if st.f_bavail * st.f_frsize <= leave:
                break
            fh.write(block)
            fh.flush()


def run_unprivileged(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m earnest ARGS`` that permission bits apply to: as root, without the
    capabilities that override them (``setpriv``); as another user, as is."""
    env = dict(os.environ, PYTHONPATH=str(SRC), NO_COLOR="1")
    prefix: list[str] = []
    if os.geteuid() == 0:
        caps = "-dac_override,-dac_read_search"
        prefix = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "earnest", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def can_drop_privileges() -> bool:
    return os.geteuid() != 0 or shutil.which("setpriv") is not None
