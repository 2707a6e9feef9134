"""The network of a confined acting agent: its model endpoint, and nothing else.

A confined agent runs in a network namespace of its own (bubblewrap ``--unshare-net``): it
has a loopback device and no route out, so no TCP port of the machine or the internet, and
no abstract Unix socket of the host, is in reach. What the profile needs is let through by a
gate of two halves:

- **outside**, earnest listens on one Unix socket per allowed endpoint, in the sample's own
  folder (:class:`Gate`); each connection on socket *n* is forwarded to endpoint *n* and only
  there — the agent never names a destination, so it cannot choose another;
- **inside**, a small bridge (:data:`BRIDGE`, Python's standard library only) started by
  bwrap in front of the agent listens on the endpoint's own address in the namespace —
  ``127.0.0.1:PORT`` for a local server, or, for a host name, a loopback address of its own
  that the sandbox's ``/etc/hosts`` (:func:`hosts_file`) gives the name — and pipes each
  connection to its Unix socket. TLS goes through untouched: the agent talks to the real host
  under its real name.

The endpoints (:func:`endpoints`): the model endpoint of the preset — ``ANTHROPIC_BASE_URL``
(else ``api.anthropic.com:443``) for ``exec:claude``; the base URL of the model provider
Codex's ``config.toml`` selects, else ``OPENAI_BASE_URL``, else ``api.openai.com:443``,
``chatgpt.com:443`` and ``auth.openai.com:443`` for ``exec:codex``; ``GOOGLE_GEMINI_BASE_URL``
(else ``generativelanguage.googleapis.com:443``, ``cloudcode-pa.googleapis.com:443`` and
``oauth2.googleapis.com:443``) for ``exec:gemini``; ``OPENAI_BASE_URL`` (else ``api.openai.com:443``) for ``exec:qwen``; ``COPILOT_PROVIDER_BASE_URL`` (else GitHub's
hosts: :data:`DEFAULTS`) for ``exec:copilot``; the
profile's ``base_url`` for
``exec:cmd``; the ``options.baseURL`` its ``opencode.json`` gives the provider ``MODEL``
names for ``exec:opencode`` (:func:`earnest.live.agentenv.opencode_base_url`); for ``exec:pi`` the ``baseUrl`` of the provider its ``MODEL`` names in Pi's
``models.json`` (``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``), else that built-in
provider's host (:data:`PI_HOSTS`) — plus the profile's ``allow_network``.

Endpoints are read by :mod:`earnest.live.endpoint` (re-exported here).

Example:
    >>> print(hosts_file(assign([Endpoint("127.0.0.1", 8080), Endpoint("api.x.com", 443)])))
    127.0.0.1 localhost
    127.77.0.1 api.x.com
    <BLANKLINE>
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from earnest.live.endpoint import Endpoint, parse_endpoint, url_endpoint

if TYPE_CHECKING:
    from earnest.live.profiles import Profile

DEFAULTS: dict[str, tuple[str, ...]] = {
    "claude": ("api.anthropic.com:443",),
    "codex": ("api.openai.com:443", "chatgpt.com:443", "auth.openai.com:443"),
    "gemini": ("generativelanguage.googleapis.com:443", "cloudcode-pa.googleapis.com:443",
               "oauth2.googleapis.com:443"),
    # Qwen Code's OpenAI-compatible auth, without OPENAI_BASE_URL (its Qwen OAuth and
    # DashScope endpoints go in allow_network).
    "qwen": ("api.openai.com:443",),
    # GitHub Copilot CLI with GitHub's models (no COPILOT_PROVIDER_BASE_URL): sign-in, the user
    # API and the Copilot API of each plan (GitHub's Copilot allowlist reference). A GitHub
    # Enterprise host (GH_HOST, COPILOT_GH_HOST) goes in allow_network.
    "copilot": ("github.com:443", "api.github.com:443", "api.githubcopilot.com:443",
                "api.individual.githubcopilot.com:443", "api.business.githubcopilot.com:443",
                "api.enterprise.githubcopilot.com:443", "copilot-proxy.githubusercontent.com:443"),
    "cmd": (),
}  # fmt: skip
"""A preset's endpoints when no base URL names its model server."""

PI_HOSTS: dict[str, str] = {
    "anthropic": "api.anthropic.com:443", "openai": "api.openai.com:443",
    "google": "generativelanguage.googleapis.com:443", "openrouter": "openrouter.ai:443",
    "groq": "api.groq.com:443", "cerebras": "api.cerebras.ai:443", "xai": "api.x.ai:443",
    "mistral": "api.mistral.ai:443", "deepseek": "api.deepseek.com:443", "zai": "api.z.ai:443",
}  # fmt: skip
"""``exec:pi``: the endpoint of a built-in provider of Pi's (the ``baseUrl`` its
``@mariozechner/pi-ai`` 0.73 model list gives), by the provider ``MODEL`` names."""

BASE_URL_ENV = {"claude": "ANTHROPIC_BASE_URL", "codex": "OPENAI_BASE_URL",
                "gemini": "GOOGLE_GEMINI_BASE_URL", "qwen": "OPENAI_BASE_URL",
                "copilot": "COPILOT_PROVIDER_BASE_URL"}  # fmt: skip

_NAMED_NET = "127.77.0."  # loopback addresses given to host names inside the sandbox


