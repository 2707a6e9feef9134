"""``exec:`` — a headless agent CLI as the agent under test, one fresh process per sample.

Presets (the model flag is always passed, so a model swap measures the model under test):

- ``exec:claude:MODEL`` → ``claude -p --model MODEL --system-prompt DOC --output-format json
  --settings '{"disableAllHooks": true}'``, fixture prompt on stdin;
- ``exec:codex:MODEL`` → ``codex exec --model MODEL --skip-git-repo-check --sandbox read-only -``,
  agent doc and fixture prompt together on stdin (codex has no system-prompt flag);
- ``exec:gemini:MODEL`` → ``gemini --model MODEL --output-format json --prompt PROMPT`` with the
  agent doc as the system prompt through ``GEMINI_SYSTEM_MD``, and
  ``GEMINI_CLI_TRUST_WORKSPACE=true``: Gemini CLI 0.6x refuses to run in an untrusted folder
  (exit 55), and every child runs in a fresh temporary one (the environment variable, not
  ``--skip-trust``, because older versions reject a flag they do not know);
- ``exec:qwen:MODEL`` → ``qwen --model MODEL --system-prompt DOC --approval-mode default
  --output-format json``, fixture prompt on stdin (Qwen Code, ``@qwen-code/qwen-code``; its
  provider and key as its settings select them, ``security.auth.selectedType: "openai"`` with
  ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``). ``default`` approval: its shell and file-writing
  tools need an approval nobody gives headless, so a completion changes nothing; ``json``
  prints every event as one JSON array, its ``result`` event holding the reply;
- ``exec:copilot:MODEL`` → ``copilot --model MODEL --output-format json --no-custom-instructions
  --no-auto-update --no-ask-user --disable-builtin-mcps --available-tools=view,grep,glob``, agent
  doc and fixture prompt together on stdin (GitHub Copilot CLI, ``@github/copilot``; it has no
  system-prompt flag, and its custom instructions are an ``AGENTS.md`` in the working folder,
  which in act mode is the fixture's copy). Only its read-only tools are offered (no shell, no
  file writes: a completion changes nothing); none of the user's instructions, GitHub MCP
  server or downloaded updates. Its provider as its environment gives it
  (``COPILOT_PROVIDER_BASE_URL`` and ``COPILOT_PROVIDER_TYPE`` for your own model, else
  GitHub's with a token). The reply is the last ``assistant.message`` of its JSONL events;
- ``exec:pi:MODEL`` → ``pi -p --offline --model MODEL --system-prompt DOC --tools
  read,grep,find,ls --no-session --no-extensions --no-skills --no-prompt-templates --no-context-files PROMPT``
  (Pi, ``@mariozechner/pi-coding-agent``; ``MODEL`` as Pi names it, ``provider/id`` for a
  custom provider of ``~/.pi/agent/models.json``): the final text on stdout, nothing of the
  caller's extensions, skills or ``AGENTS.md`` loaded. To act a fixture out its writing
  tools are offered too and its session is kept (:func:`build_act_argv`);
- ``exec:opencode:MODEL`` → ``opencode run --model MODEL --format json MESSAGE``, the agent doc
  and the fixture prompt together as the message (opencode has no system-prompt flag), with
  ``PWD`` set to the child's folder (opencode takes its project from ``$PWD``, not from the
  working folder); ``MODEL`` is opencode's ``provider/model``;
- ``exec:cmd:COMMAND`` (or a profile with ``command = [...]``) → any command; ``{model}`` and
  ``{system_file}`` in its arguments are replaced; stdin carries the fixture prompt (``stdin =
  "user"``) or agent doc + prompt (``"combined"``, the default unless ``{system_file}`` is used).

Every child runs from an argv list (never a shell) in a fresh empty temporary directory (so no
project settings or hooks are picked up from the caller's folder), in its own process group
(killed as a whole when the child exits, on timeout or cancellation: nothing it started in
the background outlives its sample), with an allow-list environment (what any program needs,
the preset's own key and settings, what the user granted: :mod:`earnest.live.agentenv`; never
the user's whole environment, since a suite file may name the command) and
``EARNEST_HOOK_DISABLE=1`` in it: ``earnest hook`` allows the stop at once when it sees that variable, so a child run
never fires the user's own earnest stop hook. The reply is unwrapped from the CLI's JSON envelope
(``earnest.pressure.envelopes``) before it is scored; stdout is kept verbatim as the raw reply.
A failed child's error text is stored without ANSI colour codes (:func:`plain_text`).

Example:
    >>> from earnest.live.profiles import parse_spec
    >>> build_argv(parse_spec("c", "exec:claude:sonnet"), "DOC", "/tmp/x/AGENT.md")[:4]
    ['claude', '-p', '--model', 'sonnet']
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from earnest.live.confine import Confinement
from earnest.live.profiles import Profile
from earnest.live.providers.base import (
    ProviderError,
    ProviderReply,
    ProviderUnavailable,
    SampleKey,
    seconds_text,
)
from earnest.pressure.evidence import Behaviour
from earnest.safejson import loads as safe_loads

if TYPE_CHECKING:
    from earnest.live.sandbox import Start

HOOK_DISABLE_ENV = "EARNEST_HOOK_DISABLE"
"""Set to ``1`` in every child's environment; ``earnest hook`` allows the stop when it is set."""

