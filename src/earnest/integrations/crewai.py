"""The effect gate as a CrewAI task guardrail (``Task(guardrail=...)``).

One argument (``tools=`` declares your own tools: :mod:`earnest.integrations.tools`)::

    from earnest.integrations.crewai import EffectGateGuardrail

    gate = EffectGateGuardrail(workspace=repo)
    task = Task(description=..., expected_output=..., agent=agent, guardrail=gate.check)

(``check`` is a method, not the object itself: CrewAI reads a function guardrail's source
for its events, and an object has none.)

When CrewAI starts the task (its ``pre_step`` interception point, dispatched before the agent
acts, so the workspace baseline comes first) the gate's run starts, with the task's
description as the request. The task's tool calls come from CrewAI's event bus:
``ToolUsageFinishedEvent`` (one with a ``failure`` — the tool reported it did not succeed, or
was unknown — is a failed call) and ``ToolUsageErrorEvent`` (the tool raised: a failed call,
not an effect). CrewAI runs its event handlers in a thread pool, so at the final answer the
guardrail first waits for them (``crewai_event_bus.flush()``; CrewAI's agent executor does
too when the agent finishes, this does not rely on it) and records the calls in the order
CrewAI emitted them. A RETRY returns ``(False, reason)``: CrewAI runs the agent again
with "Previous attempt failed validation: <reason>" in its prompt.

Two budgets bound a run: the gate's ``max_downgrades`` and the task's
``guardrail_max_retries`` (CrewAI fails the task with an exception when a guardrail refuses
once more). Whichever is spent first lets the answer stand: after ``max_downgrades`` retries
the gate accepts (``last.exhausted``); when the task's retries are spent first the guardrail
accepts and ``framework_budget_spent`` says so. CrewAI's default (3) is above earnest's (2), so
by default earnest's budget decides; give ``guardrail_max_retries`` at least
``max_downgrades``.

The guardrail listens on CrewAI's process-wide bus and hooks from its creation until
:meth:`close`; one run at a time per instance (a run's ledger lives on it).

Example:
    >>> guardrail = EffectGateGuardrail(env={})
    >>> guardrail.run.enabled
    True
    >>> guardrail.close()
"""

import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from crewai.events import crewai_event_bus
from crewai.events.types.tool_usage_events import ToolUsageErrorEvent, ToolUsageFinishedEvent
from crewai.hooks import InterceptionPoint, register_hook, unregister_hook
from crewai.tasks.task_output import TaskOutput

from earnest.effects.gate import EffectGateConfig
from earnest.integrations.run import RunGate, Verdict, tool_result
from earnest.integrations.tools import ToolsArg

log = logging.getLogger(__name__)

EVENTS = (ToolUsageFinishedEvent, ToolUsageErrorEvent)
"""The bus events a tool call ends with (CrewAI emits one of the two per call)."""


class EffectGateGuardrail:
    """The gate of the tasks whose guardrail is its :meth:`check`."""

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
        self.framework_budget_spent = False
        self._task: Any = None
        self._events: list[Any] = []
        self._lock = threading.Lock()
        for event_type in EVENTS:
            crewai_event_bus.on(event_type)(self._on_tool_event)
        register_hook(InterceptionPoint.PRE_STEP, self._on_step)

    @property
    def last(self) -> Verdict | None:
        return self.run.last

    def close(self) -> None:
        """Stop listening on CrewAI's bus and hooks."""
        for event_type in EVENTS:
            crewai_event_bus.off(event_type, self._on_tool_event)
        unregister_hook(InterceptionPoint.PRE_STEP, self._on_step)

    def check(self, output: TaskOutput) -> tuple[bool, Any]:
        """The guardrail: ``(True, output)``, or ``(False, earnest's reason)`` to retry."""
        if self._task is None:  # e.g. an Agent's own guardrail: no run, no calls to judge by
            raise RuntimeError("earnest's CrewAI guardrail judges a Task's output "
                               "(Task(guardrail=gate.check)); none of its tasks has started")  # fmt: skip
        crewai_event_bus.flush()  # the handlers of the calls made so far have run
        with self._lock:
            events, self._events = self._events, []
        events.sort(key=lambda event: event.emission_sequence or 0)
        self.run.record(_tool_result(event) for event in events)
        verdict = self.run.judge(str(output.raw or ""))
        if not verdict.retry:
            return True, output
        budget = getattr(self._task, "guardrail_max_retries", None)
        if budget is not None and verdict.downgrades > budget:  # CrewAI would fail the task
            self.framework_budget_spent = True
            log.warning("earnest effect gate: the task's guardrail retries are spent; the answer stands: %s",
                        verdict.reason)  # fmt: skip
            return True, output
        return False, verdict.message

    def _on_step(self, ctx: Any) -> None:
        """``pre_step``: a task of this guardrail starts a new run (returns None: the step's
        input is left as it is)."""
        task = getattr(ctx, "task", None)
        if getattr(ctx, "kind", None) != "task" or not self._guards(task):
            return
        crewai_event_bus.flush()  # a late event of an earlier run is not this run's
        with self._lock:
            self._task = task
            self._events = []
        self.framework_budget_spent = False
        self.run.start(getattr(task, "description", None))

    def _guards(self, task: Any) -> bool:
        many = getattr(task, "guardrails", None)
        guards = list(many) if isinstance(many, list | tuple) else [many]
        guards.append(getattr(task, "guardrail", None))
        return any(getattr(guard, "__self__", None) is self for guard in guards)

    def _on_tool_event(self, source: Any, event: Any) -> None:
        task = self._task
        if task is None or event.task_id != str(task.id):
            return
        with self._lock:
            self._events.append(event)


def _tool_result(event: Any) -> dict[str, Any]:
    if isinstance(event, ToolUsageErrorEvent):
        return tool_result(event.tool_name, event.tool_args, str(event.error), failed=True)
    failed = event.failure is not None
    return tool_result(event.tool_name, event.tool_args, event.output, failed=failed)


__all__ = ["EVENTS", "EffectGateGuardrail"]
