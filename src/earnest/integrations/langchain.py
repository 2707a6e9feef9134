"""The effect gate as a LangChain v1 ``create_agent`` middleware.

One argument::

    from earnest.integrations.langchain import EffectGateMiddleware

    agent = create_agent(model, tools, middleware=[EffectGateMiddleware(workspace=repo)])

``before_agent`` starts the run (the request is the first human message); ``after_model``
does nothing while the model calls tools, and when it answers without a tool call it records
the run's new ``ToolMessage`` s (a message with ``status="error"`` — a tool that raised and was
handled by LangChain, or an invalid call — is a failed call) with the arguments of the
``tool_calls`` that asked for them, and asks the gate. A RETRY returns
``{"messages": [HumanMessage(reason)], "jump_to": "model"}``: the model is called again with
earnest's reason. After ``max_downgrades`` retries the answer stands; ``middleware.last`` is
the latest :class:`~earnest.integrations.run.Verdict` (``exhausted``, ``note``).

One run at a time per middleware instance (a run's ledger lives on it).

Example:
    >>> mw = EffectGateMiddleware(env={})
    >>> mw.run.enabled, mw.last
    (True, None)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, hook_config
from langchain_core.messages import AIMessage, HumanMessage

from earnest.effects.gate import EffectGateConfig
from earnest.integrations.lc_messages import message_text, tool_results
from earnest.integrations.run import RunGate, Verdict
from earnest.integrations.tools import ToolsArg


class EffectGateMiddleware(AgentMiddleware):
    """Sends an answer without effect back to the model with earnest's reason."""

    def __init__(
        self,
        config: EffectGateConfig | None = None,
        *,
        workspace: str | os.PathLike[str] | None = None,
        task_type: str | None = None,
        env: Mapping[str, str] | None = None,
        tools: ToolsArg = None,
    ) -> None:
        super().__init__()
        self.run = RunGate(config, workspace=workspace, task_type=task_type, env=env, tools=tools)
        self._seen = 0

    @property
    def last(self) -> Verdict | None:
        return self.run.last

    def before_agent(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        asked = next((m for m in messages if isinstance(m, HumanMessage)), None)
        self.run.start(message_text(asked) if asked is not None else None)
        self._seen = len(messages)
        return None

    async def abefore_agent(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        return self.before_agent(state, runtime)

    @hook_config(can_jump_to=["model"])
    def after_model(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        messages = state["messages"]
        answer = messages[-1] if messages else None
        if not isinstance(answer, AIMessage) or answer.tool_calls:
            return None
        self.run.record(tool_results(messages[self._seen :]))
        self._seen = len(messages)
        verdict = self.run.judge(message_text(answer))
        if not verdict.retry:
            return None
        return {"messages": [HumanMessage(verdict.message)], "jump_to": "model"}

    @hook_config(can_jump_to=["model"])
    async def aafter_model(self, state: AgentState[Any], runtime: Any) -> dict[str, Any] | None:
        return self.after_model(state, runtime)


__all__ = ["EffectGateMiddleware"]
