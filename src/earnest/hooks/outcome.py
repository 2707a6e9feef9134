"""What a stop hook decided, before it is spelled in one CLI's JSON dialect.

Example:
    >>> HookOutcome.block("completion-without-effect: no file was written").blocked
    True
    >>> HookOutcome.allow().system_message is None
    True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class HookOutcome:
    """Allow or block a stop; ``reason`` goes to the agent, ``system_message`` to the user."""

    blocked: bool
    reason: str = ""
    system_message: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def allow(cls, system_message: str | None = None, **metadata: Any) -> HookOutcome:
        return cls(False, "", system_message, dict(metadata))

    @classmethod
    def block(cls, reason: str, **metadata: Any) -> HookOutcome:
        return cls(True, reason, None, dict(metadata))


def decision_json(outcome: HookOutcome, *, block: str = "block", allow: str = "") -> str:
    """The stop-hook JSON Claude Code and Codex read (Gemini: ``block="deny"``,
    ``allow="{}"``): ``{"decision": block, "reason"}`` to block, ``{"systemMessage"}`` to allow
    with a note for the user, else ``allow``."""
    if outcome.blocked:
        return json.dumps({"decision": block, "reason": outcome.reason})
    if outcome.system_message:
        return json.dumps({"systemMessage": outcome.system_message})
    return allow


__all__ = ["HookOutcome", "decision_json"]