CLAUDE_SETTINGS = json.dumps({"disableAllHooks": True})
GEMINI_TRUST_ENV = "GEMINI_CLI_TRUST_WORKSPACE"
"""Set to ``true`` for ``exec:gemini`` children: their temporary folder is trusted."""
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def plain_text(text: str) -> str:
    """``text`` without terminal escape sequences (colours, cursor moves, hyperlinks).

    Example:
        >>> plain_text("\\x1b[31mError:\\x1b[0m folder not trusted")
        'Error: folder not trusted'
    """
    return _ANSI.sub("", text)


SYSTEM_FILE_NAME = "AGENT.md"
_TAIL = 600


COPILOT_SECRETS = ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "COPILOT_PROVIDER_API_KEY",
                   "COPILOT_PROVIDER_BEARER_TOKEN")  # fmt: skip
"""What an acting Copilot's shell (and its output) must not show: the credentials it may be
given (``--secret-env-vars``)."""

ACT_FLAGS: dict[str, list[str]] = {
    # Claude Code: a stream-json event log (its tool calls, read by the claude-stream-json
    # reader) and edits accepted without a prompt. Only Bash is pre-allowed: its permission
    # system confines Edit / Write to the working folder, the workspace copy, as long as they
    # are not on --allowedTools too (which allows them anywhere). Bash itself is confined only
    # by Claude Code's own sandbox, when the user has it on (docs/live-runs.md).
    "claude": ["--output-format", "stream-json", "--verbose", "--permission-mode", "acceptEdits",
               "--allowedTools", "Bash"],
    # Codex: JSONL events on stdout; its own sandbox lets it write in the copy only. By
    # default ``workspace-write`` also opens all of /tmp (where every sample's copy lives, and
    # whatever else is there): only the copy and the sample's private TMPDIR stay writable.
    "codex": ["--json", "--sandbox", "workspace-write",
              "-c", "sandbox_workspace_write.exclude_slash_tmp=true"],
    # Gemini CLI: stream-json events (its session file is read for the commands: see
    # earnest.live.act_transcripts); edits and shell approved automatically. Its file tools
    # refuse paths outside the workspace; the shell is confined only by its own sandbox, when
    # configured (GEMINI_SANDBOX).
    "gemini": ["--output-format", "stream-json", "--approval-mode", "yolo"],
    # Qwen Code: the same (a Gemini CLI fork); its chat log under QWEN_HOME (~/.qwen) holds
    # each shell call's exit code, which the stream-json events leave out.
    "qwen": ["--output-format", "stream-json", "--approval-mode", "yolo"],
    # Copilot: every tool approved (--allow-all-tools); not given --allow-all-paths, it refuses a
    # path outside its folder and its TMPDIR in its file tools and its shell commands (1.0.102);
    # a command naming no path is kept in the copy by earnest's confinement alone. Its session log (events.jsonl under COPILOT_HOME, ~/.copilot) is
    # read for the calls. Its shell's environment loses the tokens and keys it was given
    # (1.0.102 strips COPILOT_PROVIDER_API_KEY by itself, not GH_TOKEN / GITHUB_TOKEN).
    "copilot": ["--allow-all-tools", "--secret-env-vars=" + ",".join(COPILOT_SECRETS)],
    # opencode: `run` already allows edits and shell in its project folder (its default
    # permissions); its session database under the child's HOME is read for the calls.
    "opencode": [],
    # Pi: all its tools (it asks no permission: only earnest's confinement keeps its shell
    # and its file tools in the copy) and its session kept, read back with the pi-session
    # reader (earnest.live.act_transcripts); still none of the user's extensions, skills,
    # prompt templates or AGENTS.md.
    "pi": ["--tools", "read,bash,edit,write,grep,find,ls"],
}  # fmt: skip
"""What each preset adds (or replaces) to act a fixture out in the workspace copy."""


