"""``earnest hook cursor``: the effect gate as Cursor's ``stop`` hook.

Cursor (the editor's agent and ``cursor-agent``) starts the hooks in ``.cursor/hooks.json`` with
a JSON object on stdin: ``conversation_id``, ``generation_id``, ``model``,
``hook_event_name``, ``cursor_version``, ``workspace_roots``, ``user_email`` and the event's
own fields. Its ``stop`` (``{status: "completed" | "aborted" | "error", loop_count}``) cannot
veto the end of the run, but may answer ``{"followup_message": "..."}``, which Cursor submits
as the next user message, at most ``loop_limit`` times in a row (a key of the hook's entry,
default 5).

Cursor does not document its transcripts, so the run is told by Cursor's own hooks:
``earnest hook install cursor`` installs this command on ``beforeSubmitPrompt``,
``afterFileEdit``, ``afterShellExecution``, ``afterMCPExecution`` and ``afterAgentResponse``
too; each payload is appended (secrets redacted) to a log in earnest's state folder, one per
conversation, read back at the stop as format ``cursor-hook-events``. A new prompt starts the
log again.

At a ``completed`` stop the gate judges that run; a block is answered with the reason as the
``followup_message``. Bounded twice: by earnest's ``max_downgrades`` per prompt (its own state;
``loop_count > 0`` after earnest's block is the agent going on) and by Cursor's ``loop_limit``
(a stop at the limit is allowed: Cursor would not submit the message). An ``aborted`` or
``error`` stop is allowed: the user stopped it, or the agent could not go on.

What it can see: prompts, file edits, shell commands with their output (no exit status: a
check's outcome is read from its output), MCP calls, the agent's messages. What it cannot:
edits Cursor makes without ``afterFileEdit`` (none known), anything done outside the agent.
It is tested against payloads from Cursor's documentation and public hook projects, not
against the real Cursor (not on npm).

Example:
    >>> render_stop(HookOutcome.block("completion-without-effect: nothing written"))
    '{"followup_message": "completion-without-effect: nothing written"}'
    >>> render_stop(HookOutcome.allow())
    '{}'
"""

from __future__ import annotations

import json
import os
from datetime import UTC
from pathlib import Path

from earnest.errors import InputError
from earnest.hooks.config import load_hook_config
from earnest.hooks.core import RunView, decide, read_document_run, settle
from earnest.hooks.outcome import HookOutcome
from earnest.hooks.state import SessionState, StateStore
from earnest.hooks.stdin import STDIN, HookPayload

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    pass

CLI = "cursor"
STOP = "stop"
RECORDED = (
    "beforeSubmitPrompt",
    "afterFileEdit",
    "afterShellExecution",
    "afterMCPExecution",
    "afterAgentResponse",
)
EVENTS = (*RECORDED, STOP)
FORMATS = ("cursor-hook-events",)
DEFAULT_LOOP_LIMIT = 5  # Cursor's own default for a stop hook's loop_limit
REASON_PREFIXES = ("completion-without-effect", "unverified-claim")


def render_stop(outcome: HookOutcome) -> str:
    """Cursor's stop output: the block reason as the next prompt; ``{}`` to let it stop."""
    if outcome.blocked:
        return json.dumps({"followup_message": outcome.reason}, ensure_ascii=False)
    return "{}"


def workspace(payload: HookPayload) -> Path:
    """The folder the run works in: the first of ``workspace_roots`` (or ``cwd``)."""
    roots = payload.raw.get("workspace_roots")
    if roots is not None and not (
        isinstance(roots, list) and all(isinstance(r, str) for r in roots)
    ):
        raise InputError(STDIN, "workspace_roots", "must be a list of paths")
    if roots:
        path = Path(roots[0])
        if not path.is_absolute():
            raise InputError(STDIN, "workspace_roots", f"not an absolute path: {roots[0]!r}")
        if not path.is_dir():
            raise InputError(STDIN, "workspace_roots", f"not a folder: {roots[0]}")
        return path
    return payload.cwd


def _count(payload: HookPayload, key: str, default: int) -> int:
    value = payload.raw.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(STDIN, key, "must be a whole number")
    return value


def log_path(store: StateStore, conversation: str) -> Path:
    """The conversation's event log in earnest's state folder."""
    return store.path_for(CLI, conversation).with_suffix(".events")


def record(store: StateStore, payload: HookPayload, conversation: str) -> None:
    """Append one event to the conversation's log; a new prompt starts the log again."""
    from datetime import datetime

    from earnest.redact import scrub_value

    line = {
        "earnest_cursor_event": 1,
        "received": datetime.now(UTC).isoformat(timespec="milliseconds"),
        "payload": scrub_value(payload.raw),
    }
    data = (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")
    path = log_path(store, conversation)
    store.root.mkdir(parents=True, exist_ok=True, mode=0o700)
    prompt = payload.raw.get("prompt")
    fresh = (
        payload.event == "beforeSubmitPrompt"
        and isinstance(prompt, str)
        and not prompt.lstrip().startswith(REASON_PREFIXES)
    )
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if fresh else 0)
    fd = os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def continues_block(run: RunView, state: SessionState, loop_count: int) -> bool:
    """Whether this stop is the agent going on after earnest's follow-up.

    Example:
        >>> s = SessionState(cli="cursor", session_id="c", prompt_key="k", consecutive_blocks=1)
        >>> continues_block(RunView("fix", "k", (), "Done."), s, 1)
        True
        >>> continues_block(RunView("fix", "k", (), "Done."), s, 0)
        False
    """
    if loop_count <= 0 or state.consecutive_blocks <= 0 or not state.prompt_key:
        return False
    return run.prompt_key == state.prompt_key or run.request.lstrip().startswith(REASON_PREFIXES)


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Record one Cursor hook event, or judge a stop; returns what to print on stdout."""
    payload = HookPayload.parse(data)
    event = payload.event
    if event not in EVENTS:
        return "{}"
    conversation = payload.text("conversation_id")
    if not conversation:
        raise InputError(STDIN, "conversation_id", "missing")
    store = store or StateStore()
    if event != STOP:
        record(store, payload, conversation)
        return json.dumps({"continue": True}) if event == "beforeSubmitPrompt" else "{}"
    status = payload.text("status")
    loop_count = _count(payload, "loop_count", 0)
    loop_limit = _count(payload, "loop_limit", DEFAULT_LOOP_LIMIT)
    if status and status != "completed":
        return "{}"
    cwd = workspace(payload)
    config = load_hook_config(cwd)
    if not config.enabled:
        return "{}"
    log = log_path(store, conversation)
    if not log.exists():
        raise InputError(log, None, "no Cursor events recorded for this conversation")
    trajectory = read_document_run(log, FORMATS)
    run = RunView.from_trajectory(trajectory)
    state = store.load(CLI, conversation)
    if loop_count >= loop_limit:
        # Cursor would drop the follow-up: judging would spend budget on nothing.
        return "{}"

    def judge(s: SessionState) -> HookOutcome:
        return decide(run, config, cwd, s, stop_hook_active=continues_block(run, s, loop_count))

    return render_stop(settle(store, state, judge))


__all__ = [
    "CLI",
    "DEFAULT_LOOP_LIMIT",
    "EVENTS",
    "FORMATS",
    "RECORDED",
    "continues_block",
    "handle",
    "log_path",
    "record",
    "render_stop",
]
