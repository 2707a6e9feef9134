"""What an acting agent left running outside its process group, killed when its sample ends.

Every child runs in a process group of its own, which :func:`earnest.live.providers.exec_cli.
run_child` kills as a whole when the child exits. A process that starts a session of its own
(``setsid``, ``start_new_session=True``, a double-forking daemon) has left that group and,
unconfined, would outlive its sample (and write into a copy earnest is judging, or anywhere
else). Every acting child's environment names its copy of the workspace
(``EARNEST_WORKSPACE=<copy>``, a folder made for that sample alone), and a process inherits
that environment: when the sample ends, every process of this user whose environment still
names the copy is killed (:func:`kill_marked`).

One that also empties its environment (``env -i setsid ...``) is not found this way; only
confinement is sure (``confine = "bwrap"``: the agent's PID namespace dies with it). On a
system without ``/proc`` nothing is found.

Example:
    >>> marked(Path("/nonexistent/earnest-act-x/workspace"))
    []
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

MARK = b"EARNEST_WORKSPACE="
"""The variable that names an acting child's copy of the workspace."""


def marked(workspace: Path, proc: Path = Path("/proc")) -> list[int]:
    """The processes of this user (but this one) whose environment names ``workspace`` as
    ``EARNEST_WORKSPACE`` (the whole value: ``/x/ws`` is not ``/x/ws2``)."""
    entry = b"\0" + MARK + os.fsencode(str(workspace)) + b"\0"
    uid, me = os.getuid(), os.getpid()
    found: list[int] = []
    try:
        listing = list(os.scandir(proc))
    except OSError:
        return found
    for item in listing:
        if not item.name.isdigit() or int(item.name) == me:
            continue
        try:
            if item.stat(follow_symlinks=False).st_uid != uid:
                continue
            with open(os.path.join(item.path, "environ"), "rb") as handle:
                environ = handle.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if entry in b"\0" + environ + b"\0":
            found.append(int(item.name))
    return found


def kill_marked(workspace: Path) -> int:
    """Kill (SIGKILL) every process :func:`marked` finds for ``workspace``; how many."""
    killed = 0
    for pid in marked(workspace):
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue
        killed += 1
    return killed


__all__ = ["MARK", "kill_marked", "marked"]
