"""``earnest hook codex``: the effect gate as a Codex Stop (or SubagentStop) hook.

Codex sends ``{session_id, turn_id, transcript_path, cwd, hook_event_name, model,
permission_mode, stop_hook_active, last_assistant_message}``; SubagentStop adds ``agent_id``,
``agent_type`` and ``agent_transcript_path``. The run's tool calls come from the rollout file
at ``transcript_path`` (``~/.codex/sessions/.../rollout-*.jsonl``, read whole by
:mod:`earnest.trajectory` as format ``codex-rollout``: function calls, shell calls and patch
results since the last user message). To block it prints ``{"decision": "block", "reason":
...}``; Codex continues the turn with the reason as the next prompt.

What it can see: the calls the rollout records (``function_call``/``_output``,
``local_shell_call``, ``exec_command_end``, ``patch_apply_end``). What it cannot: a session
without a rollout (``transcript_path`` is null for ephemeral runs: the stop is allowed, with a
line on stderr), and anything done outside the tools.

Example:
    >>> render(HookOutcome.block("completion-without-effect: nothing written"))
    '{"decision": "block", "reason": "completion-without-effect: nothing written"}'
"""

from __future__ import annotations

from dataclasses import replace

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
from earnest.hooks.state import StateStore
from earnest.hooks.stdin import STDIN

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CLI = "codex"
STOP_EVENTS = ("", "Stop", "SubagentStop")
FORMATS = ("codex-rollout",)


def render(outcome: HookOutcome) -> str:
    """Codex's Stop output (it accepts no keys beyond its schema's)."""
    return decision_json(outcome)


def _read_run(transcript: Path) -> Any:
    from earnest.trajectory.readers.codex_rollout import run_start

    check_transcript(transcript)
    return read_document_run(transcript, FORMATS, start=run_start(transcript))


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one Stop / SubagentStop; returns what to print on stdout."""
    stop = stop_to_judge(data, STOP_EVENTS)
    if stop is None:
        return ""
    payload, cwd, config = stop
    agent_id = ""
    key = "transcript_path"
    if payload.event == "SubagentStop":
        agent_id = payload.text("agent_id") or "subagent"
        key = "agent_transcript_path"
    transcript = payload.path(key)
    if transcript is None:
        raise InputError(STDIN, key, "null: this Codex session keeps no rollout to read")
    # A short session's transcript may not exist yet when the stop is called.
    # Only the current run is parsed: from its prompt, found by reading the rollout backwards.
    trajectory = once_created(transcript, lambda: _read_run(transcript))
    run = RunView.from_trajectory(trajectory, final_text=payload.text("last_assistant_message"))
    if not run.prompt_key:
        run = replace(run, prompt_key=payload.text("turn_id"))
    store = store or StateStore()
    session_id = payload.session_id or "unknown-session"
    state = store.load(CLI, session_id, agent_id)
    active = payload.stop_hook_active
    outcome = settle(store, state, lambda s: decide(run, config, cwd, s, stop_hook_active=active))
    return render(outcome)


__all__ = ["CLI", "FORMATS", "STOP_EVENTS", "handle", "render"]
