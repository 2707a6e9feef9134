"""``earnest hook qwen``: the effect gate as a Qwen Code Stop hook.

Qwen Code sends ``{session_id, transcript_path, cwd, hook_event_name: "Stop", timestamp,
stop_hook_active, last_assistant_message}``. The run's tool calls come from the session's chat
log at ``transcript_path`` (``~/.qwen/projects/<cwd, "/" and "_" as "-">/chats/<session>.jsonl``,
read whole by :mod:`earnest.trajectory` as format ``qwen-code-chat``). To block it prints
``{"decision": "block", "reason": ...}`` and exits 0; Qwen gives the reason to the agent and
goes on (its own cap is 100 blocks in a row).

Qwen sets ``stop_hook_active`` on every stop, the first one included, so the flag says nothing:
whether this stop continues a blocked one is decided from earnest's own state — the previous
stop of this session was blocked and the chat log still holds the same prompt (Qwen does not
record the block reason in the log, so the prompt stays the same while it goes on).

A stop while a subagent still runs in the background (Qwen 0.24: its stop input lists it in
``background_tasks`` as ``running``) is not judged (:mod:`earnest.hooks.background`); the stop
after it ends is, with the subagent's calls counted: the chat log records each of them as a
``ui_telemetry`` record (:mod:`earnest.trajectory.readers.qwen_chat`).

What it can see: the turn's tool calls as the chat log records them, with their results, and a
subagent's calls with their outcome (not their output). What it cannot: a stop whose log cannot be read (the stop is allowed, with a line on stderr), and
anything done outside the tools.

Example:
    >>> render(HookOutcome.block("completion-without-effect: nothing written"))
    '{"decision": "block", "reason": "completion-without-effect: nothing written"}'
    >>> render(HookOutcome.allow())
    ''
"""

from __future__ import annotations

from earnest.errors import InputError
from earnest.hooks.background import pending, running_subagents
from earnest.hooks.catchup import once_created
from earnest.hooks.core import (
    RunView,
    check_transcript,
    decide,
    read_document_run,
    settle,
    stop_to_judge,
)
from earnest.hooks.outcome import HookOutcome, decision_json
from earnest.hooks.state import SessionState, StateStore
from earnest.hooks.stdin import STDIN

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CLI = "qwen"
STOP_EVENTS = ("", "Stop")
FORMATS = ("qwen-code-chat",)
REASON_PREFIXES = ("completion-without-effect", "unverified-claim")


def render(outcome: HookOutcome) -> str:
    """Qwen's Stop output: Claude Code's shape."""
    return decision_json(outcome)


def continues_block(run: RunView, state: SessionState) -> bool:
    """Whether this stop is the agent going on after earnest blocked its previous stop.

    Decided from earnest's state, never from Qwen's ``stop_hook_active`` (always true).

    Example:
        >>> s = SessionState(cli="qwen", session_id="s", prompt_key="k", consecutive_blocks=1)
        >>> continues_block(RunView("fix", "k", (), "Done."), s)
        True
        >>> continues_block(RunView("now add tests", "k2", (), "Done."), s)
        False
    """
    if state.consecutive_blocks <= 0 or not state.prompt_key:
        return False
    return run.prompt_key == state.prompt_key or run.request.lstrip().startswith(REASON_PREFIXES)


def _read_run(transcript: Path) -> Any:
    from earnest.trajectory.readers.qwen_chat import run_start

    check_transcript(transcript)
    return read_document_run(transcript, FORMATS, start=run_start(transcript))


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one Stop; returns what to print on stdout."""
    stop = stop_to_judge(data, STOP_EVENTS)
    if stop is None:
        return ""
    payload, cwd, config = stop
    running = running_subagents(payload.raw)
    if running:  # Qwen 0.24 runs subagents in the background: not a completion yet
        return render(pending(running))
    transcript = payload.path("transcript_path")
    if transcript is None:
        raise InputError(STDIN, "transcript_path", "missing: the turn's tool calls cannot be seen")
    # A short session's transcript may not exist yet when the stop is called.
    # Only the current run is parsed: from its prompt, found by reading the log backwards.
    trajectory = once_created(transcript, lambda: _read_run(transcript))
    run = RunView.from_trajectory(trajectory, final_text=payload.text("last_assistant_message"))
    store = store or StateStore()
    state = store.load(CLI, payload.session_id or "unknown-session")

    def judge(s: SessionState) -> HookOutcome:
        return decide(run, config, cwd, s, stop_hook_active=continues_block(run, s))

    return render(settle(store, state, judge))


__all__ = ["CLI", "FORMATS", "STOP_EVENTS", "continues_block", "handle", "render"]
