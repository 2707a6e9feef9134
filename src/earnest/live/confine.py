"""Confining an acted-out agent to its workspace copy with bubblewrap (Linux).

In act mode (``earnest run --act``) the agent under test runs its own tools. The CLIs' own
permission systems keep their *file* tools in the copy, but a shell tool (Claude Code's Bash,
Gemini CLI's ``run_shell_command``, any ``exec:cmd`` agent) can write wherever the user can.
So earnest starts every acting child under `bubblewrap <https://github.com/containers/bubblewrap>`_
(``bwrap``, the sandbox Flatpak and Claude Code's own sandbox use): the whole file system is
mounted read-only, and only the copy, the sample's own ``TMPDIR`` and the CLI's state folders
under ``HOME`` (its session records) are mounted writable. The network is left as it is,
because the agent must reach its model's API.

``confine`` (``[live] confine`` or ``earnest run --confine``):

- ``"auto"`` (the default): bwrap when it works here, otherwise unconfined with a warning that
  names the profiles whose shell tools can write outside the copy;
- ``"bwrap"``: required — a run that cannot confine its agents does not start (exit 2);
- ``"none"``: the explicit opt-out.

Each acted-out sample records how it was confined (``did.confined``: ``"bwrap"`` or ``"none"``).

Example:
    >>> argv = bwrap_argv("/usr/bin/bwrap", ["agent", "--go"], Path("/tmp/s/workspace"),
    ...                   [Path("/tmp/s/workspace"), Path("/tmp/s/tmp")])
    >>> argv[:5], argv[-3:]
    (['/usr/bin/bwrap', '--ro-bind', '/', '/', '--dev'], ['--', 'agent', '--go'])
    >>> state_paths("codex", Path("/home/me"), {"CODEX_HOME": "/srv/codex"})
    [PosixPath('/srv/codex')]
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

MODES = ("auto", "bwrap", "none")

SELF_CONFINED = frozenset({"codex"})
"""Presets whose shell tool is confined to the copy by the CLI's own sandbox (Codex's
``workspace-write``), confined or not by earnest."""

# Mounted in this order: later mounts win, so the writable binds punch holes into the
# read-only root. A new PID namespace (with its own /proc) and --die-with-parent make the
# whole tree die with bwrap, which earnest kills as a group on timeout.
_BASE = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
         "--die-with-parent")  # fmt: skip


STATE_FILES = frozenset({".claude.json"})
"""State paths of :func:`state_paths` that are files (the others are folders)."""


class ConfineUnavailable(Exception):
    """``confine = "bwrap"`` asked for, and bwrap cannot confine a child here."""


@dataclass(frozen=True, slots=True)
class Confinement:
    """How acting children are started: ``mode`` ``"bwrap"`` (``program`` is its path) or
    ``"none"``, with ``why`` saying why not when it is ``"none"``."""

    mode: str
    program: str = ""
    why: str = ""

    @property
    def confined(self) -> bool:
        return self.mode == "bwrap"


def bwrap_argv(program: str, argv: Sequence[str], cwd: Path, writable: Sequence[Path]) -> list[str]:
    """``argv`` started under bwrap: everything read-only but ``writable``, run in ``cwd``.

    Only folders and files that exist are bound (bwrap refuses a missing source)."""
    out = [program, *_BASE]
    seen: set[str] = set()
    for path in writable:
        text = str(path)
        if text not in seen and path.exists():
            seen.add(text)
            out += ["--bind", text, text]
    return [*out, "--chdir", str(cwd), "--", *argv]


def state_paths(preset: str, home: Path, env: Mapping[str, str]) -> list[Path]:
    """The CLI's own state under ``HOME`` that it writes on every run (its session records,
    settings cache): left writable so the CLI works, and read back by earnest
    (:mod:`earnest.live.act_transcripts`)."""
    if preset == "claude":
        config = env.get("CLAUDE_CONFIG_DIR")
        return [Path(config)] if config else [home / ".claude", home / ".claude.json"]
    if preset == "codex":
        return [Path(env.get("CODEX_HOME") or home / ".codex")]
    if preset == "gemini":
        return [home / ".gemini"]
    return []


@functools.cache
def bwrap_problem() -> tuple[str, str | None]:
    """``(program, None)`` when bwrap confines a child here, else ``("", why)``: bwrap is
    not on PATH, or it cannot start (no user namespaces, a container without the rights)."""
    if not sys.platform.startswith("linux"):
        return "", f"bwrap confines children on Linux only (this is {sys.platform})"
    program = shutil.which("bwrap")
    if program is None:
        return "", "bwrap is not on PATH (install bubblewrap)"
    probe = [program, *_BASE, "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", f"{program} cannot start: {exc}"
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        return "", f"{program} cannot start here: {detail[-1] if detail else done.returncode}"
    return program, None


def resolve(mode: str) -> Confinement:
    """The confinement ``mode`` gives on this machine.

    Raises :class:`ConfineUnavailable` for ``"bwrap"`` when bwrap does not work here."""
    if mode == "none":
        return Confinement("none", why='turned off (confine = "none")')
    program, why = bwrap_problem()
    if why is None:
        return Confinement("bwrap", program)
    if mode == "bwrap":
        raise ConfineUnavailable(f'confine = "bwrap" is required but {why}')
    return Confinement("none", why=why)


def unconfined_warning(confinement: Confinement, profiles: Mapping[str, str]) -> str | None:
    """The warning of an unconfined act run, naming the profiles (``name → preset``) whose
    shell tools can write outside the copy; ``None`` when there is nothing to warn about."""
    if confinement.confined or confinement.why.startswith("turned off"):
        return None
    loose = sorted(name for name, preset in profiles.items() if preset not in SELF_CONFINED)
    if not loose:
        return None
    return (
        f"act mode is NOT confined to the workspace copies ({confinement.why}): the shell "
        f"tools of {', '.join(loose)} can write anywhere you can. Install bubblewrap, or pass "
        "--confine none to accept this (--confine bwrap refuses to start without it)"
    )


__all__ = [
    "MODES",
    "SELF_CONFINED",
    "STATE_FILES",
    "ConfineUnavailable",
    "Confinement",
    "bwrap_argv",
    "bwrap_problem",
    "resolve",
    "state_paths",
    "unconfined_warning",
]
