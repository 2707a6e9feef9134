"""Victor's ``AgenticLoop`` with earnest's effect gate, in Victor's own signatures.

Victor (``victor-ai``) builds ``EffectGate(EffectGateConfig(...), workspace_resolver=...)`` in
``AgenticLoop.__init__``, calls ``reset()`` per run, ``record(action_result, state)`` and then
``await apply(evaluation, action_result, state)`` at its EVALUATE seam. This module has the
same names and signatures and calls the one earnest gate underneath, so a Victor user switches
by changing one import::

    from earnest.integrations.victor import EffectGate, EffectGateConfig
    # was: from victor.framework.effect_gate import EffectGate, EffectGateConfig

or, for the loops Victor builds itself (its turn executor makes one per message), one call at
start-up: ``earnest.integrations.victor.install()``.

Translation only: a tool result counts as succeeded only with ``success: True`` (Victor's
rule); the request is ``state["query"]``, the task type ``state["task_type"]``, a Q&A turn
``action_result.is_qa_response``, team execution ``response.metadata["execution_mode"]``; the
workspace comes from the resolver at the run's first record or apply (no baseline: Victor
resets before it knows the workspace, so a named file must exist, as in Victor). A RETRY comes
back as Victor's ``EvaluationResult`` with ``completion_without_effect`` and
``expected_effect_class`` at the top of its metadata, which Victor's nudge tells the model.

Example:
    >>> import asyncio
    >>> from types import SimpleNamespace
    >>> from victor.framework.evaluation_nodes import EvaluationDecision, EvaluationResult
    >>> gate = EffectGate(EffectGateConfig(enabled=True), env={})
    >>> turn = SimpleNamespace(tool_results=[], content="I fixed it", is_qa_response=False)
    >>> done = EvaluationResult(decision=EvaluationDecision.COMPLETE, score=0.9)
    >>> asyncio.run(gate.apply(done, turn, {"task_type": "edit"})).decision.value
    'retry'
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from victor.framework.evaluation_nodes import (  # type: ignore[import-not-found,unused-ignore]
    EvaluationDecision as VictorDecision,
)
from victor.framework.evaluation_nodes import (  # type: ignore[import-not-found,unused-ignore]
    EvaluationResult as VictorResult,
)

from earnest.effects.gate import EffectGate as _Gate
from earnest.effects.gate import EffectGateConfig, resolve_enabled
from earnest.effects.ledger import EffectLedger
from earnest.effects.models import EvaluationDecision, EvaluationResult

log = logging.getLogger(__name__)
Resolver = Callable[[dict[str, Any]], Path | None]


def _config(config: Any) -> EffectGateConfig:
    """earnest's config as it is, or Victor's (``enabled``, ``max_downgrades``,
    ``verify_artifacts``) read into earnest's."""
    if config is None:
        return EffectGateConfig()
    if isinstance(config, EffectGateConfig):
        return config
    return EffectGateConfig(
        enabled=bool(getattr(config, "enabled", False)),
        max_downgrades=int(getattr(config, "max_downgrades", 2)),
        verify_artifacts=bool(getattr(config, "verify_artifacts", True)),
    )


class EffectGate:
    """Victor's ``EffectGate`` interface over earnest's gate (see the module docstring)."""

    def __init__(
        self,
        config: Any = None,
        workspace_resolver: Resolver | None = None,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.config = _config(config)
        self._workspace_resolver = workspace_resolver
        self._env = env
        self.enabled = resolve_enabled(self.config, env)
        self._gate: _Gate | None = None

    @property
    def gate(self) -> _Gate:
        """This run's earnest gate (built at the run's first record or apply)."""
        return self._inner({})

    @property
    def ledger(self) -> EffectLedger:
        return self._gate.ledger if self._gate is not None else EffectLedger()

    def reset(self) -> None:
        """A run starts: the next record or apply begins a fresh ledger and budget."""
        if self.enabled:
            self._gate = None

    def record(self, action_result: Any, state: dict[str, Any] | None = None) -> None:
        """Record one turn's ``action_result.tool_results`` (no-op when disabled)."""
        if not self.enabled:
            return
        results = getattr(action_result, "tool_results", None) or []
        self._inner(state or {}).record([_call(r) for r in results])

    async def apply(self, evaluation: Any, action_result: Any, state: dict[str, Any]) -> Any:
        """Gate a COMPLETE on effect evidence; everything else passes through untouched."""
        if not self.enabled or not evaluation.should_complete:
            return evaluation
        state = state or {}
        response = getattr(action_result, "response", None)
        meta = getattr(response, "metadata", None)
        mode = meta.get("execution_mode") if isinstance(meta, dict) else None
        mine = EvaluationResult(
            EvaluationDecision.COMPLETE,
            score=float(evaluation.score),
            reason=str(evaluation.reason or ""),
            metrics=dict(evaluation.metrics),
            metadata=dict(evaluation.metadata),
        )
        task_type = state.get("task_type")
        query = state.get("query")
        out = self._inner(state).apply(
            mine,
            content=str(getattr(action_result, "content", "") or ""),
            task_type=str(task_type) if task_type else None,
            is_qa=bool(getattr(action_result, "is_qa_response", False)),
            execution_mode=mode if isinstance(mode, str) else None,
            request=query if isinstance(query, str) else None,
        )
        if out.decision is EvaluationDecision.COMPLETE:
            # Victor annotates the very object it was given.
            evaluation.metadata.update(out.metadata)
            return evaluation
        info = out.metadata.get("effect_gate") or {}
        return VictorResult(
            decision=VictorDecision.RETRY,
            score=out.score,
            reason=out.reason,
            metrics=dict(out.metrics),
            metadata={**out.metadata, "expected_effect_class": info.get("expected_effect_class")},
        )

    def _inner(self, state: dict[str, Any]) -> _Gate:
        if self._gate is None:
            self._gate = _Gate(self.config, workspace=self._resolve(state), env=self._env)
            self._gate.reset()
        return self._gate

    def _resolve(self, state: dict[str, Any]) -> Path | None:
        if self._workspace_resolver is None:
            return None
        try:
            return self._workspace_resolver(state)
        except Exception:  # a resolver that fails leaves the workspace unknown, as in Victor
            log.debug("workspace resolver failed", exc_info=True)
            return None


def _call(result: Any) -> Any:
    """Victor's tool result with Victor's rule made explicit: only ``success: True`` counts."""
    if not isinstance(result, Mapping):
        return result
    return {**result, "success": result.get("success") is True}


_ORIGINAL: dict[str, Any] = {}


def install() -> None:
    """Make every ``AgenticLoop`` built from now on use earnest's gate (Victor's loop imports
    ``EffectGate`` from ``victor.framework.effect_gate`` when it is constructed)."""
    import victor.framework.effect_gate as home  # type: ignore[import-not-found,unused-ignore]

    _ORIGINAL.setdefault("EffectGate", home.EffectGate)
    home.EffectGate = EffectGate


def uninstall() -> None:
    """Undo :func:`install`."""
    import victor.framework.effect_gate as home  # type: ignore[import-not-found,unused-ignore]

    if "EffectGate" in _ORIGINAL:
        home.EffectGate = _ORIGINAL.pop("EffectGate")


def use_in(loop: Any) -> EffectGate:
    """Give one built ``AgenticLoop`` earnest's gate, with the loop's own settings."""
    old = loop.effect_gate
    gate = EffectGate(old.config, workspace_resolver=loop._resolve_workspace)
    loop.effect_gate = gate
    return gate


__all__ = ["EffectGate", "EffectGateConfig", "install", "uninstall", "use_in"]
