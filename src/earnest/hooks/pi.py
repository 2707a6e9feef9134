"""``earnest hook pi``: the effect gate inside Pi, run by earnest's Pi extension.

Pi has no command hooks and no stop that can be vetoed: it runs TypeScript extensions in
process. ``earnest hook install pi`` writes one (:mod:`earnest.hooks.pi_install`) that, on
``turn_end`` when the turn made no tool call (the agent's last word), starts this command with
``{hook_event_name: "turn_end", session_id, transcript_path, cwd, last_assistant_message}`` on
stdin. The run's tool calls come from the session file at ``transcript_path`` (Pi's session
JSONL, read whole as format ``pi-session``). To block it prints ``{"decision": "block",
"reason": ...}``; the extension queues the reason with ``pi.sendUserMessage(reason,
{deliverAs: "followUp"})``, which Pi takes before its run ends, headless (``pi -p``) too.

Pi has no ``stop_hook_active``: whether a stop continues a blocked one is earnest's own state
(the previous stop was blocked and the session still holds the same prompt: the reason, sent
back as a user message, reads as a stop hook's feedback, not a prompt), as for Qwen Code.

What it can see: the turn's tool calls and results as the session records them. What it
cannot: a stop whose session cannot be read (allowed, with a line on stderr), a session Pi
does not save (``--no-session``: nothing to read, allowed), and anything done outside tools.
The user sees the agent stop and start again: it is a re-prompt after the stop, not a veto.

Example:
    >>> render(HookOutcome.block("completion-without-effect: nothing written"))
    '{"decision": "block", "reason": "completion-without-effect: nothing written"}'
"""

from __future__ import annotations

from earnest.errors import InputError
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
from earnest.hooks.qwen import continues_block
from earnest.hooks.state import SessionState, StateStore
from earnest.hooks.stdin import STDIN

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CLI = "pi"
STOP_EVENTS = ("", "turn_end")
FORMATS = ("pi-session",)


def render(outcome: HookOutcome) -> str:
    """What the extension reads: Claude Code's shape (``decision``, ``reason``, ``systemMessage``)."""
    return decision_json(outcome)


def _read_run(transcript: Path) -> Any:
    from earnest.trajectory.readers.pi_session import run_start

    check_transcript(transcript)
    return read_document_run(transcript, FORMATS, start=run_start(transcript))


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one ``turn_end`` without tool calls; returns what to print on stdout."""
    stop = stop_to_judge(data, STOP_EVENTS)
    if stop is None:
        return ""
    payload, cwd, config = stop
    transcript = payload.path("transcript_path")
    if transcript is None:
        raise InputError(
            STDIN, "transcript_path", "missing: Pi keeps no session file (--no-session?)"
        )
    # A short session's transcript may not exist yet when the stop is called.
    # Only the current run is parsed: from its prompt on the last entry's branch.
    trajectory = once_created(transcript, lambda: _read_run(transcript))
    run = RunView.from_trajectory(trajectory, final_text=payload.text("last_assistant_message"))
    store = store or StateStore()
    session = payload.session_id or str(trajectory.metadata.get("session_id") or "")
    state = store.load(CLI, session or "unknown-session")

    def judge(s: SessionState) -> HookOutcome:
        return decide(run, config, cwd, s, stop_hook_active=continues_block(run, s))

    return render(settle(store, state, judge))


__all__ = ["CLI", "FORMATS", "STOP_EVENTS", "handle", "render"]
