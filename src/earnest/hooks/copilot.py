"""``earnest hook copilot``: the effect gate as a GitHub Copilot CLI ``agentStop`` hook.

Copilot CLI sends, for a hook under the key ``agentStop``, ``{timestamp (epoch ms), cwd,
sessionId, transcriptPath, stopReason, stop_hook_active}``; under the key ``Stop`` the same
stop comes Claude-shaped, ``{hook_event_name: "Stop", session_id, transcript_path, cwd,
stop_reason, stop_hook_active, timestamp (ISO)}``. Both are judged here. The run's tool calls
come from the session log at the transcript path
(``~/.copilot/session-state/<sessionId>/events.jsonl``, read whole by
:mod:`earnest.trajectory` as format ``copilot-cli-events``). Copilot writes that log after it
calls the hook (a short session's log may not exist yet), so a stop first waits, briefly,
for the log to hold its own ``hook.start`` (:func:`logged`).

To block it prints ``{"decision": "block", "reason": ...}`` and exits 0 (Copilot ignores a
hook's exit code 2); Copilot sends the reason to the agent as the next user message, which
the session log records (the reader knows it for what it is: the run goes on under the same
prompt). ``stop_hook_active`` is false at a turn's first stop and true after a block; the
block budget is earnest's own, kept in its state (Copilot's own cap is 8 blocks in a row).

Copilot loads a repository's hooks in ``copilot -p`` only in a trusted folder
(``--trust-folder`` or ``COPILOT_ALLOW_ALL=true``); ``earnest hook doctor copilot`` says so.

Example:
    >>> render(HookOutcome.block("completion-without-effect: nothing written"))
    '{"decision": "block", "reason": "completion-without-effect: nothing written"}'
    >>> render(HookOutcome.allow())
    ''
"""

from __future__ import annotations

from earnest.errors import InputError
from earnest.hooks.catchup import catch_up, when_there
from earnest.hooks.core import (
    RunView,
    check_transcript,
    decide,
    read_document_run,
    settle,
    started_ns,
    stop_to_judge,
)
from earnest.hooks.outcome import HookOutcome, decision_json
from earnest.hooks.state import StateStore
from earnest.hooks.stdin import STDIN, HookPayload
from earnest.trajectory.readers.copilot_events import HOOK_STARTED

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CLI = "copilot"
STOP_EVENTS = ("", "Stop")  # agentStop's input names no event; the Stop key's says "Stop"
FORMATS = ("copilot-cli-events",)


def render(outcome: HookOutcome) -> str:
    """Copilot's agentStop output: Claude Code's shape."""
    return decision_json(outcome)


def session_id(payload: HookPayload) -> str:
    """The session's id in either input shape (``sessionId`` or ``session_id``).

    Example:
        >>> session_id(HookPayload.parse('{"sessionId": "s1"}'))
        's1'
        >>> session_id(HookPayload.parse('{"session_id": "s2"}'))
        's2'
    """
    return payload.text("sessionId") or payload.session_id


def logged(trajectory: Any, stamp: object) -> bool:
    """Whether the session log holds this stop's own ``hook.start`` (the input it logs has
    the stdin's ``timestamp``): then it holds everything the agent did before the stop.

    Copilot writes ``events.jsonl`` asynchronously and calls ``agentStop`` before the last
    tool result and the closing message are written (seen with 1.0.102: a stop judged
    without its claim, allowed; a stop judged without its test run's output, blocked), so
    the stop waits (:func:`earnest.hooks.catchup.catch_up`) until its own ``hook.start``
    is in the log. The two moments are compared in epoch milliseconds, whether given as a
    number (``agentStop``) or an ISO time (the ``Stop`` key's Claude-shaped input).

    Example:
        >>> from types import SimpleNamespace
        >>> logged(SimpleNamespace(metadata={HOOK_STARTED: 1796621954057}), 1796621954057)
        True
        >>> logged(SimpleNamespace(metadata={HOOK_STARTED: 1796621954057}),
        ...        "2026-12-07T05:39:14.057Z")
        True
        >>> logged(SimpleNamespace(metadata={}), 1796621954057)
        False
    """
    at = epoch_ms(stamp)
    return at is not None and epoch_ms(trajectory.metadata.get(HOOK_STARTED)) == at


def epoch_ms(value: object) -> int | None:
    """A moment in epoch milliseconds: a number as it is, an ISO 8601 time with its zone.

    Example:
        >>> epoch_ms("2026-12-07T05:39:14.057Z"), epoch_ms(1796621954057), epoch_ms("soon")
        (1796621954057, 1796621954057, None)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    ns = started_ns(value, now_ns=1 << 62)  # a stop's own time: no "future" to refuse
    return None if ns is None else round(ns / 1_000_000)


def _read_run(transcript: Path) -> Any:
    """The log's current run, parsed from its prompt on (found by reading it backwards)."""
    from earnest.trajectory.readers.copilot_events import run_start

    check_transcript(transcript)
    return read_document_run(transcript, FORMATS, start=run_start(transcript))


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one agentStop (or Stop); returns what to print on stdout."""
    stop = stop_to_judge(data, STOP_EVENTS)
    if stop is None:
        return ""
    payload, cwd, config = stop
    key = "transcriptPath" if payload.raw.get("transcriptPath") else "transcript_path"
    transcript = payload.path(key)
    if transcript is None:
        raise InputError(STDIN, key, "missing: the turn's tool calls cannot be seen")
    stamp = payload.raw.get("timestamp")
    if epoch_ms(stamp) is None:
        trajectory = _read_run(transcript)
    else:

        def read() -> Any:
            return when_there(transcript, lambda: _read_run(transcript))

        waited = catch_up(read(), read, lambda t: t is not None and logged(t, stamp))
        # Still not created: the ordinary read says so (``transcript not found``).
        trajectory = waited if waited is not None else _read_run(transcript)
    run = RunView.from_trajectory(trajectory)
    store = store or StateStore()
    state = store.load(CLI, session_id(payload) or "unknown-session")
    active = payload.stop_hook_active
    outcome = settle(store, state, lambda s: decide(run, config, cwd, s, stop_hook_active=active))
    return render(outcome)


__all__ = [
    "CLI",
    "FORMATS",
    "STOP_EVENTS",
    "epoch_ms",
    "handle",
    "logged",
    "render",
    "session_id",
]
