"""The effect gate inside the agent frameworks people build with.

One small module per framework, each calling the one gate (:class:`earnest.effects.EffectGate`)
through :class:`RunGate`: it collects the run's tool calls from the framework's own events,
judges the final answer, and turns a RETRY into the framework's own way of making the model
try again, with earnest's reason. ``max_downgrades`` bounds every run. Each framework is an
extra (``pip install 'earnest[langchain]'``); nothing here imports a framework until its
module is imported.

========================  ==================================================================
module                    plug point
========================  ==================================================================
``.victor``               Victor's ``AgenticLoop`` gate, with Victor's own signatures
``.langchain``            an ``after_model`` middleware for ``create_agent`` (``jump_to``)
``.langgraph``            a node and the edge to it, for a graph of one's own (``Command``)
``.openai_agents``        a wrapper around ``Runner.run`` that feeds the reason back
``.pydantic_ai``          an output validator raising ``ModelRetry``
``.claude_agent_sdk``     an in-process ``Stop`` hook returning ``{"decision": "block"}``
``.smolagents``           a ``final_answer_checks`` function whose error the model reads
``.strands``              a hook provider setting ``AfterInvocationEvent.resume``
``.crewai``               a task guardrail returning ``(False, reason)``
========================  ==================================================================

Example:
    >>> from earnest.integrations import RunGate
    >>> gate = RunGate(env={})
    >>> gate.start("Create hello.py")
    >>> gate.judge("Done: I created hello.py.").retry
    True
"""

from __future__ import annotations

from earnest._lazy import lazy_getattr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from earnest.integrations.run import RunGate, Verdict, default_config, tool_result

__all__ = ["RunGate", "Verdict", "default_config", "tool_result"]

__getattr__ = lazy_getattr(__name__, dict.fromkeys(__all__, "run"), globals())
