"""LangChain's messages → the gate's tool results (shared by ``.langchain`` and ``.langgraph``).

Both frameworks keep a run as a list of ``langchain_core`` messages: an ``AIMessage`` asks for
tool calls (``tool_calls``: id, name, args) and a ``ToolMessage`` answers one
(``tool_call_id``; ``status="error"`` when the tool raised and the framework handled it, or the
call was invalid). Imports only ``langchain_core``, which both depend on.

Example:
    >>> from langchain_core.messages import AIMessage, ToolMessage
    >>> asked = AIMessage("", tool_calls=[{"id": "c1", "name": "write_file", "args": {"path": "a"}}])
    >>> tool_results([asked, ToolMessage("wrote a", tool_call_id="c1")])
    [{'tool_name': 'write_file', 'args': {'path': 'a'}, 'output': 'wrote a'}]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage

from earnest.integrations.run import tool_result


def message_text(message: BaseMessage) -> str:
    """A message's text (its text blocks, or its content as a string)."""
    return message.text if isinstance(message.text, str) else str(message.content)


def tool_results(messages: Sequence[AnyMessage | BaseMessage]) -> list[dict[str, Any]]:
    """The tool calls among ``messages``: each ToolMessage with the call that asked for it."""
    asked: dict[str, tuple[str, Any]] = {}
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                asked[str(call.get("id"))] = (call["name"], call.get("args") or {})
        elif isinstance(message, ToolMessage):
            name, args = asked.get(message.tool_call_id, (message.name or "", {}))
            failed = message.status == "error"
            out.append(tool_result(name, args, message_text(message), failed=failed))
    return out


__all__ = ["message_text", "tool_results"]