def build_act_argv(profile: Profile, system: str, system_file: str) -> list[str]:
    """:func:`build_argv` with the preset's tools enabled inside the copy (:data:`ACT_FLAGS`)."""
    argv = build_argv(profile, system, system_file)
    preset = profile.preset
    if preset == "claude":
        at = argv.index("--output-format")
        del argv[at : at + 2]
        return argv + ACT_FLAGS["claude"]
    if preset == "codex":
        at = argv.index("--sandbox")
        del argv[at : at + 2]
        return argv[:-1] + ACT_FLAGS["codex"] + argv[-1:]
    if preset == "gemini":
        at = argv.index("--output-format")
        del argv[at : at + 2]
        return argv[:-1] + ACT_FLAGS["gemini"] + argv[-1:]
    if preset == "pi":
        at = argv.index("--tools")
        del argv[at : at + 2]
        argv.remove("--no-session")
        return argv + ACT_FLAGS["pi"]
    if preset == "qwen":
        at = argv.index("--approval-mode")
        return argv[:at] + ACT_FLAGS["qwen"]
    if preset == "copilot":
        return [a for a in argv if not a.startswith("--available-tools=")] + ACT_FLAGS["copilot"]
    return argv


COPILOT_ISOLATION = (
    "--no-custom-instructions",
    "--no-auto-update",
    "--no-ask-user",
    "--disable-builtin-mcps",
)
"""What ``exec:copilot`` turns off: the user's ``AGENTS.md`` and Copilot instructions, a newer
Copilot it may have downloaded (the installed one runs), its question tool (nobody answers
headless) and its built-in GitHub MCP servers (they act on GitHub with the user's token)."""

COPILOT_READ_TOOLS = "--available-tools=view,grep,glob"
"""Complete mode: the only tools Copilot offers the model (its shell, file writes, subagents,
web and MCP tools are not offered at all)."""

PI_ISOLATION = (
    "--tools",
    "read,grep,find,ls",
    "--no-session",
    "--no-extensions",
    "--no-skills",
    "--no-prompt-templates",
    "--no-context-files",
)
"""What ``exec:pi`` turns off: the reply is the model's answer to the agent doc and the
fixture, not shaped by the caller's Pi setup (and no session file is left behind). Pi asks no
permission before a tool runs, so only its read-only tools are offered (``bash``, ``edit``,
``write`` are not): a completion must not change anything."""


def build_argv(profile: Profile, system: str, system_file: str) -> list[str]:
    """The child's argv for ``profile``; ``system_file`` holds the agent doc."""
    preset = profile.preset
    if preset == "claude":
        return [
            "claude",
            "-p",
            "--model",
            profile.model,
            "--system-prompt",
            system,
            "--output-format",
            "json",
            "--settings",
            CLAUDE_SETTINGS,
        ]
    if preset == "codex":
        return [
            "codex",
            "exec",
            "--model",
            profile.model,
            "--skip-git-repo-check",
            "--sandbox",
            "read-only",
            "-",
        ]
    if preset == "gemini":
        # The prompt itself is appended by the caller (it goes in --prompt).
        return ["gemini", "--model", profile.model, "--output-format", "json", "--prompt"]
    if preset == "qwen":
        # The prompt goes on stdin (Qwen reads it there when no prompt is on the command line).
        return [
            "qwen",
            "--model",
            profile.model,
            "--system-prompt",
            system,
            "--approval-mode",
            "default",
            "--output-format",
            "json",
        ]
    if preset == "copilot":
        # Agent doc and prompt on stdin (Copilot reads its prompt there without -p).
        return [
            "copilot",
            "--model",
            profile.model,
            "--output-format",
            "json",
            *COPILOT_ISOLATION,
            COPILOT_READ_TOOLS,
        ]
    if preset == "pi":
        # The prompt itself is appended by the caller, as for Gemini.
        return [
            "pi",
            "-p",
            "--offline",
            "--model",
            profile.model,
            "--system-prompt",
            system,
            *PI_ISOLATION,
        ]
    if preset == "opencode":
        # The message (agent doc and prompt) is appended by the caller.
        return ["opencode", "run", "--model", profile.model, "--format", "json"]
    if preset == "cmd":
        return [
            a.replace("{model}", profile.model).replace("{system_file}", system_file)
            for a in profile.command
        ]
    raise ProviderUnavailable(f"profile {profile.name}: unknown exec preset {preset!r}")