def endpoints(profile: Profile, env: Mapping[str, str], home: Path) -> tuple[Endpoint, ...]:
    """What ``profile``'s confined agent may connect to (see the module doc);
    :class:`ValueError` names a base URL or entry that cannot be confined."""
    from earnest.live.agentenv import codex_config, opencode_base_url, pi_provider

    preset = profile.preset or "cmd"
    urls: list[str] = []
    defaults = DEFAULTS.get(preset, ())
    if preset == "codex":
        configured = codex_config(env, home).get("base_url")
        if isinstance(configured, str) and configured:
            urls.append(configured)
    if preset == "pi":
        configured = pi_provider(profile.model, env, home).get("baseUrl")
        if isinstance(configured, str) and configured:
            urls.append(configured)
        host = PI_HOSTS.get(profile.model.split("/", 1)[0]) if "/" in profile.model else None
        defaults = (host,) if host else ()
    if preset == "opencode":
        configured = opencode_base_url(profile.model, env, home)
        if configured:
            urls.append(configured)
    if not urls and env.get(BASE_URL_ENV.get(preset, "")):
        urls.append(env[BASE_URL_ENV[preset]])
    if preset == "cmd" and profile.base_url:
        urls.append(profile.base_url)
    found = [url_endpoint(u) for u in urls]
    if not urls:
        found += [parse_endpoint(e) for e in defaults]
    found += [parse_endpoint(e) for e in profile.allow_network]
    return tuple(dict.fromkeys(found))


def assign(ends: Sequence[Endpoint]) -> list[tuple[Endpoint, str]]:
    """Each endpoint with the address the bridge listens on inside the sandbox: its own for
    a loopback address, a fresh ``127.77.0.N`` (named in :func:`hosts_file`) for a host."""
    names: dict[str, str] = {}
    out = []
    for end in ends:
        if end.loopback:
            out.append((end, "127.0.0.1" if end.host == "localhost" else end.host))
        else:
            address = names.setdefault(end.host, f"{_NAMED_NET}{len(names) + 1}")
            out.append((end, address))
    return out


def hosts_file(assigned: Sequence[tuple[Endpoint, str]]) -> str:
    """The sandbox's ``/etc/hosts``: localhost, and each allowed host name's address."""
    lines = ["127.0.0.1 localhost"]  # the bridge listens on IPv4 loopback only
    named = {end.host: address for end, address in assigned if not end.loopback}
    lines += [f"{address} {host}" for host, address in named.items()]
    return "\n".join(lines) + "\n"


BRIDGE = r"""
import json, os, socket, subprocess, sys, threading
routes = json.loads(sys.argv[1])
def pipe(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass
def serve(listener, path):
    while True:
        conn, _ = listener.accept()
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            up.connect(path)
        except OSError:
            conn.close()
            continue
        threading.Thread(target=pipe, args=(conn, up), daemon=True).start()
        threading.Thread(target=pipe, args=(up, conn), daemon=True).start()
for address, port, path in routes:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((address, port))
    listener.listen(64)
    threading.Thread(target=serve, args=(listener, path), daemon=True).start()
code = subprocess.Popen(sys.argv[2:]).wait()
sys.stdout.flush()
os._exit(code if code >= 0 else 128 - code)
"""
"""Run inside the sandbox as ``python -I -S -c BRIDGE ROUTES AGENT...``: listens on each
route's address, then runs the agent and exits with its status (the namespace dies with it)."""


def bridge_argv(
    python: str, routes: Sequence[tuple[str, int, str]], argv: Sequence[str]
) -> list[str]:
    """The bridge in front of ``argv``; ``routes`` are ``(address, port, unix socket)``."""
    return [python, "-I", "-S", "-c", BRIDGE, json.dumps([list(r) for r in routes]), *argv]


class Gate:
    """The outside half: one Unix socket per endpoint in ``folder``, each forwarded to its
    endpoint only. ``async with Gate(folder, ends) as gate:`` — ``gate.sockets`` are the
    socket paths, in the order of ``ends``."""

    def __init__(self, folder: Path, ends: Sequence[Endpoint]) -> None:
        self.folder = folder
        self.ends = tuple(ends)
        self.sockets: list[Path] = []
        self._servers: list[asyncio.base_events.Server] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Gate:
        self.folder.mkdir(parents=True, exist_ok=True)
        for n, end in enumerate(self.ends):
            path = self.folder / str(n)
            if len(str(path).encode()) > 100:
                raise OSError(f"the sample's folder is too deep for a Unix socket: {path}")

            async def handle(
                reader: asyncio.StreamReader, writer: asyncio.StreamWriter, end: Endpoint = end
            ) -> None:
                task = asyncio.current_task()
                if task is not None:
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                await _forward(reader, writer, end)

            self._servers.append(await asyncio.start_unix_server(handle, path=str(path)))
            self.sockets.append(path)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await server.wait_closed()


async def _forward(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, end: Endpoint
) -> None:
    try:
        up_reader, up_writer = await asyncio.wait_for(
            asyncio.open_connection(end.host, end.port), 30
        )
    except (OSError, TimeoutError):
        writer.close()
        return
    try:
        await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
    finally:
        for w in (writer, up_writer):
            w.close()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (OSError, RuntimeError):
        return


__all__ = [
    "BRIDGE",
    "DEFAULTS",
    "PI_HOSTS",
    "Endpoint",
    "Gate",
    "assign",
    "bridge_argv",
    "endpoints",
    "hosts_file",
    "parse_endpoint",
    "url_endpoint",
]
