"""``earnest hook claude-code``: the effect gate as a Claude Code Stop / SubagentStop hook.

Claude Code sends ``{session_id, transcript_path, cwd, hook_event_name, stop_hook_active,
last_assistant_message?}`` (SubagentStop adds ``agent_id`` and ``agent_transcript_path``).
The hook reads the transcript with :mod:`earnest.trajectory`'s Claude Code reader — from
where the previous call stopped, keeping the reader's state between calls — takes the run
(everything since the last real user prompt), and lets the effect gate judge it against the
workspace under ``cwd``. To block it prints ``{"decision": "block", "reason": ...}``; the
reason is the agent's next instruction.

A stop while a subagent still runs in the background is not judged (Claude Code 2.1.33x runs
subagents in the background: its stop input lists them in ``background_tasks`` with ``status:
"running"``): the agent has handed the work on and has not finished it, Claude Code restarts it
with a ``<task-notification>`` when the subagent ends, and that stop is judged with the
subagent's work counted (its file is read again when it has grown). Such a stop is allowed
without spending the block budget or counting as a verdict (see :func:`running_subagents`).
Background shells do not hold a stop: a server started in the background may never end.

What it can see: every tool call and result of the run, including inline sidechains; a
subagent's own calls when Claude Code names its transcript (``agent_transcript_path``). What
it cannot: the subagents of a SubagentStop whose input has no ``agent_transcript_path`` (that
stop is allowed), and anything the agent did outside its tools.

Example:
    >>> render(HookOutcome.block("completion-without-effect: no file written"))
    '{"decision": "block", "reason": "completion-without-effect: no file written"}'
    >>> render(HookOutcome.allow())
    ''
"""

from __future__ import annotations

from pathlib import Path

from earnest._digest import sha256_hex
from earnest.errors import InputError
from earnest.hooks.background import PENDING, pending, running_subagents
from earnest.hooks.catchup import catch_up, when_there
from earnest.hooks.core import RunView, check_transcript, decide, settle, stop_to_judge
from earnest.hooks.outcome import HookOutcome, decision_json
from earnest.hooks.state import SessionState, StateStore
from earnest.hooks.stdin import STDIN

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

try:  # the C pickler itself: pickle.py only wraps it, and every stop would import it
    from _pickle import dumps as _dumps
    from _pickle import loads as _loads
except ImportError:  # an interpreter without the accelerator
    from pickle import dumps as _dumps
    from pickle import loads as _loads

CLI = "claude-code"
_PROTOCOL = 5  # pickle.HIGHEST_PROTOCOL of every Python earnest supports (3.11+)
STOP_EVENTS = ("", "Stop", "SubagentStop")
_TAIL = 4096  # bytes before the offset whose hash proves the transcript was only appended to