def resolve_program(program: str, base: Path) -> str:
    """The program to start: a relative path (``./agent.sh``, ``bin/agent``) is taken from
    ``base``, the folder earnest was run from, because the child runs in a temporary folder;
    a bare name (``claude``) is looked up on PATH as usual.

    Example:
        >>> resolve_program("./agent.sh", Path("/home/me/project"))
        '/home/me/project/agent.sh'
        >>> resolve_program("claude", Path("/home/me/project"))
        'claude'
    """
    if os.sep not in program and (os.altsep is None or os.altsep not in program):
        return program
    path = Path(program).expanduser()
    return str(path if path.is_absolute() else (base / path).absolute())


def stdin_mode(profile: Profile) -> str:
    if profile.preset in ("codex", "copilot", "opencode"):
        return "combined"
    if profile.preset in ("claude", "gemini", "qwen", "pi"):
        return "user"
    if profile.stdin is not None:
        return profile.stdin
    uses_file = any("{system_file}" in a for a in profile.command)
    return "user" if uses_file else "combined"


def combine(system: str, user: str) -> str:
    """Agent doc and fixture prompt as one text, for CLIs with no system-prompt channel."""
    return f"{system.rstrip()}\n\n---\n\n{user}"


class ExecProvider:
    """Runs one child process per sample and scores its unwrapped stdout."""

    def __init__(self, profile: Profile, *, base: Path | None = None) -> None:
        self.name = profile.spec
        self.model = profile.model
        if profile.preset == "cmd" and base is not None:
            # ``{suite}`` in a command: the suite folder (children run in a temporary one).
            root = str(base.resolve())
            profile = replace(
                profile, command=tuple(a.replace("{suite}", root) for a in profile.command)
            )
        self._profile = profile
        self.can_act = True
        """Whether :meth:`act` can run this preset in a workspace (every ``exec:`` preset)."""
        self._roots = tuple(p for p in (base, Path.cwd()) if p is not None)
        self.confinement: Confinement | None = None
        """How :meth:`act` starts the child (:mod:`earnest.live.confine`); set by the run
        plan, resolved as ``"auto"`` when nobody set it."""
        probe = build_argv(profile, "", "")
        if not probe:
            raise ProviderUnavailable(f"profile {profile.name}: empty command")
        self._program = resolve_program(probe[0], Path.cwd())
        if self._program != probe[0]:
            if not os.access(self._program, os.X_OK) or Path(self._program).is_dir():
                why = "is not executable" if Path(self._program).is_file() else "does not exist"
                raise ProviderUnavailable(
                    f"profile {profile.name}: {probe[0]!r} {why} (tried {self._program}, "
                    f"relative to the folder earnest was run from; needed by {profile.spec})"
                )
        elif shutil.which(probe[0]) is None:
            raise ProviderUnavailable(
                f"profile {profile.name}: {probe[0]!r} is not on PATH (needed by {profile.spec})"
            )

    async def complete(
        self,
        system: str,
        user: str,
        *,
        params: Mapping[str, Any],
        timeout: float,
        key: SampleKey | None = None,
    ) -> ProviderReply:
        from earnest.live.netgate import Gate

        with tempfile.TemporaryDirectory(prefix="earnest-exec-") as workdir:
            # An empty working folder (no project settings or hooks picked up), the agent doc
            # beside it, and a temporary folder of its own; removed with the sample.
            folder = Path(workdir)
            work = folder / "workspace"
            work.mkdir()
            (folder / "tmp").mkdir()
            system_file = folder / SYSTEM_FILE_NAME
            system_file.write_text(system, encoding="utf-8")
            argv = build_argv(self._profile, system, str(system_file))
            argv[0] = self._program
            stdin_text = self._stdin(argv, system, user)
            own = self._own_env(system_file)
            if self._profile.preset == "opencode":
                own["PWD"] = str(work)  # opencode's project is $PWD, not its working folder
            # Confined as an acting agent is, with its working folder as the copy.
            start, confined = self._start(argv, folder, own)
            started = time.perf_counter()
            async with Gate(start.gate, start.ends):
                stdout, stderr, code = await run_child(
                    start.argv,
                    stdin_text,
                    cwd=str(work),
                    env=start.env,
                    timeout=timeout,
                    label=self._label(argv) if confined else None,
                    reap=not confined,
                )
            latency = time.perf_counter() - started
        out = stdout.decode("utf-8", errors="replace")
        if code != 0:
            raise _exited(argv[0], code, out, stderr)
        return reply_from_stdout(out, latency)

    async def act(
        self,
        system: str,
        user: str,
        *,
        template: Path,
        timeout: float,
        key: SampleKey | None = None,
    ) -> ProviderReply:
        """Act a fixture out: the child runs in a fresh copy of ``template``; the reply carries
        what it did (:func:`earnest.live.act.behaviour`: its trajectory's commands and the
        copy's diff against the template)."""
        from earnest.live.act import behaviour
        from earnest.live.act_git import git_start
        from earnest.live.act_steps import Reach, watched_roots
        from earnest.live.act_transcripts import transcript_file
        from earnest.live.confine import state_paths
        from earnest.live.netgate import Gate
        from earnest.pressure.workspaces import copy_workspace, snapshot

        with tempfile.TemporaryDirectory(prefix="earnest-act-") as workdir:
            # The agent doc and the captured output live beside the copy, never inside it.
            folder = Path(workdir)
            workspace = copy_workspace(template, folder / "workspace")
            before = snapshot(workspace)
            git = git_start(workspace)
            system_file = folder / SYSTEM_FILE_NAME
            system_file.write_text(system, encoding="utf-8")
            argv = build_act_argv(self._profile, system, str(system_file))
            # Resolved from the folder earnest was run from: the child runs in the copy.
            argv[0] = self._program
            stdin_text = self._stdin(argv, system, user)
            own = self._own_env(system_file)
            own["EARNEST_WORKSPACE"] = str(workspace)
            if self._profile.preset == "opencode":
                own["PWD"] = str(workspace)  # opencode's project is $PWD
                # A session database of the sample's own: only this run's calls are read back.
                own["OPENCODE_DB"] = str(folder / "tmp" / "opencode.db")
            # A temporary folder of the sample's own, beside the copy and removed with it:
            # the agent's tools (pytest's tmp_path, shell here-documents) need one, and a
            # sandbox that confines writes to the copy keeps this one open (codex).
            (folder / "tmp").mkdir()
            start, _ = self._start(argv, folder, own)
            confinement = self._confinement()
            state = state_paths(self._profile.preset or "", start.home, start.env)
            reach = Reach(
                workspace,
                allowed=(folder / "tmp", folder / "home", system_file, *state),
                home=start.home,
                watched=watched_roots(Path.home(), start.home, Path.cwd()),
            )

            def did_now(out: str) -> Behaviour:
                did = behaviour(
                    out,
                    folder,
                    before,
                    workspace,
                    transcript_file(self._profile.preset or "", out, start.home, start.env),
                    reach=reach,
                    git=git,
                )
                return replace(did, confined=confinement.mode)

            started = time.perf_counter()
            try:
                async with Gate(start.gate, start.ends):
                    # Unconfined, under a reaper: what the agent started, in its process
                    # group or not (setsid, env -i), ends with the sample, before its copy is
                    # read (earnest.live.reaper). Confined, bwrap's PID namespace does that.
                    stdout, stderr, code = await run_child(
                        start.argv,
                        stdin_text,
                        cwd=str(workspace),
                        env=start.env,
                        timeout=timeout,
                        label=self._label(argv),
                        reap=not confinement.confined,
                    )
            except ProviderError as exc:
                # Crashed or timed out: what it did so far stays with the void sample.
                exc.did = did_now(exc.raw)
                raise
            latency = time.perf_counter() - started
            out = stdout.decode("utf-8", errors="replace")
            did = did_now(out)
        if code != 0:
            error = _exited(argv[0], code, out, stderr)
            error.did = did
            raise error
        return replace(reply_from_stdout(out, latency), did=did)

    def _confinement(self) -> Confinement:
        """How the child is started: as the run plan decided, else ``"auto"``."""
        from earnest.live.confine import resolve

        if self.confinement is None:
            self.confinement = resolve("auto")
        return self.confinement

    def _start(self, argv: list[str], folder: Path, own: Mapping[str, str]) -> tuple[Start, bool]:
        """The child's start in the sample ``folder`` (:func:`earnest.live.sandbox.prepare`:
        the allow-list environment, and confined a HOME of its own, no host sockets, only the
        model endpoint) and whether it is confined."""
        from earnest.live.sandbox import prepare

        confinement = self._confinement()
        try:
            start = prepare(self._profile, argv, confinement, folder, own, roots=self._roots)
        except (OSError, ValueError) as exc:
            raise ProviderError(
                f"cannot confine {self._profile.name}: {exc}", kind="process"
            ) from None
        return start, confinement.confined

    def _label(self, argv: list[str]) -> str:
        """The child as a timeout names it (a confined one is started by bwrap)."""
        return f"the agent {Path(argv[0]).name} (profile {self._profile.name})"

    def _stdin(self, argv: list[str], system: str, user: str) -> str:
        """What the child reads on standard input; Gemini CLI takes the prompt as its last
        argument instead (appended to ``argv``)."""
        if self._profile.preset in ("gemini", "pi"):
            argv.append(user)
            return ""
        if self._profile.preset == "opencode":
            argv.append(combine(system, user))
            return ""
        return user if stdin_mode(self._profile) == "user" else combine(system, user)

    def _own_env(self, system_file: Path) -> dict[str, str]:
        """What earnest sets in a child's environment (on top of the user's, or of the
        allow-list of an acting child: :mod:`earnest.live.agentenv`)."""
        env: dict[str, str] = {}
        env[HOOK_DISABLE_ENV] = "1"
        env["EARNEST_SYSTEM_FILE"] = str(system_file)
        env["EARNEST_MODEL"] = self.model
        if self._profile.preset == "gemini":
            env["GEMINI_SYSTEM_MD"] = str(system_file)
            # Gemini CLI 0.6x exits 55 in an untrusted folder, and each child runs in a new one.
            env[GEMINI_TRUST_ENV] = "true"
        return env

    async def aclose(self) -> None:
        return None


