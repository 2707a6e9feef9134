"""The effect gate in a plain LangGraph graph: a node, and the edge that leads to it.

A tool-calling graph routes the model's node with ``tools_condition`` (tool calls → the tools
node, otherwise the end). The gate takes that edge's place, in one line::

    from earnest.integrations.langgraph import EffectGateNode

    builder.add_node("agent", call_model)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    gate = EffectGateNode(workspace=repo).attach(builder)  # was: add_conditional_edges(..., tools_condition)
    builder.add_edge("tools", "agent")

``attach`` adds the gate's node (``earnest_effect_gate``) and the conditional edge from the
agent node (:meth:`EffectGateNode.route`): tool calls go to the tools node, an answer without
one goes to the gate. The gate records the run's new ``ToolMessage`` s (``status="error"`` — a
tool that raised and was handled by ``ToolNode`` — is a failed call) with the arguments of the
``tool_calls`` that asked for them, asks the gate, and returns a ``Command``: on a RETRY back
to the agent node with earnest's reason as a ``HumanMessage``, otherwise to ``END``. After
``max_downgrades`` retries the answer stands (``gate.last.exhausted``).

A run starts at the newest human message that is not the gate's own (the workspace baseline
is taken when the agent node's first reply is routed, before any tool runs), so a checkpointed
thread's next user turn is a new run. One run at a time per instance.

Example:
    >>> from langchain_core.messages import AIMessage, HumanMessage
    >>> gate = EffectGateNode(env={})
    >>> gate.route({"messages": [HumanMessage("Create a.py"), AIMessage("Done.")]})
    'earnest_effect_gate'
    >>> gate({"messages": [HumanMessage("Create a.py"), AIMessage("Done.")]}).goto
    'agent'
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph import END, StateGraph
from langgraph.types import Command

from earnest.effects.gate import EffectGateConfig
from earnest.integrations.lc_messages import message_text, tool_results
from earnest.integrations.run import RunGate, Verdict
from earnest.integrations.tools import ToolsArg

NODE = "earnest_effect_gate"
RETRY_ID = "earnest-effect-gate-retry-"
"""The id prefix of the gate's own messages (a retry is not a new user turn)."""
_UNSET = object()


class EffectGateNode:
    """The gate's node (call it with the graph's state) and its route (:meth:`route`)."""

    def __init__(
        self,
        config: EffectGateConfig | None = None,
        *,
        workspace: str | os.PathLike[str] | None = None,
        task_type: str | None = None,
        env: Mapping[str, str] | None = None,
        agent: str = "agent",
        tools: str = "tools",
        messages_key: str = "messages",
        name: str = NODE,
        declared_tools: ToolsArg = None,
    ) -> None:
        self.run = RunGate(config, workspace=workspace, task_type=task_type, env=env,
                           tools=declared_tools)  # fmt: skip
        self.agent, self.tools, self.messages_key, self.name = agent, tools, messages_key, name
        self._request: object = _UNSET
        self._seen = 0

    @property
    def last(self) -> Verdict | None:
        return self.run.last

    def attach(self, builder: StateGraph[Any, Any, Any, Any]) -> EffectGateNode:
        """Add the gate's node to ``builder`` and route the agent node through it."""
        builder.add_node(self.name, self, destinations=(self.agent, END))
        builder.add_conditional_edges(self.agent, self.route, [self.tools, self.name])
        return self

    def route(self, state: Any) -> str:
        """``tools_condition`` with the gate in place of the end."""
        messages = self._messages(state)
        last = messages[-1] if messages else None
        return self.tools if isinstance(last, AIMessage) and last.tool_calls else self.name

    def __call__(self, state: Any) -> Command[str]:
        messages = self._messages(state)
        self.run.record(tool_results(messages[self._seen :]))
        self._seen = len(messages)
        answer = messages[-1] if messages else None
        verdict = self.run.judge(message_text(answer) if answer is not None else "")
        if not verdict.retry:
            return Command(goto=END)
        retry = HumanMessage(verdict.message, id=f"{RETRY_ID}{verdict.downgrades}-{len(messages)}")
        return Command(goto=self.agent, update={self.messages_key: [retry]})

    def _messages(self, state: Any) -> Sequence[BaseMessage]:
        """The state's messages; a new user turn among them starts a new run."""
        if isinstance(state, list):
            messages: Sequence[BaseMessage] = state
        elif isinstance(state, Mapping):
            messages = state.get(self.messages_key) or []
        else:
            messages = getattr(state, self.messages_key, None) or []
        at, asked = _request(messages)
        key = (asked.id or at) if asked is not None else None
        if key != self._request:
            self.run.start(message_text(asked) if asked is not None else None)
            self._request, self._seen = key, at
        return messages


def _request(messages: Sequence[BaseMessage]) -> tuple[int, HumanMessage | None]:
    """The newest human message that is not the gate's retry, and where it is."""
    for at in range(len(messages) - 1, -1, -1):
        message = messages[at]
        if isinstance(message, HumanMessage) and not str(message.id or "").startswith(RETRY_ID):
            return at, message
    return 0, None


__all__ = ["NODE", "EffectGateNode"]
