"""The decision every adapter shares: does this stop have the effect its request asked for?

An adapter turns its CLI's hook input and transcript into a :class:`RunView` — the user's
request, the run's tool calls as tool-result mappings, the agent's last message, when the
run began — and calls :func:`decide`. The judgement is :class:`earnest.effects.EffectGate`'s
(the only one): the hook feeds it the run, asks it to ``apply`` to a COMPLETE, and carries the
gate's downgrade count from one stop to the next in the session state, because each stop is
a new process.

The gate's workspace gets a baseline from the run's start time when the transcript records
it: a file the run claims to have written counts only if its mtime or ctime is after the
prompt, so a goal file that was already there does not satisfy a change request.

Example:
    >>> import tempfile
    >>> from earnest.hooks.config import HookConfig
    >>> from earnest.hooks.state import SessionState, StateStore
    >>> run = RunView(request="hi", prompt_key="p1", tool_results=(), final_text="Hello!")
    >>> state = SessionState(cli="claude-code", session_id="s")
    >>> decide(run, HookConfig(), Path(tempfile.mkdtemp()), state).blocked
    False
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from itertools import groupby
from pathlib import Path

from earnest._digest import sha256_hex
from earnest.errors import InputError
from earnest.hooks.config import HookConfig, load_hook_config
from earnest.hooks.outcome import HookOutcome
from earnest.hooks.state import SessionState, StateStore
from earnest.hooks.stdin import HookPayload

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any
else:
    try:  # the C type itself: datetime.py defines a pure-Python copy first, at every stop
        from _datetime import datetime
    except ImportError:  # an interpreter without the accelerator
        from datetime import datetime

EXHAUSTED = "effect_gate_exhausted"
GUIDANCE = (
    " (earnest stop hook: make the change in the workspace, or run the check, before saying "
    "it is done — or tell the user plainly what was not done.)"
)


@dataclass(frozen=True)
class RunView:
    """One run as the gate needs it: everything since the user's last real prompt."""

    request: str
    prompt_key: str
    tool_results: tuple[Mapping[str, Any], ...]
    final_text: str
    turn_count: int = 0
    started: str | None = None  # the prompt's timestamp (ISO 8601), when the log has it

    @classmethod
    def from_trajectory(cls, trajectory: Any, *, final_text: str = "") -> RunView:
        """The run a :class:`earnest.trajectory.Trajectory` read with ``run_only`` holds.

        ``final_text`` (the CLI's own copy of the agent's last message) wins over the
        transcript's, which can lag behind the stop.
        """
        prompt = _prompt_message(trajectory)
        return cls(
            request=trajectory.user_request or "",
            prompt_key=prompt_key(trajectory),
            tool_results=tuple(trajectory.tool_results()),
            final_text=final_text if final_text.strip() else (trajectory.final_message or ""),
            turn_count=int(trajectory.metadata.get("assistant_turns", 0)),
            started=prompt.timestamp if prompt is not None else None,
        )


def _prompt_message(trajectory: Any) -> Any:
    request = trajectory.user_request
    if request is None:
        return None
    for message in reversed(trajectory.messages):
        if message.kind == "prompt" and message.text == request:
            return message
    return None


def prompt_key(trajectory: Any) -> str:
    """A stable name for the prompt that started a trajectory's run ("" if none is seen)."""
    request = trajectory.user_request
    if request is None:
        return ""
    digest = sha256_hex(request.encode("utf-8"))[:16]
    message = _prompt_message(trajectory)
    if message is None:
        return digest
    # The prompt line's byte offset when the reader knows it: unlike the message index, it
    # does not depend on where reading began (a cold hook call starts at the last prompt).
    offset = trajectory.metadata.get("run_offset")
    position = f"@{offset}" if isinstance(offset, int) else str(message.index)
    return f"{position}:{message.timestamp or ''}:{digest}"


def check_transcript(path: Path) -> None:
    """Refuse a transcript path that is not a readable regular file, saying what it is instead.

    Raises :class:`InputError` naming the path and what is wrong: missing (or a symlink to
    nothing), a folder, a FIFO, a device (``/dev/zero``), a socket, or not readable. A FIFO
    is never opened (opening one blocks until a writer comes).

    Example:
        >>> check_transcript(Path("/dev/null"))
        Traceback (most recent call last):
        ...
        earnest.errors.InputError: /dev/null: is a character device, not a transcript file
    """
    import os
    import stat

    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        dangling = path.is_symlink()
        raise InputError(
            path, None, "is a symlink to nothing" if dangling else "transcript not found"
        ) from None
    except NotADirectoryError:
        raise InputError(path, None, "transcript not found (a parent is not a folder)") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = (
            "a folder" if stat.S_ISDIR(mode)
            else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode)
            else "not a regular file"
        )  # fmt: skip
        raise InputError(path, None, f"is {kind}, not a transcript file")
    if not os.access(path, os.R_OK):
        raise InputError(path, None, "transcript not readable")


def read_document_run(path: Path, formats: tuple[str, ...], **options: Any) -> Any:
    """The current run of a transcript that is read whole (Gemini session, Codex rollout),
    or from ``start`` (a byte offset: where the run begins, for a reader that takes one).

    Raises :class:`InputError` when the file is missing or in none of ``formats``.
    """
    from earnest.trajectory import ReadReport, detect_format, read_trajectories

    check_transcript(path)
    found = detect_format(path)
    if found not in formats:
        raise InputError(
            path, None, f"transcript format {found or 'unknown'} is not one of {', '.join(formats)}"
        )
    report = ReadReport()
    runs = list(read_trajectories(path, format=found, report=report, run_only=True, **options))
    if not runs:
        raise InputError(path, None, "no run found in the transcript")
    return runs[-1]