def _exited(program: str, code: int, out: str, stderr: bytes) -> ProviderError:
    """The void sample of a child that exited non-zero: the tail of what it said, without
    the terminal's colour codes."""
    err = stderr.decode("utf-8", errors="replace")
    detail = plain_text(err.strip() or out.strip())[-_TAIL:]
    return ProviderError(
        f"{Path(program).name} exited with status {code}: {detail}",
        kind="process",
        raw=plain_text(out),
    )


def reply_from_stdout(stdout: str, latency: float) -> ProviderReply:
    """Unwrap the agent CLI's envelope and read what it says about its own cost and tokens.

    An envelope that reports a failed run (``is_error``, an API error, a failed turn) is a
    provider failure — the sample is void — never an unparseable reply by the agent."""
    from earnest.pressure.envelopes import unwrap_envelope

    unwrapped = unwrap_envelope(stdout)
    if unwrapped.error is not None:
        raise ProviderError(
            f"the agent CLI reports a failed run ({unwrapped.envelope}): "
            f"{plain_text(unwrapped.error)}",
            kind="agent_error",
            raw=stdout,
        )
    cost, tokens_in, tokens_out = _envelope_usage(stdout)
    return ProviderReply(
        text=unwrapped.text,
        raw=stdout,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost=cost,
        latency=latency,
    )


