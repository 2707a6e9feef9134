"""Confining an acted-out agent to its workspace copy with bubblewrap (Linux).

In act mode (``earnest run --act``) the agent under test runs its own tools. The CLIs' own
permission systems keep their *file* tools in the copy, but a shell tool (Claude Code's Bash,
Gemini CLI's ``run_shell_command``, any ``exec:cmd`` agent) can do whatever the user can.
So earnest starts every acting child under `bubblewrap <https://github.com/containers/bubblewrap>`_
(``bwrap``, the sandbox Flatpak and Claude Code's own sandbox use) with :func:`sandbox_argv`:

- **files**: the whole file system read-only; the copy, the sample's own ``TMPDIR`` and a
  fresh ``HOME`` of its own (a folder per sample) writable; the user's HOME hidden (an empty
  folder over it), with only what the agent needs to start bound back read-only (the
  toolchains on its ``PATH`` under HOME, its program, the paths its ``exec:cmd`` command
  names, the profile's ``allow_read``) and the CLI's own state folder (``~/.claude``,
  ``CODEX_HOME`` / ``~/.codex``, ``~/.gemini``, Pi's ``PI_CODING_AGENT_DIR`` / ``~/.pi/agent``,
  ``QWEN_HOME`` / ``~/.qwen``, opencode's XDG folders: its login and session records) bound
  writable
  into the fresh HOME;
- **sockets**: ``/run`` (and ``/var/run``), the user's ``XDG_RUNTIME_DIR``, the SSH
  agent's and Docker's sockets hidden (:func:`hidden_paths`); ``/tmp`` a private one, with
  only the host's entries that hold what the agent needs bound back read-only, never its
  socket folders (``.X11-unix``, ``ssh-*``, ``tmux-*``: :func:`tmp_entries`); abstract
  sockets belong to the host's network namespace;
- **network**: a network namespace of its own, with only the profile's endpoints let through
  (:mod:`earnest.live.netgate`);
- **environment**: the allow-list of :mod:`earnest.live.agentenv` (in every mode).

``confine`` (``[live] confine`` or ``earnest run --confine``):

- ``"auto"`` (the default): bwrap when it works here, otherwise unconfined with a warning that
  names the profiles whose shell tools can write outside the copy;
- ``"bwrap"``: required — a run that cannot confine its agents does not start (exit 2);
- ``"none"``: the explicit opt-out; the run says what the agents can reach.

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
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from earnest.live.agentenv import pi_agent_dir, tilde

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


def bwrap_argv(
    program: str,
    argv: Sequence[str],
    cwd: Path,
    writable: Sequence[Path | tuple[Path, Path]],
    *,
    hidden: Sequence[Path] = (),
    readable: Sequence[Path] = (),
    files: Sequence[tuple[Path, Path]] = (),
    masked: Sequence[Path] = (),
    tmp: Sequence[Path] | None = None,
    own_network: bool = False,
) -> list[str]:
    """``argv`` started under bwrap: everything read-only but ``writable``, run in ``cwd``.

    ``hidden`` folders get an empty folder over them (files and sockets: ``/dev/null``);
    ``readable`` paths (under hidden ones) are bound back read-only, ``masked`` ones hidden
    again inside them (a credentials file in a toolchain's folder); ``writable`` binds
    (a path, or ``(source, destination)``) come last; ``files`` are read-only binds of
    generated files (``/etc/hosts``); ``tmp`` (when given) makes ``/tmp`` a private empty
    folder with these entries of the host's bound back read-only (:func:`tmp_entries`);
    ``own_network`` gives the child a network namespace of its own. Only sources that exist
    are bound (bwrap refuses a missing one)."""
    out = [program, *_BASE]
    if own_network:
        out.append("--unshare-net")
    seen: set[str] = set()
    if tmp is not None:
        out += ["--tmpfs", "/tmp"]
        for entry in tmp:  # one may be gone by the time bwrap starts: -try
            out += ["--ro-bind-try", str(entry), str(entry)]
    out += _hide(hidden, seen)
    for path in readable:
        text = str(path)
        if text not in seen and path.exists():
            seen.add(text)
            out += ["--ro-bind", text, text]
    out += _hide([m for m in masked if any(r in m.parents for r in readable)], seen)
    for item in writable:
        source, dest = item if isinstance(item, tuple) else (item, item)
        if str(dest) not in seen and source.exists():
            seen.add(str(dest))
            out += ["--bind", str(source), str(dest)]
    for source, dest in files:
        out += ["--ro-bind", str(source), str(dest)]
    return [*out, "--chdir", str(cwd), "--", *argv]


def _hide(paths: Sequence[Path], seen: set[str]) -> list[str]:
    out: list[str] = []
    for path in paths:
        text = str(path)
        if text in seen or not os.path.lexists(text) or path.is_symlink():
            continue
        seen.add(text)
        out += ["--tmpfs", text] if path.is_dir() else ["--ro-bind", "/dev/null", text]
    return out


MASKED = (".cargo/credentials", ".cargo/credentials.toml", ".local/share/keyrings",
          ".local/share/gnome-keyring", ".local/share/kwalletd")  # fmt: skip
"""Credentials inside the HOME folders a toolchain lives in (``~/.cargo``, ``~/.local``), hidden
again when such a folder is bound back for the agent's ``PATH``."""

TMP_HIDDEN = (".X11-unix", ".ICE-unix", ".font-unix", ".XIM-unix", ".Test-unix", "ssh-*",
              "tmux-*", "codex-daemon-*", "systemd-private-*", "*.sock", "*.socket")  # fmt: skip
"""Entries of the host's ``/tmp`` a confined agent does not get back (:func:`tmp_entries`)."""


def tmp_entries(
    needed: Iterable[Path], root: Path = Path("/tmp"), keep: Path | None = None
) -> list[Path]:
    """The entries of the host's ``/tmp`` bound back, read-only, into a confined agent's own
    (private, empty) ``/tmp``: only those that hold a path the agent needs (``needed``: the
    suite's folder and the one earnest runs from, its program and the toolchains on its
    ``PATH``, the paths its command names, the profile's ``allow_read``) and ``keep``, its own
    sample folder; never :data:`TMP_HIDDEN` (socket folders) nor another sample's
    folder (``earnest-act-*``, ``earnest-exec-*``). The rest of the host's ``/tmp`` (other programs' files, other
    users' sessions) stays out of sight, and a busy ``/tmp`` costs a bind or two, not one per
    entry (bwrap took minutes to start with 1,800). What the agent writes in ``/tmp`` itself
    stays in its private ``/tmp`` (Codex makes its sandbox's folders there), and is gone with
    the sample.

    Example:
        >>> tmp_entries([Path("/tmp/proj/suite/agent.py"), Path("/usr/bin")], keep=None)
        [PosixPath('/tmp/proj')]
    """
    import fnmatch

    base = Path(os.path.realpath(root))
    wanted = [*needed, *([keep] if keep is not None else [])]
    out: list[Path] = []
    for path in wanted:
        real = Path(os.path.realpath(path))
        if base not in real.parents:
            continue
        top = base / real.relative_to(base).parts[0]
        if any(fnmatch.fnmatchcase(top.name, p) for p in TMP_HIDDEN):
            continue
        if top.name.startswith(SAMPLE_PREFIXES) and (
            keep is None or top != Path(os.path.realpath(keep))
        ):
            continue
        out.append(root / top.name)
    return sorted(dict.fromkeys(out))


SAMPLE_PREFIXES = ("earnest-act-", "earnest-exec-")
"""The names of the sample folders earnest makes (an acting one, a completing one): another
sample's folder is never bound into a confined agent's ``/tmp``."""

SOCKET_PLACES = ("/run", "/var/run", "/tmp/.X11-unix", "/tmp/.ICE-unix", "/tmp/.font-unix")
"""Folders of host sockets hidden from a confined agent (with :func:`hidden_paths`' others)."""


def _socket_path(value: str) -> Path | None:
    """The file of a socket named by ``unix:path=...``, ``unix://...`` or a bare path."""
    text = value.strip()
    for prefix in ("unix:path=", "unix://", "unix:"):
        if text.startswith(prefix):
            text = text[len(prefix) :].split(",", 1)[0]
            break
    return Path(text) if text.startswith("/") else None


def hidden_paths(env: Mapping[str, str], homes: Sequence[Path]) -> list[Path]:
    """What a confined agent must not see: the user's HOME(s), the folders of host sockets
    (:data:`SOCKET_PLACES`, ``XDG_RUNTIME_DIR``, ``/tmp/tmux-UID``) and the sockets the
    environment names (``SSH_AUTH_SOCK``, ``DOCKER_HOST``, ``DBUS_SESSION_BUS_ADDRESS``):
    a socket alone in a folder of its own (``/tmp/ssh-XXXX/agent.N``) hides the folder."""
    out = [*homes, *(Path(p) for p in SOCKET_PLACES), Path(f"/tmp/tmux-{os.getuid()}")]
    if env.get("XDG_RUNTIME_DIR", "").startswith("/"):
        out.append(Path(env["XDG_RUNTIME_DIR"]))
    for name in ("SSH_AUTH_SOCK", "DOCKER_HOST", "DBUS_SESSION_BUS_ADDRESS", "GPG_AGENT_INFO"):
        sock = _socket_path(env.get(name, ""))
        if sock is None:
            continue
        parent = sock.parent
        shared = parent in {Path("/"), Path("/tmp"), Path("/var/tmp"), *homes}
        out.append(sock if shared else parent)
    return [p for p in out if str(p) not in {"/", "/tmp", "/usr", "/etc"}]


def _under(path: Path, folders: Sequence[Path]) -> bool:
    return any(path == f or f in path.parents for f in folders)


def readable_paths(
    program: str, env: Mapping[str, str], hidden: Sequence[Path], extra: Sequence[Path]
) -> list[Path]:
    """What the agent needs to start that lies under a ``hidden`` folder, bound back
    read-only: each ``PATH`` folder — for a ``bin`` or ``shims`` folder the toolchain's whole
    folder (a virtual environment, nvm's node, ``~/.pyenv``, ``~/.cargo``, ``~/.local``;
    :data:`MASKED` stays hidden), never HOME itself — the program and the folder of its real
    file, the toolchain of the interpreter a script's ``#!`` line names, earnest's own Python (its gate bridge runs on it), and ``extra`` (the paths an
    ``exec:cmd`` command names, the profile's ``allow_read``)."""
    wanted: list[Path] = []
    for entry in env.get("PATH", "").split(os.pathsep):
        if not entry.startswith("/"):
            continue
        wanted.append(_toolchain(Path(entry) / "program", hidden))
    found = shutil.which(program, path=env.get("PATH")) if program else None
    if found:
        wanted += [Path(found), Path(os.path.realpath(found)).parent]
        # A script starts on the interpreter its #! line names (a virtual environment's
        # python, say): that toolchain is needed too, or the program cannot start.
        interpreter = shebang_interpreter(found)
        if interpreter is not None:
            wanted += [_toolchain(interpreter, hidden), Path(os.path.realpath(interpreter)).parent]
    wanted += [Path(os.path.realpath(sys.executable)), Path(sys.base_prefix)]
    wanted += [p.expanduser() for p in extra]
    out: list[Path] = []
    for path in wanted:
        try:
            if path.exists() and _under(path, hidden) and path not in hidden:
                out.append(path)
        except OSError:  # a name too long, a loop: nothing to bind
            continue
    return list(dict.fromkeys(out))


def shebang_interpreter(path: str | Path) -> Path | None:
    """The absolute interpreter path a script's ``#!`` line names, or None (not a script, or
    ``#!/usr/bin/env NAME``, whose NAME is found on ``PATH`` like any program).

    Example:
        >>> import tempfile
        >>> script = Path(tempfile.mkdtemp()) / "agent"
        >>> _ = script.write_text("#!/tmp/venv/bin/python -u\\nprint('hi')\\n")
        >>> shebang_interpreter(script)
        PosixPath('/tmp/venv/bin/python')
        >>> _ = script.write_text("#!/usr/bin/env python3\\n")
        >>> shebang_interpreter(script)
        PosixPath('/usr/bin/env')
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", errors="replace").split()
    return Path(words[0]) if words and words[0].startswith("/") else None


def _toolchain(executable: Path, hidden: Sequence[Path]) -> Path:
    """The folder a program's toolchain lives in: for ``.../bin/python`` the virtual
    environment (or install) around ``bin``, else the program's own folder — never a hidden
    folder itself (``~/bin/python``: ``~/bin``, not HOME)."""
    folder = executable.parent
    root = folder.parent
    return root if folder.name in {"bin", "shims"} and root not in hidden else folder


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
    if preset == "qwen":
        # QWEN_HOME moves its settings and login, QWEN_RUNTIME_DIR its chat logs.
        # (A relative one is Qwen's, taken from its folder: the copy, never a state path.)
        named = [Path(env[k]).expanduser() for k in ("QWEN_HOME", "QWEN_RUNTIME_DIR") if env.get(k)]
        own = named[:1] if env.get("QWEN_HOME") else [home / ".qwen"]
        if env.get("QWEN_RUNTIME_DIR"):
            own.append(named[-1])
        return [p for p in own if p.is_absolute()]
    if preset == "copilot":
        # COPILOT_HOME (else ~/.copilot): its config, login and session-state/<id>/events.jsonl;
        # ~/.cache/copilot: where it unpacks itself on its first start (~8 s, ~240 MB), kept
        # between samples. (A relative COPILOT_HOME is taken from its folder: never state.)
        folder = env.get("COPILOT_HOME")
        state = Path(folder).expanduser() if folder else home / ".copilot"
        return [p for p in (state, home / ".cache" / "copilot") if p.is_absolute()]
    if preset == "opencode":
        return [
            home / d / "opencode" for d in (".local/share", ".config", ".cache", ".local/state")
        ]
    if preset == "pi":
        # Its agent folder (models.json, settings, login, sessions/), and a session folder
        # of the user's choosing when PI_CODING_AGENT_SESSION_DIR names one.
        found = [pi_agent_dir(home, env)]
        sessions = env.get("PI_CODING_AGENT_SESSION_DIR")
        return found + ([tilde(sessions, home)] if sessions else [])
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


def unconfined_warning(
    confinement: Confinement, profiles: Mapping[str, str], *, act: bool = True
) -> str | None:
    """What an unconfined run says about its ``exec:`` agents (``name → preset``): why they
    are not confined and what they can reach; ``None`` when they are confined. ``act``: some
    of them act fixtures out (``--act``), else they only complete prompts.

    Example:
        >>> print(unconfined_warning(Confinement("none", why="turned off"), {"x": "cmd"},
        ...                          act=False)[:60])
        the exec: agents are unconfined (confine = "none"): the agen
    """
    if confinement.confined:
        return None
    names = ", ".join(sorted(profiles))
    reach = (
        "they can read every file you can (your HOME, ~/.ssh), write wherever you can "
        "through their shell tools, connect to every socket (the SSH agent, Docker) and "
        "every network address; only their environment is still the allow-list"
    )
    subject = "act mode is" if act else "the exec: agents are"
    if confinement.why.startswith("turned off"):
        return f'{subject} unconfined (confine = "none"): the agents of {names} run as you: {reach}'
    loose = sorted(name for name, preset in profiles.items() if preset not in SELF_CONFINED)
    if not loose:
        return None
    where = "to the workspace copies" if act else "to their own folders"
    return (
        f"{subject} NOT confined {where} ({confinement.why}): the shell "
        f"tools of {', '.join(loose)} can write anywhere you can, and {reach}. Install "
        "bubblewrap, or pass --confine none to accept this (--confine bwrap refuses to start "
        "without it)"
    )


__all__ = [
    "MASKED",
    "MODES",
    "SAMPLE_PREFIXES",
    "SELF_CONFINED",
    "SOCKET_PLACES",
    "STATE_FILES",
    "TMP_HIDDEN",
    "ConfineUnavailable",
    "Confinement",
    "bwrap_argv",
    "bwrap_problem",
    "hidden_paths",
    "readable_paths",
    "resolve",
    "state_paths",
    "tmp_entries",
    "unconfined_warning",
]