def started_ns(timestamp: str | None, now_ns: int | None = None) -> int | None:
    """An ISO 8601 timestamp in nanoseconds; None if absent, unreadable or in the future."""
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None  # a local time of unknown zone cannot be compared with file times
    ns = int(moment.timestamp() * 1_000_000_000)
    now = time.time_ns() if now_ns is None else now_ns
    return ns if ns <= now else None


def _gate(run: RunView, config: HookConfig, workspace: Path) -> Any:
    from earnest.effects import EffectGate, Workspace, WorkspaceBaseline
    from earnest.effects.workspace import resolve_root

    # env={}: the library's EARNEST_EFFECT_GATE switch is not the hook's (EARNEST_HOOK_DISABLE is).
    gate = EffectGate(config.gate, workspace=workspace, env={})
    gate.reset()
    since = started_ns(run.started)
    root = resolve_root(workspace)
    if since is not None and root is not None:
        # A baseline that knows nothing but the run's start: every path falls back to its
        # timestamps (changed when its mtime or ctime is after the prompt).
        baseline = WorkspaceBaseline(
            root=root,
            mode="snapshot",
            started_ns=since,
            complete=False,
            notes=("file timestamps since the prompt",),
        )
        gate.workspace = Workspace(root, baseline)
    for turn, results in groupby(run.tool_results, key=lambda r: r.get("turn_index")):
        gate.record(list(results), turn_index=turn if isinstance(turn, int) else None)
    return gate


def evaluate(run: RunView, config: HookConfig, workspace: Path, spent: int) -> Any:
    """The gate's verdict on this stop, with ``spent`` downgrades already used this prompt."""
    from earnest.effects import EvaluationDecision, EvaluationResult

    gate = _gate(run, config, workspace)
    gate.downgrades = spent
    return gate.apply(
        EvaluationResult(EvaluationDecision.COMPLETE, reason="the agent stopped"),
        content=run.final_text,
        request=run.request,
    )


def stop_to_judge(
    data: bytes, events: tuple[str, ...]
) -> tuple[HookPayload, Path, HookConfig] | None:
    """The hook's input, its workspace and the hook config there; ``None`` when there is
    nothing to judge (an event the hook was installed on by hand, or the hook is off)."""
    payload = HookPayload.parse(data)
    if payload.event not in events:
        return None
    cwd = payload.cwd
    config = load_hook_config(cwd)
    if not config.enabled:
        return None
    return payload, cwd, config


def settle(
    store: StateStore, state: SessionState, judge: Callable[[SessionState], HookOutcome]
) -> HookOutcome:
    """Decide this stop with ``judge`` and save the session's state, keeping the budget
    under concurrent stops of one session.

    A block is the only decision that spends budget, so only a block takes the session's
    file lock (:meth:`StateStore.locked`): under it the state is loaded again and the stop
    decided again with the budget as saved — of eight concurrent stops with a budget of two,
    two block. An allow saves without the lock (most stops, which should not pay for it),
    never lowering the block count another stop saved for the same prompt.
    """
    outcome = judge(state)
    if not outcome.blocked:
        store.save_keeping_budget(state)
        return outcome
    with store.locked(state.cli, state.session_id, state.agent_id):
        fresh = store.load(state.cli, state.session_id, state.agent_id)
        # What this call read of the transcript is newer than what the file says.
        fresh.transcript, fresh.offset, fresh.reader = state.transcript, state.offset, state.reader
        outcome = judge(fresh)
        store.save(fresh)
    return outcome


def decide(
    run: RunView,
    config: HookConfig,
    workspace: Path,
    state: SessionState,
    *,
    stop_hook_active: bool = False,
) -> HookOutcome:
    """Allow or block this stop, updating ``state``'s budget for the run's prompt."""
    from earnest.effects import EvaluationDecision

    if not config.enabled:
        return HookOutcome.allow(disabled=True)
    if stop_hook_active and state.prompt_key:
        # A stop hook made the agent go on: still the same prompt, whatever the CLI now
        # reports as the prompt (Gemini passes the block reason back as one).
        run = replace(run, request=state.request or run.request, prompt_key=state.prompt_key)
    else:
        state.start_prompt(run.prompt_key, run.request)
        # A stop that no hook forced: whatever blocked before has been answered.
        state.consecutive_blocks = 0
    spent = max(state.blocks, state.consecutive_blocks)
    result = evaluate(run, config, workspace, spent)
    info = dict(result.metadata.get("effect_gate") or {})
    if result.decision is EvaluationDecision.RETRY:
        state.blocks += 1
        state.consecutive_blocks += 1
        state.last_decision = "block"
        return HookOutcome.block(result.reason + GUIDANCE, effect_gate=info)
    state.consecutive_blocks = 0
    if result.metadata.get(EXHAUSTED):
        state.last_decision = EXHAUSTED
        kind = info.get("would_downgrade", "completion-without-effect")
        expected = info.get("expected_effect_class", "an effect")
        message = (
            f"earnest: {EXHAUSTED}: stop allowed after {state.blocks} block(s) for this prompt; "
            f"still {kind} (expected {expected})"
        )
        return HookOutcome.allow(message, effect_gate=info, **{EXHAUSTED: True})
    state.last_decision = "allow"
    return HookOutcome.allow(effect_gate=info)


__all__ = [
    "EXHAUSTED",
    "RunView",
    "check_transcript",
    "decide",
    "evaluate",
    "prompt_key",
    "read_document_run",
    "settle",
    "started_ns",
    "stop_to_judge",
]
