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

import json
from dataclasses import replace

from earnest.errors import InputError
from earnest.hooks.config import load_hook_config
from earnest.hooks.core import RunView, decide, read_document_run
from earnest.hooks.outcome import HookOutcome
from earnest.hooks.state import StateStore
from earnest.hooks.stdin import STDIN, HookPayload

CLI = "codex"
STOP_EVENTS = ("", "Stop", "SubagentStop")
FORMATS = ("codex-rollout",)


def render(outcome: HookOutcome) -> str:
    """Codex's Stop output (it accepts no keys beyond its schema's)."""
    if outcome.blocked:
        return json.dumps({"decision": "block", "reason": outcome.reason})
    if outcome.system_message:
        return json.dumps({"systemMessage": outcome.system_message})
    return ""


def handle(data: bytes, store: StateStore | None = None) -> str:
    """Judge one Stop / SubagentStop; returns what to print on stdout."""
    payload = HookPayload.parse(data)
    if payload.event not in STOP_EVENTS:
        return ""  # installed on another event by hand: nothing to judge there
    cwd = payload.cwd
    config = load_hook_config(cwd)
    if not config.enabled:
        return ""
    agent_id = ""
    key = "transcript_path"
    if payload.event == "SubagentStop":
        agent_id = payload.text("agent_id") or "subagent"
        key = "agent_transcript_path"
    transcript = payload.path(key)
    if transcript is None:
        raise InputError(STDIN, key, "null: this Codex session keeps no rollout to read")
    trajectory = read_document_run(transcript, FORMATS)
    run = RunView.from_trajectory(trajectory, final_text=payload.text("last_assistant_message"))
    if not run.prompt_key:
        run = replace(run, prompt_key=payload.text("turn_id"))
    store = store or StateStore()
    state = store.load(CLI, payload.session_id or "unknown-session", agent_id)
    outcome = decide(run, config, cwd, state, stop_hook_active=payload.stop_hook_active)
    store.save(state)
    return render(outcome)


__all__ = ["CLI", "FORMATS", "STOP_EVENTS", "handle", "render"]
