"""What a stop hook decided, before it is spelled in one CLI's JSON dialect.

Example:
    >>> HookOutcome.block("completion-without-effect: no file was written").blocked
    True
    >>> HookOutcome.allow().system_message is None
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
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


__all__ = ["HookOutcome"]
