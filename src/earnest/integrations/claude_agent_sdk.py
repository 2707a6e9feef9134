"""The effect gate as an in-process Stop hook of the Claude Agent SDK.

The SDK runs Claude Code and calls Python hooks in-process with the very input Claude Code
gives a command hook; a Stop hook returning ``{"decision": "block", "reason": ...}`` sends
the agent back with the reason. So this is ``earnest hook claude-code`` itself, called in the
process: the same transcript reader, the same per-session budget (``max_downgrades`` blocks
per user prompt), the same ``earnest.toml`` in the agent's working directory. One argument::

    from earnest.integrations.claude_agent_sdk import stop_hooks

    options = ClaudeAgentOptions(cwd=repo, hooks=stop_hooks())

A stop the hook cannot judge (a malformed input, a transcript it cannot read) is allowed,
as the command hook allows it, and the reason is logged.

Example:
    >>> sorted(stop_hooks())
    ['Stop', 'SubagentStop']
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, cast

from claude_agent_sdk import HookContext, HookMatcher
from claude_agent_sdk.types import HookCallback, HookEvent, HookInput, HookJSONOutput

from earnest.errors import InputError
from earnest.hooks.claude_code import handle
from earnest.hooks.state import StateStore

log = logging.getLogger(__name__)


def stop_hook(store: StateStore | None = None) -> HookCallback:
    """The hook callback: judges one stop with ``earnest hook claude-code``'s judge.

    ``store``: where each session's budget is kept (default: ``EARNEST_STATE_DIR``, else the
    XDG state folder, as for the command hook)."""

    async def earnest_stop(
        input_data: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        try:
            # In a thread: the judge may wait briefly for the transcript to catch up.
            printed = await asyncio.to_thread(handle, json.dumps(input_data).encode(), store)
        except (InputError, OSError, ValueError) as exc:
            log.warning("earnest stop hook: stop allowed, not judged: %s", exc)
            return {}
        decision: Any = json.loads(printed) if printed else {}
        return cast(HookJSONOutput, decision if isinstance(decision, dict) else {})

    return earnest_stop


def stop_hooks(store: StateStore | None = None) -> dict[HookEvent, list[HookMatcher]]:
    """``hooks=`` for ``ClaudeAgentOptions``: the gate on Stop and SubagentStop."""
    callback = stop_hook(store)
    return {
        "Stop": [HookMatcher(hooks=[callback])],
        "SubagentStop": [HookMatcher(hooks=[callback])],
    }


__all__ = ["stop_hook", "stop_hooks"]
