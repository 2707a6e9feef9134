"""The decision every adapter shares: does this stop have the effect its request asked for?

An adapter turns its CLI's hook input and transcript into a :class:`RunView` — the user's
request, the run's tool calls as tool-result mappings, the agent's last message — and calls
:func:`decide`. The judgement itself is :class:`earnest.effects.EffectGate` (the only one):
this module feeds it the run, asks it to ``apply`` to a COMPLETE, and keeps the per-prompt
block budget that a one-shot process cannot keep in the gate.

Example:
    >>> import tempfile
    >>> from earnest.errors import InputError
from earnest.hooks.config import HookConfig
    >>> from earnest.hooks.state import SessionState
    >>> run = RunView(request="hi", prompt_key="p1", tool_results=(), final_text="Hello!")
    >>> state = SessionState(cli="claude-code", session_id="s")
    >>> decide(run, HookConfig(), Path(tempfile.mkdtemp()), state).blocked
    False
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.hooks.config import HookConfig
from earnest.hooks.outcome import HookOutcome
from earnest.hooks.state import SessionState

EXHAUSTED = "effect_gate_exhausted"


@dataclass(frozen=True)
class RunView:
    """One run as the gate needs it: everything since the user's last real prompt."""

    request: str
    prompt_key: str
    tool_results: tuple[Mapping[str, Any], ...]
    final_text: str
    turn_count: int = 0

    @classmethod
    def from_trajectory(cls, trajectory: Any, *, final_text: str = "") -> RunView:
        """The run a :class:`earnest.trajectory.Trajectory` read with ``run_only`` holds.

        ``final_text`` (the CLI's own copy of the agent's last message) wins over the
        transcript's, which can lag behind the stop.
        """
        return cls(
            request=trajectory.user_request or "",
            prompt_key=prompt_key(trajectory),
            tool_results=tuple(trajectory.tool_results()),
            final_text=final_text if final_text.strip() else (trajectory.final_message or ""),
            turn_count=int(trajectory.metadata.get("assistant_turns", 0)),
        )


def read_document_run(path: Path, formats: tuple[str, ...]) -> Any:
    """The current run of a transcript that is read whole (Gemini session, Codex rollout).

    Raises :class:`InputError` when the file is missing or in none of ``formats``.
    """
    from earnest.trajectory import ReadReport, detect_format, read_trajectories

    if not path.is_file():
        raise InputError(path, None, "transcript not found")
    found = detect_format(path)
    if found not in formats:
        raise InputError(
            path, None, f"transcript format {found or 'unknown'} is not one of {', '.join(formats)}"
        )
    report = ReadReport()
    runs = list(read_trajectories(path, format=found, report=report, run_only=True))
    if not runs:
        raise InputError(path, None, "no run found in the transcript")
    return runs[-1]


def prompt_key(trajectory: Any) -> str:
    """A stable name for the prompt that started a trajectory's run ("" if none is seen)."""
    request = trajectory.user_request
    if request is None:
        return ""
    for message in reversed(trajectory.messages):
        if message.kind == "prompt" and message.text == request:
            digest = hashlib.sha256(request.encode("utf-8")).hexdigest()[:16]
            return f"{message.index}:{message.timestamp or ''}:{digest}"
    return hashlib.sha256(request.encode("utf-8")).hexdigest()[:16]


def evaluate(run: RunView, config: HookConfig, workspace: Path) -> tuple[bool, str, dict[str, Any]]:
    """Ask the effect gate about this run: ``(downgraded, reason, metadata)``."""
    from earnest.effects import (
        EffectGate,
        EffectGateConfig,
        EvaluationDecision,
        EvaluationResult,
        expected_effect_class,
    )

    gate = EffectGate(
        EffectGateConfig(
            enabled=True,
            max_downgrades=max(config.max_downgrades, 1),
            verify_artifacts=config.verify_artifacts,
        ),
        workspace=workspace,
    )
    gate.reset()
    gate.record(run.tool_results, turn_index=run.turn_count)
    expected = expected_effect_class(run.request)
    result = gate.apply(
        EvaluationResult(EvaluationDecision.COMPLETE, reason="agent stopped"),
        content=run.final_text,
        is_qa=str(getattr(expected, "value", expected)) == "grounded_claim",
    )
    downgraded = result.decision != EvaluationDecision.COMPLETE
    return downgraded, result.reason, dict(result.metadata)


def decide(
    run: RunView,
    config: HookConfig,
    workspace: Path,
    state: SessionState,
    *,
    stop_hook_active: bool = False,
) -> HookOutcome:
    """Allow or block this stop, updating ``state``'s budget for the run's prompt."""
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
    downgraded, reason, metadata = evaluate(run, config, workspace)
    if not downgraded:
        state.consecutive_blocks = 0
        state.last_decision = "allow"
        return HookOutcome.allow(**metadata)
    budget = config.max_downgrades
    spent = state.blocks >= budget or (stop_hook_active and state.consecutive_blocks >= budget)
    if spent:
        state.consecutive_blocks = 0
        state.last_decision = EXHAUSTED
        message = (
            f"earnest: {EXHAUSTED}: stop allowed after {state.blocks} block(s) for this "
            f"prompt; still unverified: {reason}"
        )
        return HookOutcome.allow(message, **{**metadata, EXHAUSTED: True})
    state.blocks += 1
    state.consecutive_blocks += 1
    state.last_decision = "block"
    return HookOutcome.block(reason, **metadata)


__all__ = ["EXHAUSTED", "RunView", "decide", "evaluate", "prompt_key", "read_document_run"]
