"""The effect gate around the OpenAI Agents SDK's ``Runner.run``.

The SDK's output guardrails can only stop a run; a retry needs the run to go on. One line::

    from earnest.integrations.openai_agents import GatedRunner

    result = await GatedRunner(workspace=repo).run(agent, "Fix the failing test")
    # was: result = await Runner.run(agent, "Fix the failing test")

:meth:`GatedRunner.run` calls ``Runner.run``, records the run's tool calls from its items
(``ToolCallItem`` with the arguments, ``ToolCallOutputItem`` with the output), and asks the
gate about ``final_output``. On a RETRY it runs again from ``result.to_input_list()`` plus a
user message with earnest's reason, on the agent that answered last; after
``max_downgrades`` retries the answer stands. ``runner.last`` is the latest
:class:`~earnest.integrations.run.Verdict`.

A tool that raised is reported by the SDK only in its words to the model: an output equal to
what the SDK's ``default_tool_error_function`` says is a failed call, and so is an output
that is a JSON object with an ``error`` key (for a ``failure_error_function`` of your own).

Example:
    >>> GatedRunner(env={}).gate.enabled
    True
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from agents import Agent, Runner, RunResult
from agents.items import ToolCallItem, ToolCallOutputItem, TResponseInputItem
from agents.tool import default_tool_error_function

from earnest.effects.gate import EffectGateConfig
from earnest.integrations.run import RunGate, Verdict, tool_result
from earnest.integrations.tools import ToolsArg

_SDK_ERROR = default_tool_error_function(None, RuntimeError())  # type: ignore[arg-type]


class GatedRunner:
    """``Runner.run`` with the gate: answers without effect go back to the agent."""

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

    @property
    def last(self) -> Verdict | None:
        return self.gate.last

    async def run(
        self, agent: Agent[Any], input: str | list[TResponseInputItem], **kwargs: Any
    ) -> RunResult:
        """``Runner.run(agent, input, **kwargs)``, retried while the gate says RETRY."""
        self.gate.start(_request(input))
        result = await Runner.run(agent, input, **kwargs)
        while True:
            self.gate.record(_tool_results(result.new_items))
            verdict = self.gate.judge(str(result.final_output or ""))
            if not verdict.retry:
                return result
            again = [*result.to_input_list(), {"role": "user", "content": verdict.message}]
            result = await Runner.run(result.last_agent, again, **kwargs)  # type: ignore[arg-type]

    def run_sync(
        self, agent: Agent[Any], input: str | list[TResponseInputItem], **kwargs: Any
    ) -> RunResult:
        """:meth:`run` for code without an event loop."""
        import asyncio

        return asyncio.run(self.run(agent, input, **kwargs))


def _request(input: str | list[TResponseInputItem]) -> str | None:
    if isinstance(input, str):
        return input
    for item in input:
        if isinstance(item, Mapping) and item.get("role") == "user":
            content = item.get("content")
            return content if isinstance(content, str) else None
    return None


def _field(raw: Any, key: str) -> Any:
    return raw.get(key) if isinstance(raw, Mapping) else getattr(raw, key, None)


def _tool_results(items: Sequence[Any]) -> list[dict[str, Any]]:
    """Each tool output of the run, with the call (name, arguments) that asked for it."""
    asked: dict[str, tuple[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, ToolCallItem):
            call_id = _field(item.raw_item, "call_id")
            asked[str(call_id)] = (item.tool_name or "", _field(item.raw_item, "arguments"))
        elif isinstance(item, ToolCallOutputItem):
            name, args = asked.get(str(item.call_id), ("", None))
            output = item.output
            failed = output == _SDK_ERROR
            out.append(tool_result(name, args, output, failed=failed))
    return out


__all__ = ["GatedRunner"]
