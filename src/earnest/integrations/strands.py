"""The effect gate as a Strands Agents hook provider (``AfterInvocationEvent.resume``).

One argument::

    from earnest.integrations.strands import EffectGateHooks

    gate = EffectGateHooks(workspace=repo)
    agent = Agent(model=model, tools=[...], hooks=[gate])

``BeforeInvocationEvent`` starts the gate's run (the request is the invocation's user text;
the workspace baseline is taken then), unless the invocation is the gate's own resume.
``AfterToolCallEvent`` records each call with the outcome Strands reports (``status:
"error"`` — the tool raised, or was not found, or was cancelled — is a failed call). At
``AfterInvocationEvent`` an answer that ended the turn (``stop_reason`` ``end_turn``) is
judged; a RETRY sets ``event.resume`` to earnest's reason: Strands invokes the agent again
with it as the next user message. After ``max_downgrades`` retries the answer stands
(``gate.last.exhausted``).

One run at a time per instance (a run's ledger lives on it).

Example:
    >>> EffectGateHooks(env={}).run.enabled
    True
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from strands.hooks import (
    AfterInvocationEvent,
    AfterToolCallEvent,
    BeforeInvocationEvent,
    HookRegistry,
)

from earnest.effects.gate import EffectGateConfig
from earnest.integrations.run import RunGate, Verdict, tool_result
from earnest.integrations.tools import ToolsArg

ANSWERED = ("end_turn", "stop_sequence")
"""Stop reasons of a final answer (not an interrupt, a cancel, a token limit)."""


class EffectGateHooks:
    """Sends an answer without effect back to the agent with earnest's reason (a Strands
    ``HookProvider``: that is a protocol, so this does not subclass it)."""

    def __init__(
        self,
        config: EffectGateConfig | None = None,
        *,
        workspace: str | os.PathLike[str] | None = None,
        task_type: str | None = None,
        env: Mapping[str, str] | None = None,
        tools: ToolsArg = None,
    ) -> None:
        self.run = RunGate(config, workspace=workspace, task_type=task_type, env=env, tools=tools)
        self._resuming = False

    @property
    def last(self) -> Verdict | None:
        return self.run.last

    def register_hooks(self, registry: HookRegistry, **kwargs: Any) -> None:
        registry.add_callback(BeforeInvocationEvent, self.before_invocation)
        registry.add_callback(AfterToolCallEvent, self.after_tool_call)
        registry.add_callback(AfterInvocationEvent, self.after_invocation)

    def before_invocation(self, event: BeforeInvocationEvent) -> None:
        if self._resuming:  # the gate's own resume: the same run goes on
            self._resuming = False
            return
        self.run.start(_user_text(event.messages or []) or None)

    def after_tool_call(self, event: AfterToolCallEvent) -> None:
        use, result = event.tool_use, event.result
        failed = result.get("status") == "error" or event.exception is not None
        output = "\n".join(str(b["text"]) for b in result.get("content", []) if "text" in b)
        self.run.record([tool_result(use["name"], use.get("input"), output, failed=failed)])

    def after_invocation(self, event: AfterInvocationEvent) -> None:
        result = event.result
        if result is None or result.stop_reason not in ANSWERED:
            return
        verdict = self.run.judge(str(result).strip())
        self._resuming = verdict.retry
        if verdict.retry:
            event.resume = verdict.message


def _user_text(messages: Any) -> str:
    """The text of the invocation's user messages."""
    parts = [
        str(block["text"])
        for message in messages
        if message.get("role") == "user"
        for block in message.get("content", [])
        if "text" in block
    ]
    return "\n".join(parts)


__all__ = ["ANSWERED", "EffectGateHooks"]
