"""The effect gate as a Pydantic AI output validator that raises ``ModelRetry``.

One line after the agent is built::

    from earnest.integrations.pydantic_ai import gate

    agent = Agent(model, tools=[...], retries={"output": 2})
    validator = gate(agent, workspace=repo)

:func:`gate` registers an instructions function that adds nothing but starts the gate's
run (and its workspace baseline) before the run's first request, and an
``@agent.output_validator``. At each final output it records the
run's new tool calls from ``ctx.messages`` (a ``ToolCallPart`` with its ``ToolReturnPart``;
a ``RetryPromptPart`` for a tool — the tool raised ``ModelRetry`` or its arguments did not
validate — is a failed call) and asks the gate; a RETRY raises ``ModelRetry`` with earnest's
reason, which Pydantic AI sends to the model. A new ``ctx.run_id`` starts a new run.

Two budgets bound a run: the gate's ``max_downgrades`` and the agent's output retries (``retries={"output": N}``)
(Pydantic AI fails the run when a validator asks for more). When the agent's budget is spent
first, the answer stands and ``validator.framework_budget_spent`` says so: give the agent
an output budget of at least ``max_downgrades`` (2 by default).

Example:
    >>> EffectGateValidator(env={}).gate.enabled
    True
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)

from earnest.effects.gate import EffectGateConfig
from earnest.integrations.run import RunGate, Verdict, tool_result
from earnest.integrations.tools import ToolsArg

log = logging.getLogger(__name__)


class EffectGateValidator:
    """The validator :func:`gate` registers; call it as Pydantic AI would."""

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
        self.framework_budget_spent = False
        self._run: str | None = None
        self._seen = 0

    @property
    def last(self) -> Verdict | None:
        return self.gate.last

    def begin(self, ctx: RunContext[Any]) -> None:
        """Start the gate's run when ``ctx`` belongs to a new one (before its first request,
        through the instructions hook :func:`gate` registers, so the baseline comes first)."""
        if ctx.run_id != self._run or self._run is None:
            self._run = ctx.run_id
            self.gate.start(ctx.prompt if isinstance(ctx.prompt, str) else None)
            self.framework_budget_spent = False
            self._seen = 0

    def __call__(self, ctx: RunContext[Any], output: Any) -> Any:
        if ctx.partial_output:  # a streamed partial: judge only the whole answer
            return output
        self.begin(ctx)
        self.gate.record(_tool_results(ctx.messages[self._seen :]))
        self._seen = len(ctx.messages)
        verdict = self.gate.judge(output if isinstance(output, str) else str(output))
        if not verdict.retry:
            return output
        if ctx.max_retries and ctx.retry >= ctx.max_retries:
            self.framework_budget_spent = True
            log.warning("earnest effect gate: the agent's output retries are spent; the answer stands: %s",
                        verdict.reason)  # fmt: skip
            return output
        raise ModelRetry(verdict.message)


def gate(
    agent: Agent[Any, Any],
    config: EffectGateConfig | None = None,
    *,
    workspace: str | os.PathLike[str] | None = None,
    task_type: str | None = None,
    env: Mapping[str, str] | None = None,
    tools: ToolsArg = None,
) -> EffectGateValidator:
    """Register the gate as an output validator of ``agent``; returns the validator."""
    validator = EffectGateValidator(
        config, workspace=workspace, task_type=task_type, env=env, tools=tools
    )

    def earnest_effect_gate_start(ctx: RunContext[Any]) -> None:
        validator.begin(ctx)  # adds no instruction: only marks the run's start

    def earnest_effect_gate(ctx: RunContext[Any], output: Any) -> Any:
        return validator(ctx, output)

    agent.instructions(earnest_effect_gate_start)
    agent.output_validator(earnest_effect_gate)
    return validator


def _tool_results(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    asked: dict[str, ToolCallPart] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        for part in message.parts:
            if isinstance(message, ModelResponse) and isinstance(part, ToolCallPart):
                asked[part.tool_call_id] = part
            elif isinstance(message, ModelRequest) and isinstance(part, ToolReturnPart):
                call = asked.get(part.tool_call_id)
                args = call.args if call is not None else None
                out.append(tool_result(part.tool_name, args, part.model_response_str()))
            elif isinstance(part, RetryPromptPart) and part.tool_name:
                call = asked.get(part.tool_call_id)
                args = call.args if call is not None else None
                out.append(tool_result(part.tool_name, args, part.model_response(), failed=True))
    return out


__all__ = ["EffectGateValidator", "gate"]
