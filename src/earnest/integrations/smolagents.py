"""The effect gate as a smolagents ``final_answer_checks`` function.

One line after the agent is built::

    from earnest.integrations.smolagents import gate

    agent = ToolCallingAgent(tools=[...], model=model)
    checker = gate(agent, workspace=repo)

:func:`gate` appends a check to ``agent.final_answer_checks`` and starts the gate's run (and
its workspace baseline) whenever ``agent.run`` starts a new task. At a final answer the check
records the run's new steps' tool calls from ``agent.memory`` (``ActionStep.tool_calls``;
the calls of a step that ended in a tool error are failed calls; the ``final_answer`` call is
the answer, not a tool) and asks the gate. A RETRY raises :class:`EffectGateRetry` with
earnest's reason: smolagents records it as the step's error, which the model reads in its
next step. After ``max_downgrades`` retries the answer stands (``checker.last.exhausted``).

Example:
    >>> EffectGateCheck(env={}).gate.enabled
    True
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from typing import Any

from smolagents.agents import MultiStepAgent  # type: ignore[import-untyped,unused-ignore]
from smolagents.memory import ActionStep  # type: ignore[import-untyped,unused-ignore]
from smolagents.utils import (  # type: ignore[import-untyped,unused-ignore]
    AgentToolCallError,
    AgentToolExecutionError,
)

from earnest.effects.gate import EffectGateConfig
from earnest.integrations.run import RunGate, Verdict, tool_result
from earnest.integrations.tools import ToolsArg

FINAL_ANSWER = "final_answer"


class EffectGateRetry(Exception):
    """Raised by the check to send the answer back: its text is earnest's reason."""


class EffectGateCheck:
    """The ``final_answer_checks`` function :func:`gate` adds."""

    __name__ = "earnest_effect_gate"

    def __init__(
        self,
        config: EffectGateConfig | None = None,
        *,
        workspace: str | os.PathLike[str] | None = None,
        task_type: str | None = None,
        env: Mapping[str, str] | None = None,
        tools: ToolsArg = None,
    ) -> None:
        self.gate = RunGate(config, workspace=workspace, task_type=task_type, env=env, tools=tools)
        self._seen = 0

    @property
    def last(self) -> Verdict | None:
        return self.gate.last

    def start(self, task: str | None) -> None:
        self.gate.start(task)
        self._seen = 0

    def __call__(self, final_answer: Any, memory: Any, agent: Any = None) -> bool:
        steps = list(getattr(memory, "steps", []))
        self.gate.record(_tool_results(steps[self._seen :]))
        self._seen = len(steps)
        verdict = self.gate.judge(str(final_answer))
        if verdict.retry:
            raise EffectGateRetry(verdict.message)
        return True


def gate(
    agent: MultiStepAgent,
    config: EffectGateConfig | None = None,
    *,
    workspace: str | os.PathLike[str] | None = None,
    task_type: str | None = None,
    env: Mapping[str, str] | None = None,
    tools: ToolsArg = None,
) -> EffectGateCheck:
    """Add the gate to ``agent``'s final-answer checks; returns the check."""
    check = EffectGateCheck(config, workspace=workspace, task_type=task_type, env=env, tools=tools)
    agent.final_answer_checks.append(check)
    run = agent.run

    @functools.wraps(run)
    def gated_run(task: str, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("reset", True):  # a new task, not a continuation of the last one
            check.start(task)
        return run(task, *args, **kwargs)

    agent.run = gated_run  # type: ignore[method-assign]
    return check


def _tool_results(steps: Sequence[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for step in steps:
        if not isinstance(step, ActionStep):
            continue
        failed = isinstance(step.error, AgentToolExecutionError | AgentToolCallError)
        for name, args in _calls(step):
            if name != FINAL_ANSWER:
                out.append(tool_result(name, args, step.observations, failed=failed))
    return out


def _calls(step: ActionStep) -> list[tuple[str, Any]]:
    """The step's tool calls; for a step whose tool raised, smolagents keeps them only on the
    model's message."""
    if step.tool_calls:
        return [(call.name, call.arguments) for call in step.tool_calls]
    message = step.model_output_message
    asked = getattr(message, "tool_calls", None) or []
    return [(c.function.name, c.function.arguments) for c in asked]


__all__ = ["EffectGateCheck", "EffectGateRetry", "gate"]
