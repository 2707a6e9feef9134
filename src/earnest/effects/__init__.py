"""Effect-grounded completion: does "done" mean something verifiable happened?

An agent loop asks its evaluator whether the task is done. :class:`EffectGate` turns a
COMPLETE that has no verifiable effect into RETRY with reason ``completion-without-effect``.
It watches the tool results of the run (:class:`EffectLedger`), classifies each call
(:func:`classify_tool_result`, :func:`analyze_shell`), checks artifacts in the workspace
(:class:`Workspace`, :class:`WorkspaceBaseline`), and, for questions, accepts a grounded answer
(:class:`GroundedClaimChecker`). Stdlib only; importing it pulls in no CLI framework, and
each name is imported on first use.

The gate in a loop::

    from earnest.effects import (
        EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult,
        expected_effect_class,
    )

    gate = EffectGate(EffectGateConfig(enabled=True), workspace=repo_dir)
    gate.reset(baseline=True)                 # a run starts: only changes from now on count
    for turn in range(max_turns):
        reply, tool_results = agent.step()    # tool_results: [{"tool_name", "args", "success"...}]
        gate.record(tool_results, turn_index=turn)
        verdict = evaluator(reply)            # your own EvaluationResult
        verdict = gate.apply(verdict, content=reply.text, request=user_request)
        if verdict.decision is EvaluationDecision.COMPLETE:
            break
        if verdict.decision is EvaluationDecision.RETRY:
            agent.tell(verdict.reason)        # "completion-without-effect: expected ..."

``examples/effect_gate_loop.py`` runs exactly this over a scripted agent.

Example:
    >>> from earnest.effects import (
    ...     EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult)
    >>> gate = EffectGate(EffectGateConfig(enabled=True), env={})
    >>> gate.reset()
    >>> done = EvaluationResult(EvaluationDecision.COMPLETE, 0.9)
    >>> gate.apply(done, task_type="edit").decision.value
    'retry'
    >>> gate.record([{"tool_name": "Bash", "args": {"command": "pytest -q"}}])
    >>> gate.apply(done, task_type="edit").decision.value
    'complete'
"""

from __future__ import annotations

from earnest._lazy import lazy_getattr

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from earnest.effects.claims import Claim, ClaimCheck, ClaimKind, extract_claims, verify_claims
    from earnest.effects.classify import (
        ToolObservation,
        classify_tool_result,
        observe_tool_result,
        tool_succeeded,
    )
    from earnest.effects.config import (
        ToolDeclarations,
        load_effect_gate_config,
        parse_tool_options,
        tool_declarations,
    )
    from earnest.effects.expectation import (
        ExpectationRules,
        effect_class_for_task_type,
        expected_effect_class,
    )
    from earnest.effects.gate import ENV_VAR, EffectGate, EffectGateConfig, resolve_enabled
    from earnest.effects.grounding import GroundedClaimChecker, GroundingResult, file_references
    from earnest.effects.ledger import CheckRun, EffectLedger, ReadEvidence, ShellCall
    from earnest.effects.models import (
        EffectClass,
        EffectEvidence,
        EvaluationDecision,
        EvaluationResult,
    )
    from earnest.effects.registry import (
        DEFAULT_REGISTRY,
        STACKS,
        TOOL_CLASSES,
        TOOL_KINDS,
        ToolRegistry,
        canonical_kind,
    )
    from earnest.effects.shell import ShellAnalysis, ShellEffect, analyze_shell, is_check_command
    from earnest.effects.shell_outcomes import CommandOutcome, command_outcomes
    from earnest.effects.workspace import (
        ArtifactCheck,
        ArtifactStatus,
        Workspace,
        WorkspaceBaseline,
        resolve_inside,
    )

# Where each public name lives, imported on first use: the stop hook, which runs on every
# stop of a user's agent, imports only the modules its decision needs (not, for example,
# the strict-claims grammar when ``strict_claims`` is off).
_HOME = {
    "Claim": "claims",
    "ClaimCheck": "claims",
    "ClaimKind": "claims",
    "extract_claims": "claims",
    "verify_claims": "claims",
    "ToolObservation": "classify",
    "classify_tool_result": "classify",
    "observe_tool_result": "classify",
    "tool_succeeded": "classify",
    "load_effect_gate_config": "config",
    "ToolDeclarations": "config",
    "tool_declarations": "config",
    "parse_tool_options": "config",
    "ExpectationRules": "expectation",
    "effect_class_for_task_type": "expectation",
    "expected_effect_class": "expectation",
    "ENV_VAR": "gate",
    "EffectGate": "gate",
    "EffectGateConfig": "gate",
    "resolve_enabled": "gate",
    "GroundedClaimChecker": "grounding",
    "GroundingResult": "grounding",
    "file_references": "grounding",
    "CheckRun": "ledger",
    "EffectLedger": "ledger",
    "ReadEvidence": "ledger",
    "ShellCall": "ledger",
    "EffectClass": "models",
    "EffectEvidence": "models",
    "EvaluationDecision": "models",
    "EvaluationResult": "models",
    "DEFAULT_REGISTRY": "registry",
    "STACKS": "registry",
    "TOOL_CLASSES": "registry",
    "TOOL_KINDS": "registry",
    "canonical_kind": "registry",
    "ToolRegistry": "registry",
    "ShellAnalysis": "shell",
    "ShellEffect": "shell",
    "analyze_shell": "shell",
    "is_check_command": "shell",
    "CommandOutcome": "shell_outcomes",
    "command_outcomes": "shell_outcomes",
    "ArtifactCheck": "workspace",
    "ArtifactStatus": "workspace",
    "Workspace": "workspace",
    "WorkspaceBaseline": "workspace",
    "resolve_inside": "workspace",
}


__getattr__ = lazy_getattr(__name__, _HOME, globals())


__all__ = [
    "DEFAULT_REGISTRY",
    "ENV_VAR",
    "STACKS",
    "TOOL_CLASSES",
    "TOOL_KINDS",
    "ArtifactCheck",
    "ArtifactStatus",
    "CheckRun",
    "Claim",
    "ClaimCheck",
    "ClaimKind",
    "CommandOutcome",
    "EffectClass",
    "EffectEvidence",
    "EffectGate",
    "EffectGateConfig",
    "EffectLedger",
    "EvaluationDecision",
    "EvaluationResult",
    "ExpectationRules",
    "GroundedClaimChecker",
    "GroundingResult",
    "ReadEvidence",
    "ShellAnalysis",
    "ShellCall",
    "ShellEffect",
    "ToolDeclarations",
    "ToolObservation",
    "ToolRegistry",
    "Workspace",
    "WorkspaceBaseline",
    "analyze_shell",
    "canonical_kind",
    "classify_tool_result",
    "command_outcomes",
    "effect_class_for_task_type",
    "expected_effect_class",
    "extract_claims",
    "file_references",
    "is_check_command",
    "load_effect_gate_config",
    "observe_tool_result",
    "parse_tool_options",
    "resolve_enabled",
    "resolve_inside",
    "tool_declarations",
    "tool_succeeded",
    "verify_claims",
]
