"""Gate replay: run :class:`~earnest.effects.EffectGate` over a recorded trajectory.

The offline A/B for switching the gate on: what would it have done to the completions in
these logs? A session is cut into **runs**, one per real user prompt on the main chain
(the gate is ``reset()`` for each). Inside a run the tool calls are recorded turn by turn
(``record(..., turn_index=...)``) in the order the log gives them, and the gate is applied
at every point where the agent **claimed completion**:

- where a stop hook sent the agent back to work (Claude Code writes ``Stop hook feedback:``
  as a user line): the agent had stopped, so it had claimed it was done;
- at the end of a run whose last word is the agent's text — for the last run only when the
  trajectory ended normally (:attr:`Trajectory.claimed_completion`); a run that hit a limit,
  an API error, the turn cap or an interrupt claimed nothing (it is never "done").

**No workspace.** The files of a recorded run are not on this machine, so the gate runs with
``verify_artifacts=False``: a file change the agent's tools report counts, unverified (the
effects API's "an unresolvable workspace counts rather than blocks"). The replay is therefore
an upper bound on what the gate lets through, never an invented downgrade. The gate is built
with ``env={}``: ``EARNEST_EFFECT_GATE`` governs live loops, not measurements.

The request of each run (its prompt) picks the expected effect class through the gate's own
:func:`~earnest.effects.expected_effect_class` — the same heuristic the stop hooks use.

Example:
    >>> from earnest.trajectory.model import Message, Termination, ToolCall, Trajectory
    >>> t = Trajectory(
    ...     id="t", source="t.jsonl", format="earnest",
    ...     messages=(Message("user", "Fix the parser", 0, kind="prompt"),
    ...               Message("assistant", "Fixed.", 1)),
    ...     tool_calls=(ToolCall("c1", "Read", {"file_path": "p.py"}, "success", position=1),),
    ...     final_message="Fixed.", termination=Termination("normal"), user_request="Fix the parser")
    >>> replay = replay_trajectory(t)
    >>> replay.final_claim.outcome, replay.completion_without_effect
    ('downgraded', True)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from earnest.effects import (
    DEFAULT_REGISTRY,
    EffectGate,
    EffectGateConfig,
    EvaluationDecision,
    EvaluationResult,
    ToolRegistry,
)
from earnest.trajectory.model import Message, ToolCall, Trajectory
from earnest.trajectory.text import is_stop_hook_feedback, limit_reason

if TYPE_CHECKING:
    from earnest.effects.claims import ClaimCheck

ClaimOutcome = Literal["passed", "downgraded", "exhausted"]
"""``passed``: the gate let the COMPLETE stand (an effect, or a grounded answer);
``downgraded``: the gate turned it into RETRY; ``exhausted``: the gate would have
downgraded it but the run's budget (``max_downgrades``) had run out."""

ClaimPlace = Literal["stop_hook", "end_of_run"]

NO_WORKSPACE_NOTE = (
    "replayed without a workspace (the recorded files are not on this machine): file "
    "changes reported by the agent's tools count unverified (verify_artifacts=False)"
)

_EXCERPT = 300
NOT_DONE_REASON = "reports-not-done"
"""How a passed claim's reason starts when the final message said what was not done."""


@dataclass(frozen=True, slots=True)
class Claim:
    """One completion the agent claimed, and what the gate made of it."""

    run: int
    place: ClaimPlace
    outcome: ClaimOutcome
    expected_effect_class: str
    reason: str
    """The gate's reason (``completion-without-effect: ...``) for ``downgraded`` and
    ``exhausted``; what satisfied it for ``passed``."""
    reason_key: str
    """The reason without its counts, for tallying (``""`` when passed)."""
    content: str
    """The start of the agent's text at that point."""
    tool_calls: int
    """Tool calls recorded in the run up to this claim."""

    @property
    def without_effect(self) -> bool:
        """The gate found no effect (whether or not its budget let it say so)."""
        return self.outcome != "passed"

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "place": self.place,
            "outcome": self.outcome,
            "expected_effect_class": self.expected_effect_class,
            "reason": self.reason,
            "tool_calls": self.tool_calls,
            "content": self.content,
        }


