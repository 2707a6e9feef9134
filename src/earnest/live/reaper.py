"""A sample's reaper: nothing an unconfined agent started outlives its sample.

An unconfined acting (or completing) child runs under this launcher, started as
``python -I -S reaper.py PARENT -- AGENT...`` (:func:`reaper_argv`; the standard library
only, so it starts in a few tens of milliseconds). It

1. makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux): every process
   the agent starts that loses its parent is re-parented to the reaper, whatever session,
   process group or environment it has made for itself (``setsid``, a double fork,
   ``env -i``) — not to ``init``;
2. dies with earnest (``PR_SET_PDEATHSIG``: SIGTERM when its parent, ``PARENT``, is gone);
3. starts the agent (which itself dies with the reaper: ``PR_SET_PDEATHSIG`` SIGKILL), reaps
   whatever is re-parented to it meanwhile, and waits for the agent;
4. then SIGKILLs every process still under it (found through ``/proc/*/stat``'s parent ids),
   reaps them, and repeats until it has no child left (:func:`kill_tree`);
5. exits as the agent did (its status, or the signal that ended it).

SIGTERM (earnest's timeout and cancellation: :func:`earnest.live.providers.exec_cli.
run_child`) does step 4 at once and exits. A confined child needs none of this: bubblewrap's
PID namespace dies with it (:mod:`earnest.live.confine`). On a system that is not Linux the
agent is started directly (:func:`reaper_argv` returns its argv as it is), and only its
process group is killed when it ends: a process that started a session of its own can
outlive its sample there.

Example:
    >>> reaper_argv(["agent", "--go"], parent=42, python="/usr/bin/python3")[-4:]
    ['42', '--', 'agent', '--go']
"""

from __future__ import annotations

import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

SUPPORTED = sys.platform.startswith("linux")
"""Whether a child can be reaped here (``prctl`` subreapers are Linux's)."""


def reaper_argv(
    argv: list[str], *, parent: int | None = None, python: str | None = None
) -> list[str]:
    """``argv`` started under the reaper (``argv`` itself where it cannot run: not Linux);
    ``parent`` is the process the reaper dies with (earnest: this one)."""
    if not SUPPORTED:
        return list(argv)
    me = str(os.getpid() if parent is None else parent)
    return [python or sys.executable, "-I", "-S", os.path.abspath(__file__), me, "--", *argv]


def _prctl(option: int, value: int) -> bool:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(option, value, 0, 0, 0)) == 0


def children_of(me: int, proc: str = "/proc") -> list[int]:
    """Every process under ``me`` (children, theirs, ...), from ``/proc/*/stat``."""
    parents: dict[int, list[int]] = {}
    try:
        names = os.listdir(proc)
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{proc}/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:  # gone meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and fields[1].isdigit():
            parents.setdefault(int(fields[1]), []).append(int(name))
    out: list[int] = []
    todo = [me]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in out:
                out.append(child)
                todo.append(child)
    return out


def kill_tree(me: int) -> int:
    """SIGKILL every process under ``me`` and reap them, until ``me`` has no child left (what
    a dying process leaves is re-parented to ``me``, a subreaper, and found next round); how
    many were killed."""
    killed: set[int] = set()
    while True:
        for pid in children_of(me):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                continue
            killed.add(pid)
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            return len(killed)
        time.sleep(0.005)  # children left, none ended yet: look again


def _exit_as(status: int) -> None:
    """Exit as a child with wait ``status`` did: its code, or killed by its signal."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
        except (OSError, ValueError):
            pass
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


def main(args: list[str]) -> int:
    """``PARENT -- AGENT...``: run the agent as described in the module doc."""
    if len(args) < 3 or args[1] != "--" or not args[0].isdigit():
        sys.stderr.write("usage: reaper.py PARENT -- PROGRAM [ARGS...]\n")
        return 2
    parent, argv = int(args[0]), args[2:]
    me = os.getpid()

    def stop(signum: int, frame: object) -> None:
        kill_tree(me)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # earnest was gone before the line above
        return 128 + signal.SIGTERM
    agent = os.fork()
    if agent == 0:
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            os.execvp(argv[0], argv)
        except OSError as exc:
            sys.stderr.write(f"cannot start {argv[0]!r}: {exc.strerror}\n")
            sys.stderr.flush()
        os._exit(127)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)  # the agent, or an orphan re-parented here
        except ChildProcessError:  # cannot happen while the agent runs
            return 0
        if pid == agent:
            break
    kill_tree(me)
    _exit_as(status)
    return 0  # not reached


__all__ = ["SUPPORTED", "children_of", "kill_tree", "main", "reaper_argv"]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
