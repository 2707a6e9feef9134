"""The effect gate: COMPLETE requires a verifiable effect (ADR-010).

Wire it around a loop's evaluation seam: ``reset()`` when a run starts, ``record()`` each
turn's tool results, then ``apply()`` to the evaluator's result. When enabled:

- non-COMPLETE decisions pass through untouched;
- team execution (``execution_mode="team"``) is bypassed with an annotation, because
  sub-loops' effects are invisible to this ledger;
- the expected effect class comes from ``is_qa`` / a forced completion
  (``metadata["forced_completion"]``) → grounded claim, then ``task_type``
  (:func:`~earnest.effects.expectation.effect_class_for_task_type`), then the user's
  ``request`` text (:func:`~earnest.effects.expectation.expected_effect_class`); unknown →
  the lenient grounded-claim path;
- any verified effect (a check, or a delta that holds up in the workspace) satisfies any class;
  a grounded-claim expectation is also met by :class:`GroundedClaimChecker` (read evidence,
  existing file references, or a direct answer with no tool calls at all);
- a final message that says plainly what was not done and claims nothing done
  (:func:`~earnest.effects.claimed.reports_not_done`: "I could not create newfile.py") is
  no completion claim: it stands, annotated ``not_a_completion``;
- otherwise the COMPLETE becomes a new ``RETRY`` with score at most 0.4, reason
  ``completion-without-effect: <what is missing>`` and metadata
  ``completion_without_effect: True``; with ``strict_claims``, claims in ``content`` that do
  not hold up downgrade the same way with reason ``unverified-claim: ...``;
- at most ``max_downgrades`` downgrades per run; after that the COMPLETE stands, annotated
  ``effect_gate_exhausted: True``, so the gate can never trap a loop in RETRY.

At gate time a delta's artifact is checked in the workspace: with a baseline
(``reset(baseline=True)``) it must have been created, modified or deleted during the run;
without one it must exist (or, for a deletion, be gone), and the result is annotated
``baseline: "unavailable"``. A file that is gone drops its delta unless the delta was the
deletion. Paths outside the workspace never count. An unresolvable workspace (none given, or
not a folder) lets deltas count unverified rather than block.

Disabled (the default) it is a strict no-op: ``apply`` returns the very object it was given
and ``record`` records nothing. ``EARNEST_EFFECT_GATE=1`` / ``0`` (also true/false, yes/no,
on/off), read once at construction, overrides ``EffectGateConfig.enabled`` in either
direction: an operator can switch a deployed loop's gate on or off without a code change.

**Cost.** ``apply`` does O(1) work when the run has a verified check or a delta without
artifacts, and otherwise stats artifacts newest first, stopping at the first that holds up.
Artifact verdicts are cached only within one ``apply``: every ``apply`` looks at the workspace
afresh, so a file that changed after its write was recorded (or after ``record([])``) counts
at the next evaluation. Within one ``apply`` each path is ``lstat``-ed at most once.

Example:
    >>> from earnest.effects import EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult
    >>> gate = EffectGate(EffectGateConfig(enabled=True), env={})
    >>> gate.reset()
    >>> gate.record([{"tool_name": "Read", "args": {"file_path": "a.py"}}])
    >>> out = gate.apply(EvaluationResult(EvaluationDecision.COMPLETE, 0.9), task_type="bugfix")
    >>> out.decision.value, out.score, out.reason.split(":")[0]
    ('retry', 0.4, 'completion-without-effect')
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from earnest.effects.claim_words import may_claim
from earnest.effects.expectation import effect_class_for_task_type, expected_effect_class
from earnest.effects.ledger import EffectLedger
from earnest.effects.models import EffectClass, EffectEvidence, EvaluationDecision, EvaluationResult
from earnest.effects.registry import DEFAULT_REGISTRY, ToolRegistry
from earnest.effects.workspace import ArtifactCheck, ArtifactStatus, Workspace, WorkspaceBaseline
from earnest.errors import InputError

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

    from earnest.effects.claims import ClaimCheck
    from earnest.effects.grounding import GroundedClaimChecker

ENV_VAR = "EARNEST_EFFECT_GATE"
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
TEAM_MODES = frozenset({"team", "team_execution"})
DOWNGRADE_SCORE_CAP = 0.4


@dataclass(frozen=True, eq=False)
class EffectGateConfig:
    """How the gate behaves. Disabled by default (the flag-graduation policy)."""

    enabled: bool = False
    max_downgrades: int = 2
    verify_artifacts: bool = True
    strict_claims: bool = True
    registry: ToolRegistry = field(default=DEFAULT_REGISTRY)
    score_cap: float = DOWNGRADE_SCORE_CAP


def resolve_enabled(config: EffectGateConfig, env: Mapping[str, str] | None = None) -> bool:
    """``EARNEST_EFFECT_GATE`` when set (non-empty), else ``config.enabled``.

    Raises :class:`~earnest.errors.InputError` naming the variable for any other value.
    """
    environ = os.environ if env is None else env
    raw = environ.get(ENV_VAR, "").strip().lower()
    if not raw:
        return bool(config.enabled)
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise InputError(
        "environment", ENV_VAR, f"expected 1/0, true/false, yes/no or on/off, got {raw!r}"
    )


_EXPECT_TEXT = {
    EffectClass.WORKSPACE_DELTA: (
        "a workspace_delta (a file created, changed or deleted in the workspace during this "
        "run) or a verified_check (a test, lint, type-check or build command that succeeded)"
    ),
    EffectClass.GROUNDED_CLAIM: (
        "a grounded_claim (a successful read, search or other tool feedback, or a file named "
        "in the answer that exists in the workspace) or any verified effect"
    ),
    EffectClass.VERIFIED_CHECK: "a verified_check (a test, lint, type-check or build command that succeeded)",
}


class EffectGate:
    """The precondition on COMPLETE: ``reset`` → ``record`` per turn → ``apply``."""

    def __init__(
        self,
        config: EffectGateConfig | None = None,
        *,
        workspace: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config if config is not None else EffectGateConfig()
        self.enabled = resolve_enabled(self.config, env)
        self.ledger = EffectLedger(self.config.registry)
        self._checker: GroundedClaimChecker | None = None
        self._workspace_root = workspace
        self.workspace: Workspace | None = Workspace(workspace) if workspace is not None else None
        self.baseline_note: str | None = None
        self.downgrades = 0
        self._turn = 0
        self._cache: dict[str, ArtifactCheck] = {}
        self.claim_checks: tuple[ClaimCheck, ...] = ()
        """Every claim the last :meth:`apply` checked (``strict_claims``), verified or not."""

    # -- the three methods -----------------------------------------------------------------

    def reset(
        self, *, baseline: bool | WorkspaceBaseline = False, keep_conversation: bool = False
    ) -> None:
        """Start a run: clear the ledger and the downgrade budget; optionally snapshot the
        workspace so that only changes made from now on count.

        ``baseline`` may also be a :class:`WorkspaceBaseline` captured earlier (for example by
        a session-start hook and reloaded with :meth:`WorkspaceBaseline.from_dict`).
        ``keep_conversation=True``: the new run is the next user turn of the same
        conversation; the earlier runs' state-changing calls still back a claimed action
        ("I've sent the certificate") and a summary of their work ("All set") in a turn that
        asked for nothing new and made no call.
        """
        if not self.enabled:
            return
        self.ledger.reset(keep_conversation=keep_conversation)
        self.downgrades = 0
        self._turn = 0
        self._cache.clear()
        self.baseline_note = None
        if self._workspace_root is None:
            self.workspace = None
            if baseline is not False:
                self.baseline_note = "no workspace given: no baseline"
            return
        captured: WorkspaceBaseline | None = None
        if isinstance(baseline, WorkspaceBaseline):
            captured = baseline
        elif baseline:
            try:
                captured = WorkspaceBaseline.capture(self._workspace_root)
            except ValueError as exc:
                self.baseline_note = str(exc)
        self.workspace = Workspace(self._workspace_root, captured)

    def record(
        self, tool_results: Iterable[Mapping[str, Any]], *, turn_index: int | None = None
    ) -> None:
        """Add one turn's tool results to the run's ledger (nothing when disabled)."""
        if not self.enabled:
            return
        if turn_index is None:
            self._turn += 1
            turn_index = self._turn
        else:
            self._turn = max(self._turn, turn_index)
        self.ledger.record(tool_results, turn_index=turn_index)

    def apply(
        self,
        evaluation: EvaluationResult,
        *,
        content: str = "",
        task_type: str | None = None,
        is_qa: bool = False,
        execution_mode: str | None = None,
        request: str | None = None,
    ) -> EvaluationResult:
        """Gate a COMPLETE on effect evidence; everything else passes through."""
        self.claim_checks = ()
        if not self.enabled or evaluation.decision is not EvaluationDecision.COMPLETE:
            return evaluation
        if execution_mode is not None and execution_mode.strip().lower() in TEAM_MODES:
            return _annotate(evaluation, {"effect_gate": {"bypassed": "team_execution"}})

        # The workspace may have changed since the last evaluation, recorded or not: verdicts
        # from an earlier apply are never reused.
        self._cache.clear()
        if self.workspace is not None:
            self.workspace.clear_cache()
        expected = self.expected_class(
            evaluation, task_type=task_type, is_qa=is_qa, request=request, content=content
        )
        satisfied, dropped = self._satisfying(expected, content)
        if (
            satisfied is None
            and (self.ledger.earlier_changes or self.ledger.earlier_action_tools)
            and self.ledger.attempted == 0
            and not self._asks_for_work(evaluation, task_type=task_type, is_qa=is_qa,
                                        request=request)
        ):  # fmt: skip
            # "All set": a turn that asked for nothing new and made no call, after earlier
            # turns of this conversation changed things — a summary of their work.
            earlier = self.ledger.earlier_changes + len(self.ledger.earlier_action_tools)
            satisfied = {"earlier_turns": earlier}
        failures: tuple[ClaimCheck, ...] = ()
        if self.config.strict_claims and content and may_claim(content):
            # Imported here: a message with no claim word (earnest.effects.claim_words) claims
            # nothing, and a stop hook should not pay for the claim grammar then.
            from earnest.effects.claims import extract_claims, verify_claims

            checks = verify_claims(extract_claims(content), self.ledger, self.workspace)
            self.claim_checks = checks
            failures = tuple(c for c in checks if not c.verified)
        info: dict[str, Any] = {
            "expected_effect_class": expected.value,
            "baseline": self._baseline_label(),
        }
        if satisfied is not None and not failures:
            info["satisfied_by"] = satisfied
            return _annotate(evaluation, {"effect_gate": info})
        if satisfied is None and not failures and content:
            from earnest.effects.claimed import reports_not_done

            if reports_not_done(content):
                # "I could not create newfile.py": the honest answer the downgrade's advice
                # invites claims nothing done, so there is no completion to back.
                info["not_a_completion"] = "the final message says what was not done"
                return _annotate(evaluation, {"effect_gate": info})

        info.update(self.ledger.summary())
        if dropped:
            info["dropped_artifacts"] = [{"path": p, "status": s.value} for p, s in dropped[:10]]
        if failures:
            info["unverified_claims"] = [
                {"claim": f.claim.render(), "why": f.why} for f in failures
            ]
        if satisfied is None:
            kind = "completion-without-effect"
            reason = f"{kind}: expected {_EXPECT_TEXT[expected]}; {self._observed(dropped)}"
        else:
            kind = "unverified-claim"
            listed = "; ".join(f"{f.claim.render()} ({f.why})" for f in failures)
            reason = f"{kind}: {listed}"
        if self.downgrades >= max(0, int(self.config.max_downgrades)):
            info["would_downgrade"] = kind
            return _annotate(evaluation, {"effect_gate_exhausted": True, "effect_gate": info})
        self.downgrades += 1
        metadata = {**evaluation.metadata, "effect_gate": info, "effect_gate_downgrade": kind}
        if satisfied is None:
            metadata["completion_without_effect"] = True
        else:
            metadata["unverified_claims"] = [f.claim.render() for f in failures]
        return EvaluationResult(
            decision=EvaluationDecision.RETRY,
            score=min(evaluation.score, self.config.score_cap),
            reason=reason,
            metrics=dict(evaluation.metrics),
            metadata=metadata,
        )

    # -- helpers ---------------------------------------------------------------------------

    @staticmethod
    def expected_class(
        evaluation: EvaluationResult,
        *,
        task_type: str | None = None,
        is_qa: bool = False,
        request: str | None = None,
        content: str = "",
    ) -> EffectClass:
        """The effect class this completion must evidence (unknown → grounded claim).

        With no request to read (a headless log records none) or one that gives no
        opinion, a final message that claims a change expects a workspace delta.
        """
        if (
            is_qa
            or evaluation.metadata.get("forced_completion")
            or evaluation.metadata.get("forced_task_completion")
        ):
            return EffectClass.GROUNDED_CLAIM
        expected = effect_class_for_task_type(task_type)
        if expected is None and request:
            expected = expected_effect_class(request)
        if expected is None and content:
            from earnest.effects.claimed import claims_a_change

            if claims_a_change(content):
                expected = EffectClass.WORKSPACE_DELTA
        return expected or EffectClass.GROUNDED_CLAIM

    @staticmethod
    def _asks_for_work(
        evaluation: EvaluationResult,
        *,
        task_type: str | None,
        is_qa: bool,
        request: str | None,
    ) -> bool:
        """Whether the task type or the request (not the final message) asks for an effect."""
        if is_qa or evaluation.metadata.get("forced_completion"):
            return False
        expected = effect_class_for_task_type(task_type)
        if expected is None and request:
            expected = expected_effect_class(request)
        return expected in {EffectClass.WORKSPACE_DELTA, EffectClass.VERIFIED_CHECK}

    @property
    def checker(self) -> GroundedClaimChecker:
        """The grounded-claim checker, built when a grounded claim is first judged (a stop
        hook judging a change request never needs it, nor its import)."""
        if self._checker is None:
            from earnest.effects.grounding import GroundedClaimChecker

            self._checker = GroundedClaimChecker()
        return self._checker

    def _baseline_label(self) -> str:
        ws = self.workspace
        if ws is None or not ws.resolvable:
            return "no-workspace"
        return ws.baseline.mode if ws.baseline is not None else "unavailable"

    def check_artifact(self, reference: str) -> ArtifactCheck | None:
        """The verdict on one artifact path (cached until the next ``apply``); None when
        there is no usable workspace."""
        ws = self.workspace
        if ws is None or not ws.resolvable:
            return None
        hit = self._cache.get(reference)
        if hit is None:
            hit = self._cache[reference] = ws.check(reference)
        return hit

    def _holds(self, evidence: EffectEvidence, status: ArtifactStatus) -> bool:
        if status is ArtifactStatus.OUTSIDE:
            return False
        if evidence.removes:
            return status in {
                ArtifactStatus.DELETED,
                ArtifactStatus.UNKNOWN,
                ArtifactStatus.MISSING,
            }
        return status.changed or status is ArtifactStatus.EXISTS

    def _satisfying(
        self, expected: EffectClass, content: str
    ) -> tuple[dict[str, Any] | None, list[tuple[str, ArtifactStatus]]]:
        ledger = self.ledger
        if ledger.checks:
            return {"effect": ledger.checks[-1].to_dict()}, []
        if ledger.pathless_deltas:
            return {"effect": ledger.pathless_deltas[-1].to_dict(), "verified": False}, []
        if ledger.artifacts:
            found, dropped = self._scan_artifacts()
            if found is not None:
                return found, []
        else:
            dropped = []
        if expected is EffectClass.GROUNDED_CLAIM:
            grounding = self.checker.check(content, ledger, self.workspace)
            if grounding.grounded:
                return {
                    "grounding": grounding.basis,
                    "references": list(grounding.references),
                }, dropped
        return None, dropped

    def _scan_artifacts(self) -> tuple[dict[str, Any] | None, list[tuple[str, ArtifactStatus]]]:
        """The newest artifact delta that holds up in the workspace, else what was dropped."""
        ledger = self.ledger
        usable = (
            self.config.verify_artifacts
            and self.workspace is not None
            and self.workspace.resolvable
        )
        if not usable:
            last = next(reversed(ledger.artifacts.values()))
            why = (
                "verification off" if not self.config.verify_artifacts else "workspace unresolvable"
            )
            return {"effect": last.to_dict(), "verified": False, "note": why}, []
        dropped: list[tuple[str, ArtifactStatus]] = []
        for ref in reversed(ledger.artifacts):
            evidence = ledger.artifacts[ref]
            check = self.check_artifact(ref)
            assert check is not None
            if self._holds(evidence, check.status):
                satisfied = {"effect": evidence.to_dict(), "artifact": ref,
                             "status": check.status.value, "verified": True}  # fmt: skip
                return satisfied, dropped
            dropped.append((ref, check.status))
        return None, dropped

    def _observed(self, dropped: list[tuple[str, ArtifactStatus]]) -> str:
        ledger = self.ledger
        if ledger.attempted == 0:
            return "no tool calls were made in this run"
        parts = [f"{ledger.attempted} tool call(s), {ledger.succeeded} succeeded"]
        if dropped:
            shown = ", ".join(f"{p} ({_STATUS_TEXT.get(s, s.value)})" for p, s in dropped[:5])
            more = f" and {len(dropped) - 5} more" if len(dropped) > 5 else ""
            parts.append(f"no file change held up in the workspace: {shown}{more}")
        elif ledger.succeeded:
            parts.append("none changed the workspace or ran a check")
        return "; ".join(parts)


_STATUS_TEXT = {
    ArtifactStatus.UNCHANGED: "unchanged since the run began",
    ArtifactStatus.ABSENT: "not found",
    ArtifactStatus.MISSING: "not found",
    ArtifactStatus.OUTSIDE: "outside the workspace",
    ArtifactStatus.EXISTS: "still exists",
    ArtifactStatus.UNKNOWN: "not found",
    ArtifactStatus.CREATED: "still exists",
    ArtifactStatus.MODIFIED: "still exists",
}


def _annotate(evaluation: EvaluationResult, extra: Mapping[str, Any]) -> EvaluationResult:
    return replace(evaluation, metadata={**evaluation.metadata, **extra})


__all__ = ["ENV_VAR", "EffectGate", "EffectGateConfig", "resolve_enabled"]