@dataclass(frozen=True, slots=True)
class RunReplay:
    """One run: a user prompt and what the agent did until the next one."""

    index: int
    request: str | None
    end: str
    """``claim`` (the agent had the last word), ``no_claim`` (ended normally with no
    text), or why it stopped: a termination reason (``max_turns``, ``api_error``,
    ``usage_limit``, ``interrupted``, ``truncated``, ``unknown``) or ``cut`` (the user's
    next prompt came while the agent was still working)."""
    tool_calls: int
    claims: tuple[Claim, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "request": _clip(self.request or "", _EXCERPT) if self.request else None,
            "end": self.end,
            "tool_calls": self.tool_calls,
            "claims": [c.to_dict() for c in self.claims],
        }


@dataclass(frozen=True, slots=True)
class TrajectoryReplay:
    """The gate replayed over one trajectory."""

    trajectory_id: str
    source: str
    format: str
    termination: str
    runs: tuple[RunReplay, ...]
    ordered: bool
    """False when the source gave no order between messages and tool calls: the whole
    trajectory was then replayed as one run with one claim at the end."""
    final_claim: Claim | None = None
    """The claim the trajectory ended on (None unless it ended normally with the agent's
    text)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    final_checks: tuple[ClaimCheck, ...] | None = None
    """The final message's claims as the gate checked them at the final claim
    (``strict_claims``), verified or not; ``None`` when there was no final claim. Not in
    :meth:`to_dict`: ``trajectory score`` reports them as its ``claims`` field."""

    @property
    def claims(self) -> tuple[Claim, ...]:
        return tuple(c for r in self.runs for c in r.claims)

    @property
    def completion_without_effect(self) -> bool:
        """The run ended normally with the agent claiming completion, and the gate found
        no effect behind that final claim (it downgraded it, or would have but for its
        budget)."""
        return self.final_claim is not None and self.final_claim.without_effect

    def count(self, outcome: ClaimOutcome) -> int:
        return sum(1 for c in self.claims if c.outcome == outcome)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "trajectory_id": self.trajectory_id,
            "format": self.format,
            "termination": self.termination,
            "ordered": self.ordered,
            "runs": len(self.runs),
            "claims": len(self.claims),
            "passed": self.count("passed"),
            "downgraded": self.count("downgraded"),
            "exhausted": self.count("exhausted"),
            "completion_without_effect": self.completion_without_effect,
            "final_claim": self.final_claim.to_dict() if self.final_claim else None,
            "run_details": [r.to_dict() for r in self.runs],
            "notes": list(self.notes),
        }


def replay_config(
    *,
    max_downgrades: int = 2,
    registry: ToolRegistry = DEFAULT_REGISTRY,
    strict_claims: bool = True,
) -> EffectGateConfig:
    """The gate configuration replay uses: enabled, no artifact verification
    (``strict_claims``: the final message's claims are checked too)."""
    return EffectGateConfig(
        enabled=True,
        max_downgrades=max_downgrades,
        verify_artifacts=False,
        registry=registry,
        strict_claims=strict_claims,
    )


class _RunState:
    """The run being replayed: its gate, calls not yet recorded, and the agent's last text."""

    __slots__ = ("calls", "checks", "claims", "gate", "index", "last", "open", "pending",
                 "request", "text")  # fmt: skip

    def __init__(self, gate: EffectGate, index: int, request: str | None) -> None:
        self.gate = gate
        self.index = index
        self.request = request
        self.calls = 0
        self.pending: list[ToolCall] = []
        self.claims: list[Claim] = []
        self.checks: tuple[ClaimCheck, ...] = ()  # the claim checks of the latest claim
        self.text = ""
        self.open = False  # the agent's text is its latest act: a stop here is a claim
        self.last = "start"  # the kind of the latest main-chain event
        # A trajectory is one conversation: a later run is its next user turn, and what the
        # earlier runs changed still backs a claimed action or a summary of their work.
        gate.reset(keep_conversation=index > 0)

    @property
    def started(self) -> bool:
        return self.calls > 0 or self.last != "start"

    def flush(self) -> None:
        """Record the pending calls, one ``record()`` per assistant turn, in log order."""
        pending = self.pending
        start = 0
        while start < len(pending):
            turn = pending[start].turn_index
            end = start + 1
            while end < len(pending) and pending[end].turn_index == turn:
                end += 1
            self.gate.record([c.as_tool_result() for c in pending[start:end]], turn_index=turn)
            start = end
        pending.clear()

    def claim(self, place: ClaimPlace, content: str) -> Claim:
        self.flush()
        done = EvaluationResult(EvaluationDecision.COMPLETE, 1.0)
        verdict = self.gate.apply(done, content=content, request=self.request)
        self.checks = self.gate.claim_checks
        info = verdict.metadata.get("effect_gate")
        info = info if isinstance(info, dict) else {}
        expected = str(info.get("expected_effect_class", ""))
        if verdict.decision is EvaluationDecision.RETRY:
            outcome: ClaimOutcome = "downgraded"
            reason = verdict.reason
            key = _reason_key(str(verdict.metadata.get("effect_gate_downgrade", "")), info)
        elif verdict.metadata.get("effect_gate_exhausted"):
            outcome = "exhausted"
            kind = str(info.get("would_downgrade", "completion-without-effect"))
            key = _reason_key(kind, info)
            reason = f"{key} (budget of {self.gate.config.max_downgrades} downgrades spent)"
        else:
            outcome = "passed"
            reason = _satisfied_text(info.get("satisfied_by"))
            if info.get("not_a_completion"):
                reason = f"{NOT_DONE_REASON}: {info['not_a_completion']}"
            key = ""
        made = Claim(
            run=self.index,
            place=place,
            outcome=outcome,
            expected_effect_class=expected,
            reason=reason,
            reason_key=key,
            content=_clip(content, _EXCERPT),
            tool_calls=self.calls,
        )
        self.claims.append(made)
        self.open = False
        return made


def replay_trajectory(
    trajectory: Trajectory,
    *,
    max_downgrades: int = 2,
    registry: ToolRegistry = DEFAULT_REGISTRY,
    strict_claims: bool = True,
) -> TrajectoryReplay:
    """Replay the effect gate over ``trajectory`` (see the module docstring)."""
    config = replay_config(
        max_downgrades=max_downgrades, registry=registry, strict_claims=strict_claims
    )
    gate = EffectGate(config, env={})
    t = trajectory
    notes = [NO_WORKSPACE_NOTE]
    ordered = all(c.position is not None for c in t.tool_calls)
    chain = _primary_chain(t)
    runs: list[RunReplay] = []
    final_claim: Claim | None = None

    if not ordered:
        notes.append("no order between messages and tool calls: replayed as one run")
        state = _RunState(gate, 0, t.user_request)
        state.pending.extend(t.tool_calls)
        state.calls = len(t.tool_calls)
        claims: tuple[Claim, ...] = ()
        if t.claimed_completion:
            final_claim = state.claim("end_of_run", t.final_message or "")
            claims = (final_claim,)
        end = "claim" if claims else _final_end(t)
        return TrajectoryReplay(
            t.id, t.source, t.format, t.termination.reason,
            (RunReplay(0, t.user_request, end, state.calls, claims),),
            False, final_claim, tuple(notes), state.checks if claims else None,
        )  # fmt: skip

    state = _RunState(gate, 0, None)
    for event in _timeline(t):
        if isinstance(event, ToolCall):
            state.pending.append(event)
            state.calls += 1
            if event.is_sidechain == chain:
                state.open = False
                state.last = "call"
            continue
        m = event
        if m.is_sidechain != chain:
            continue  # a subagent's conversation neither starts nor ends the main run
        if m.role == "user" and m.kind == "prompt":
            if state.started:
                runs.append(_close(state, t, final=False))
                state = _RunState(gate, len(runs), m.text)
            else:
                state.request = m.text
            continue
        if m.role == "assistant" and m.kind == "text":
            if m.text.strip():
                state.text = m.text
                state.open = True
                state.last = "text"
        elif m.role == "assistant" and m.kind == "synthetic":
            state.open = False
            stripped = m.text.strip()
            interrupted = stripped.startswith("No response requested")
            state.last = "interrupted" if interrupted else limit_reason(stripped)
        elif m.kind == "interrupt":
            state.open = False
            state.last = "interrupted"
        elif m.role == "user" and is_stop_hook_feedback(m.text):
            state.claim("stop_hook", state.text if state.open else "")
            state.last = "stop_hook"
    if state.request is None:
        state.request = t.user_request
    last_run = _close(state, t, final=True)
    runs.append(last_run)
    if t.claimed_completion and last_run.claims:
        final_claim = last_run.claims[-1]
    return TrajectoryReplay(
        t.id, t.source, t.format, t.termination.reason, tuple(runs), True, final_claim,
        tuple(notes),
        state.checks if final_claim is not None and final_claim.place == "end_of_run" else None,
    )  # fmt: skip


class ReplayTally:
    """Totals over many replays: the figures of ``earnest trajectory replay-gate``.

    Example:
        >>> tally = ReplayTally()
        >>> tally.to_dict()["claims"]
        0
    """

    def __init__(self, max_downgrades: int = 2) -> None:
        self.max_downgrades = max_downgrades
        self.trajectories = 0
        self.runs = 0
        self.run_ends: Counter[str] = Counter()
        self.outcomes: Counter[str] = Counter()
        self.places: dict[str, Counter[str]] = {}
        self.reasons: Counter[str] = Counter()
        self.formats: dict[str, Counter[str]] = {}
        self.trajectories_downgraded = 0
        self.runs_exhausted = 0
        self.final_without_effect = 0
        self.unordered = 0

    def add(self, replay: TrajectoryReplay) -> None:
        self.trajectories += 1
        self.runs += len(replay.runs)
        self.unordered += not replay.ordered
        fmt = self.formats.setdefault(replay.format, Counter())
        fmt["trajectories"] += 1
        for run in replay.runs:
            self.run_ends[run.end] += 1
            self.runs_exhausted += any(c.outcome == "exhausted" for c in run.claims)
            for claim in run.claims:
                self.outcomes[claim.outcome] += 1
                self.places.setdefault(claim.place, Counter())[claim.outcome] += 1
                fmt["claims"] += 1
                fmt[claim.outcome] += 1
                if claim.reason_key:
                    self.reasons[claim.reason_key] += 1
        self.trajectories_downgraded += replay.count("downgraded") > 0
        self.final_without_effect += replay.completion_without_effect

    @property
    def claims(self) -> int:
        return sum(self.outcomes.values())

    def to_dict(self) -> dict[str, Any]:
        """The ``summary`` object of ``earnest trajectory replay-gate --format json``."""
        outcomes = ("passed", "downgraded", "exhausted")
        return {
            "trajectories": self.trajectories,
            "runs": self.runs,
            "run_ends": dict(self.run_ends.most_common()),
            "claims": self.claims,
            "passed": self.outcomes.get("passed", 0),
            "downgraded": self.outcomes.get("downgraded", 0),
            "exhausted": self.outcomes.get("exhausted", 0),
            "trajectories_downgraded": self.trajectories_downgraded,
            "runs_exhausted": self.runs_exhausted,
            "final_completion_without_effect": self.final_without_effect,
            "by_place": {
                place: {o: counts.get(o, 0) for o in outcomes}
                for place, counts in sorted(self.places.items())
            },
            "reasons": dict(self.reasons.most_common()),
            "formats": {
                name: {k: counts.get(k, 0) for k in ("trajectories", "claims", *outcomes)}
                for name, counts in sorted(self.formats.items())
            },
            "unordered_trajectories": self.unordered,
            "max_downgrades": self.max_downgrades,
            "workspace": "none",
            "note": NO_WORKSPACE_NOTE,
        }


def _close(state: _RunState, t: Trajectory, *, final: bool) -> RunReplay:
    """End a run: a final claim where the agent had the last word, then the run's record."""
    if final:
        # The log may end right after a stop hook's block: that block was the last claim.
        if t.claimed_completion and not (state.last == "stop_hook" and state.claims):
            state.claim("end_of_run", t.final_message or "")
        end = "claim" if t.claimed_completion else _final_end(t)
    else:
        if state.open:
            state.claim("end_of_run", state.text)
        if state.last in ("text", "stop_hook"):
            end = "claim"
        elif state.last in ("interrupted", "api_error", "usage_limit"):
            end = state.last
        elif state.last == "call":
            end = "cut"
        else:
            end = "no_claim"
    state.flush()
    return RunReplay(state.index, state.request, end, state.calls, tuple(state.claims))


def _final_end(t: Trajectory) -> str:
    return "no_claim" if t.termination.is_normal else t.termination.reason


def _primary_chain(t: Trajectory) -> bool:
    """The sidechain flag of the run's own chain (True for subagent-only logs)."""
    has_main = any(not m.is_sidechain for m in t.messages) or any(
        not c.is_sidechain for c in t.tool_calls
    )
    return not has_main


def _timeline(t: Trajectory) -> Iterator[Message | ToolCall]:
    """Messages and tool calls in log order (a call precedes the message at its position).

    A message repeated with the same role, kind, text and timestamp is a copy of history
    (Claude Code re-writes a resumed conversation into the file; its tool calls keep their
    ids and are read once): copies are passed over, or the copied runs would replay with
    no tool calls.
    """
    seen: set[tuple[str, str, str, str]] = set()
    keyed: list[tuple[int, int, int, Message | ToolCall]] = []
    for n, m in enumerate(t.messages):
        if m.timestamp:
            key = (m.timestamp, m.role, m.kind, m.text)
            if key in seen:
                continue
            seen.add(key)
        keyed.append((m.index, 1, n, m))
    keyed += [(c.position or 0, 0, n, c) for n, c in enumerate(t.tool_calls)]
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    for item in keyed:
        yield item[3]


def _reason_key(kind: str, info: dict[str, Any]) -> str:
    """``kind: expected X; what was observed`` without counts, so reasons tally."""
    kind = kind or "completion-without-effect"
    expected = str(info.get("expected_effect_class", "?"))
    attempted = info.get("attempted_tool_calls")
    succeeded = info.get("successful_tool_calls")
    if kind != "completion-without-effect":
        observed = "claims in the answer did not hold up"
    elif not attempted:
        observed = "no tool calls"
    elif not succeeded:
        observed = "no tool call succeeded"
    elif expected == "grounded_claim":
        observed = "no read, change or check among the successful calls"
    else:
        observed = "no change or check among the successful calls"
    return f"{kind}: expected {expected}; {observed}"


def _satisfied_text(satisfied: Any) -> str:
    if not isinstance(satisfied, dict):
        return ""
    if "grounding" in satisfied:
        return f"grounded claim ({satisfied['grounding']})"
    if "earlier_turns" in satisfied:
        return f"backed by earlier turns ({satisfied['earlier_turns']} state-changing call(s))"
    effect = satisfied.get("effect")
    if isinstance(effect, dict):
        what = str(effect.get("kind", "effect"))
        target = effect.get("command") or ", ".join(effect.get("artifact_paths") or ())
        text = f"{effect.get('effect_class', 'effect')}: {what}"
        if target:
            text += f" ({_clip(str(target), 120)})"
        if satisfied.get("verified") is False:
            text += ", unverified"
        return text
    return ""


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = [
    "NO_WORKSPACE_NOTE",
    "Claim",
    "ClaimOutcome",
    "ClaimPlace",
    "ReplayTally",
    "RunReplay",
    "TrajectoryReplay",
    "replay_config",
    "replay_trajectory",
]
