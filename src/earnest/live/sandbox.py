"""How an ``exec:`` agent is started: its argv, environment and network, confined or not.

The same for an acting agent (``earnest run --act``, its folder holding the workspace copy)
and a completing one (its folder holding an empty working folder).

:func:`prepare` puts together what :mod:`earnest.live.confine` (files, sockets),
:mod:`earnest.live.agentenv` (environment) and :mod:`earnest.live.netgate` (network) decide
for one sample of one profile. The caller opens the gate (``async with
netgate.Gate(start.gate, start.ends)``) around the child's run.

Example:
    >>> import tempfile
    >>> from earnest.live.confine import Confinement
    >>> from earnest.live.profiles import parse_spec
    >>> folder = Path(tempfile.mkdtemp())
    >>> for name in ("workspace", "tmp"): (folder / name).mkdir()
    >>> start = prepare(parse_spec("x", "exec:cmd:agent"), ["agent"], Confinement("none"),
    ...                 folder, {"EARNEST_MODEL": "agent"},
    ...                 user_env={"PATH": "/usr/bin", "GITHUB_TOKEN": "ghp_x", "HOME": "/h"})
    >>> sorted(start.env), start.argv
    (['EARNEST_MODEL', 'HOME', 'PATH', 'TEMP', 'TMP', 'TMPDIR'], ['agent'])
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from earnest.live.agentenv import HOME_VARS, PI_AGENT_ENV, allowed_env, tilde
from earnest.live.confine import (
    MASKED,
    STATE_FILES,
    Confinement,
    bwrap_argv,
    hidden_paths,
    readable_paths,
    state_paths,
    tmp_entries,
)
from earnest.live.endpoint import Endpoint
from earnest.live.netgate import assign, bridge_argv, endpoints, hosts_file
from earnest.live.profiles import Profile

TMP = Path("/tmp")


@dataclass(frozen=True, slots=True)
class Start:
    """The child's argv and environment; ``ends`` are what the gate in ``gate`` (a folder)
    must let through (none when unconfined); ``home`` is the user's HOME (where the CLI's
    state is read back)."""

    argv: list[str]
    env: dict[str, str]
    home: Path
    gate: Path
    ends: tuple[Endpoint, ...] = field(default_factory=tuple)


def prepare(
    profile: Profile,
    argv: Sequence[str],
    confinement: Confinement,
    folder: Path,
    own: Mapping[str, str],
    *,
    roots: Sequence[Path] = (),
    user_env: Mapping[str, str] | None = None,
) -> Start:
    """The start of an ``exec:`` child in the sample ``folder`` (holding ``workspace``, the
    copy or an empty working folder, and ``tmp``): ``own`` are earnest's variables set on top of the allow-list; ``roots`` are the
    suite's folder and the one earnest was run from (an ``exec:cmd`` argument naming a path in
    one of them stays readable); ``user_env`` is the environment earnest runs in
    (``os.environ``). Unconfined, the child keeps the user's ``HOME`` and
    :data:`~earnest.live.agentenv.HOME_VARS`. :class:`ValueError` when a base URL cannot be
    confined."""
    user = dict(os.environ if user_env is None else user_env)
    home = Path(user.get("HOME") or Path.home())
    workspace, private_tmp = folder / "workspace", folder / "tmp"
    env = allowed_env(profile, user, home)
    env.update(own)
    env.update(TMPDIR=str(private_tmp), TMP=str(private_tmp), TEMP=str(private_tmp))
    env["HOME"] = str(home)
    gate = folder / "net"
    gate.mkdir(exist_ok=True)
    if not confinement.confined:
        # It runs in the user's HOME: where its CLI keeps its state there goes with it.
        env.update({k: user[k] for k in HOME_VARS if user.get(k)})
        return Start(list(argv), env, home, gate)
    fresh = folder / "home"
    fresh.mkdir(exist_ok=True)
    env["HOME"] = str(fresh)
    homes = list(dict.fromkeys([home, Path.home()]))
    hidden = hidden_paths(user, homes)
    writable: list[Path | tuple[Path, Path]] = [workspace, private_tmp, fresh]
    for name in PI_AGENT_ENV:  # Pi reads `~` in them as its HOME: the user's, made explicit
        if env.get(name):
            env[name] = str(tilde(env[name], home))
    named_dirs = {
        Path(env[k]).expanduser()
        for k in (
            "CLAUDE_CONFIG_DIR",
            "CODEX_HOME",
            "QWEN_HOME",
            "QWEN_RUNTIME_DIR",
            "COPILOT_HOME",
            *PI_AGENT_ENV,
        )
        if env.get(k)
    }
    for path in state_paths(profile.preset or "", home, env):
        # Where the CLI looks: its variable's path, else the same place in the fresh HOME.
        inside = home in path.parents and path not in named_dirs
        dest = fresh / path.relative_to(home) if inside else path
        if path.name in STATE_FILES:
            if path.is_file():  # a settings file: a copy (the CLI replaces it by renaming)
                shutil.copyfile(path, dest)
            continue
        path.mkdir(parents=True, exist_ok=True)  # as the CLI would: a bind needs a folder
        writable.append((path, dest))
    named_args = _named_paths(argv[1:] if profile.preset == "cmd" else (), roots, homes)
    extra = [*named_args, *(Path(p) for p in profile.allow_read), folder / "AGENT.md", gate]
    if env.get("OPENCODE_CONFIG"):  # opencode's config file, wherever it is: read-only
        extra.append(Path(env["OPENCODE_CONFIG"]))
    readable = readable_paths(argv[0] if argv else "", env, hidden, extra)
    ends = endpoints(profile, user, home)
    routed = assign(ends)
    hosts = folder / "hosts"
    hosts.write_text(hosts_file(routed), encoding="utf-8")
    routes = [(address, end.port, str(gate / str(n))) for n, (end, address) in enumerate(routed)]
    inner = bridge_argv(os.path.realpath(sys.executable), routes, argv)
    started = bwrap_argv(
        confinement.program,
        inner,
        workspace,
        writable,
        hidden=hidden,
        readable=readable,
        files=[(hosts, Path("/etc/hosts"))],
        masked=[h / m for h in homes for m in MASKED],
        # Of the host's /tmp, only the entries holding what the agent needs (not one bind per
        # entry: a busy /tmp made bwrap take minutes to start, and showed other programs' files).
        tmp=tmp_entries(
            readable_paths(argv[0] if argv else "", env, [TMP], [*extra, *roots]), keep=folder
        ),
        own_network=True,
    )
    return Start(started, env, home, gate, ends)


def _named_paths(args: Sequence[str], roots: Sequence[Path], homes: Sequence[Path]) -> list[Path]:
    """The absolute paths among ``args`` that lie in one of ``roots`` (never a HOME itself:
    a command run from HOME does not open HOME)."""
    folders = [r.resolve() for r in roots if r.resolve() not in homes]
    out = []
    for arg in args:
        if arg.startswith("/"):
            path = Path(os.path.realpath(arg))  # no `..` or link out of the folder
            if any(path == f or f in path.parents for f in folders):
                out.append(path)
    return out


__all__ = ["Start", "prepare"]