def render(outcome: HookOutcome) -> str:
    """Claude Code's JSON: block with a reason, or allow (with a note for the user)."""
    return decision_json(outcome)


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one stop; returns what to print on stdout."""
    stop = stop_to_judge(data, STOP_EVENTS)
    if stop is None:
        return ""
    payload, cwd, config = stop
    running = running_subagents(payload.raw)
    if running:
        return render(pending(running))
    session_id = payload.session_id or "unknown-session"
    agent_id = ""
    if payload.event == "SubagentStop":
        agent_id = payload.text("agent_id") or "subagent"
        transcript = payload.path("agent_transcript_path")
        if transcript is None:
            raise InputError(
                STDIN,
                "agent_transcript_path",
                "missing: this Claude Code does not say where the subagent's transcript is",
            )
    else:
        transcript = payload.path("transcript_path")
        if transcript is None:
            raise InputError(STDIN, "transcript_path", "missing")
    store = store or StateStore()
    state = store.load(CLI, session_id, agent_id)
    last = payload.text("last_assistant_message")
    # Where the previous stop stopped reading: this stop's final message comes after it.
    judged = state.offset if state.transcript == str(transcript) else 0
    want = " ".join((last or "").split())

    def read() -> Any:
        # None until Claude Code has created the transcript (a short session's first stop).
        return when_there(transcript, lambda: read_run(transcript, state, store))

    def ready(t: Any) -> bool:
        if t is None:
            return False
        return not want or (has_final(t, want) and int(state.reader.get("final_at", -1)) >= judged)

    waited = catch_up(read(), read, ready)
    # Still not created: the ordinary read says so (``transcript not found``).
    trajectory = waited if waited is not None else read_run(transcript, state, store)
    run = RunView.from_trajectory(trajectory, final_text=last)
    active = payload.stop_hook_active
    outcome = settle(store, state, lambda s: decide(run, config, cwd, s, stop_hook_active=active))
    return render(outcome)


# ---------------------------------------------------------------------------- transcript


def has_final(trajectory: Any, want: str) -> bool:
    """Whether the transcript's final message holds ``want`` (whitespace-normalised): Claude
    Code can fire Stop before it has flushed the last lines (seen with the real CLI: a
    subagent's Task result and the closing message were not there yet), so the stop waits
    (:func:`earnest.hooks.catchup.catch_up`) until stdin's ``last_assistant_message`` is the
    final message, written after what the previous stop read (the same words said at two
    stops are not enough).

    Example:
        >>> from types import SimpleNamespace
        >>> has_final(SimpleNamespace(final_message="Done:  all\ttests pass."), "all tests pass.")
        True
    """
    return want in " ".join((trajectory.final_message or "").split())


def _fingerprint(path: Path, offset: int) -> dict[str, Any]:
    info = path.stat()
    start = max(0, offset - _TAIL)
    with path.open("rb") as fh:
        fh.seek(start)
        tail = fh.read(offset - start)
    return {
        "dev": info.st_dev,
        "ino": info.st_ino,
        "tail": sha256_hex(tail),
    }


def _only_grew(path: Path, state: SessionState) -> bool:
    """Whether the transcript still holds, unchanged, what the previous call read of it."""
    try:
        if path.stat().st_size < state.offset:
            return False
        return bool(_fingerprint(path, state.offset) == state.reader.get("fingerprint"))
    except OSError:
        return False


def _resume(path: Path, state: SessionState, store: StateStore) -> Any:
    """The reader session saved by the previous call, if the file only grew since."""
    from earnest.trajectory.readers.claude_code import ClaudeCodeSession

    if state.transcript != str(path) or state.offset <= 0:
        return None
    if not _only_grew(path, state):
        return None
    blob = store.load_blob(state)
    if blob is None:
        return None
    try:
        offset, session = _loads(blob)
    except Exception:  # an old or damaged blob: read the transcript again
        return None
    if offset != state.offset:
        return None  # the state file and the blob were not saved by the same call
    if not isinstance(session, ClaudeCodeSession):
        return None
    # A reader saved by an earnest that read each subagent once (a set of ids, no offsets)
    # cannot tell what a subagent appended since: read the transcript again.
    return session if isinstance(getattr(session, "_subagents_read", None), dict) else None


def _saved_start(path: Path, state: SessionState) -> Any:
    """The run start the previous call found (offsets only), if the file only grew since."""
    from earnest.trajectory.readers.claude_tail import RunStart

    run = state.reader.get("run")
    if not isinstance(run, dict) or state.transcript != str(path) or state.offset <= 0:
        return None
    offset, prompt, recent = run.get("offset"), run.get("prompt"), run.get("recent")
    if not (
        isinstance(offset, int)
        and isinstance(prompt, int)
        and 0 < offset <= prompt < state.offset
        and isinstance(recent, list)
        and all(isinstance(key, str) for key in recent)
    ):
        return None
    if not _only_grew(path, state):
        return None
    return RunStart(offset, prompt, tuple(recent))


def read_run(path: Path, state: SessionState, store: StateStore) -> Any:
    """The current run (a Trajectory), reading only what it must.

    With a reader saved by the previous call, only what was appended since; without one
    (a session's first stop, a rewritten transcript, or a reader not saved because it held a
    secret), only the current run: from the run's start the previous call found (kept as
    offsets, never text), or found by scanning the transcript backwards from its end.
    """
    from earnest.trajectory.readers.claude_code import read_claude_code_from

    check_transcript(path)
    session = _resume(path, state, store)
    start = state.reader.get("run") if session is not None else _saved_start(path, state)
    try:
        if session is not None:
            session, offset = read_claude_code_from(
                path, state.offset, session, final=False, run_only=True
            )
        if session is None or session.continues_earlier:
            # Imported only here: a later stop resumes the saved reader without the scan.
            from earnest.trajectory.readers.claude_tail import read_claude_run_from

            state.forget_transcript(str(path))
            session, offset, found = read_claude_run_from(
                path, start if session is None else None, final=False
            )
            start = _start_dict(found)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    state.offset = offset
    state.reader = {
        "fingerprint": _fingerprint(path, offset),
        "lines": session.lines,
        "final_at": session.final_at,
    }
    if isinstance(start, dict):
        state.reader["run"] = start
    try:
        blob = _dumps((offset, session), protocol=_PROTOCOL)
        store.save_blob(state, blob)
    except OSError:
        store.drop_blob(state)  # next call reads again: slower, still right
        state.offset = 0
    return session.trajectory()


def _start_dict(found: Any) -> dict[str, Any] | None:
    """A run start as the state file keeps it: byte offsets and message ids, no text."""
    if found is None:
        return None
    return {"offset": found.offset, "prompt": found.prompt, "recent": list(found.recent)}


__all__ = [
    "CLI",
    "PENDING",
    "STOP_EVENTS",
    "handle",
    "pending",
    "read_run",
    "render",
    "running_subagents",
]