def _envelope_usage(stdout: str) -> tuple[float | None, int | None, int | None]:
    # Only the top-level numbers a CLI reports about itself; the reply text is the envelope
    # module's business.
    try:
        data = safe_loads(stdout)
    except ValueError:
        return None, None, None
    if isinstance(data, list):  # an array of events (Qwen Code's json): its result event
        data = next(
            (e for e in reversed(data) if isinstance(e, dict) and e.get("type") == "result"), None
        )
    if not isinstance(data, dict):
        return None, None, None
    cost = data.get("total_cost_usd", data.get("cost_usd"))
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    assert isinstance(usage, dict)
    tin = usage.get("input_tokens")
    tout = usage.get("output_tokens")
    return (
        float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        tin if isinstance(tin, int) else None,
        tout if isinstance(tout, int) else None,
    )


async def run_child(
    argv: list[str],
    stdin_text: str,
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    label: str | None = None,
    reap: bool = False,
) -> tuple[bytes, bytes, int]:
    """Run ``argv`` in its own process group; kill the whole group when the child exits (what
    it started in the background ends with its sample), on timeout or on cancellation.

    ``reap``: run it under a reaper (:mod:`earnest.live.reaper`, Linux), which also kills what
    left the group (a ``setsid`` daemon); on timeout or cancellation the reaper is asked
    first (SIGTERM), then the group is killed.

    ``label`` names the child in the timeout's message (default: the program's name); a
    confined agent is started by ``bwrap``, and the message should name the agent. What the
    child wrote before it was killed is kept in the error's ``raw``."""
    name = label or Path(argv[0]).name
    if reap:
        from earnest.live.reaper import reaper_argv

        argv = reaper_argv(argv)
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
    except OSError as exc:
        raise ProviderError(f"cannot start {argv[0]!r}: {exc.strerror}", kind="process") from None
    chunks: list[bytes] = []
    talk = asyncio.ensure_future(_collect(proc, stdin_text, chunks))
    try:
        await asyncio.wait_for(asyncio.shield(proc.wait()), timeout)
    except TimeoutError:
        await _kill_group(proc, reap)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(talk), 5)
        await _settle(talk)
        raise ProviderError(
            f"{name} gave no reply within {seconds_text(timeout)}s (process group killed)",
            kind="timeout",
            retryable=True,
            raw=b"".join(chunks).decode("utf-8", errors="replace"),
        ) from None
    except BaseException:
        await _kill_group(proc, reap)
        await _settle(talk)
        raise
    # The child is done: whatever it left running in its group (a server, a `sleep 5 &&
    # write` in the background) goes with it, and cannot hold its output open.
    await _kill_group(proc)
    try:
        stdout, stderr = await asyncio.wait_for(talk, 30)
    except TimeoutError:  # a grandchild that left the group still holds a pipe open
        talk.cancel()
        stdout, stderr = b"".join(chunks), b""
    return stdout, stderr, proc.returncode if proc.returncode is not None else -1


async def _collect(
    proc: asyncio.subprocess.Process, stdin_text: str, chunks: list[bytes]
) -> tuple[bytes, bytes]:
    """``communicate``, keeping stdout in ``chunks`` as it arrives (a timed-out child's
    partial output is what it did so far)."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None

    async def feed() -> None:
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.write(stdin_text.encode("utf-8"))
            await proc.stdin.drain()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            proc.stdin.close()

    async def drain_out() -> bytes:
        assert proc.stdout is not None
        while block := await proc.stdout.read(1 << 16):
            chunks.append(block)
        return b"".join(chunks)

    async def drain_err() -> bytes:
        assert proc.stderr is not None
        return await proc.stderr.read()

    _, out, err = await asyncio.gather(feed(), drain_out(), drain_err())
    await proc.wait()
    return out, err


async def _settle(task: asyncio.Future[tuple[bytes, bytes]]) -> None:
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


async def _kill_group(proc: asyncio.subprocess.Process, reaper: bool = False) -> None:
    if reaper and proc.returncode is None:
        # The reaper kills the whole tree, in the group or not, and exits (a few ms).
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(proc.wait()), 5)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(proc.wait(), 5)


__all__ = [
    "ACT_FLAGS",
    "CLAUDE_SETTINGS",
    "COPILOT_ISOLATION",
    "COPILOT_READ_TOOLS",
    "COPILOT_SECRETS",
    "GEMINI_TRUST_ENV",
    "HOOK_DISABLE_ENV",
    "ExecProvider",
    "build_act_argv",
    "build_argv",
    "combine",
    "plain_text",
    "reply_from_stdout",
    "run_child",
    "stdin_mode",
]
