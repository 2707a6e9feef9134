"""The normalized trajectory: one agent run, whatever log format it was read from.

Every reader in :mod:`earnest.trajectory.readers` produces these frozen records. They
keep what the effect gate and the trajectory scorers need — every tool call with its
outcome, the files the source says were edited, the user's request, the agent's last
words and why the run ended — and only bounded excerpts of anything large.

Example:
    >>> call = ToolCall(id="t1", name="Bash", arguments={"command": "pytest -q"},
    ...                 outcome="success", output_excerpt="3 passed")
    >>> call.as_tool_result()["tool_name"], call.as_tool_result()["is_error"]
    ('Bash', False)
    >>> Termination("max_turns").is_normal
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias, TypeGuard

    Outcome: TypeAlias = Literal["success", "error", "unknown"]
    """``success``: a result was recorded with no error signal; ``error``: the source marks the
    call failed; ``unknown``: no result was recorded (the run stopped, or the log has none)."""

    EditKind: TypeAlias = Literal["create", "modify", "delete"]

    TerminationReason: TypeAlias = Literal[
        "normal", "max_turns", "api_error", "usage_limit", "interrupted", "truncated", "unknown"
    ]

    MessageKind: TypeAlias = Literal[
        "prompt", "text", "noise", "compact_summary", "synthetic", "system", "interrupt", "feedback"
    ]
    """What a message is: a real user ``prompt``; assistant ``text``; IDE/CLI ``noise`` (slash
    commands, reminders, caveats); a ``compact_summary`` written by the agent CLI; a
    ``synthetic`` assistant message made by the CLI, not the model (limits, timeouts); a
    ``system`` message; an ``interrupt`` marker; harness ``feedback`` posing as a user turn."""
else:  # other modules import the names at run time; only a type checker reads them
    Outcome = EditKind = TerminationReason = MessageKind = str

OUTCOMES: tuple[str, ...] = ("success", "error", "unknown")
EDIT_KINDS: tuple[str, ...] = ("create", "modify", "delete")
TERMINATION_REASONS: tuple[str, ...] = (
    "normal",
    "max_turns",
    "api_error",
    "usage_limit",
    "interrupted",
    "truncated",
    "unknown",
)

MESSAGE_KINDS: tuple[str, ...] = (
    "prompt",
    "text",
    "noise",
    "compact_summary",
    "synthetic",
    "system",
    "interrupt",
    "feedback",
)


def is_outcome(value: str) -> TypeGuard[Outcome]:
    """Whether ``value`` is one of :data:`OUTCOMES`."""
    return value in OUTCOMES


def is_edit_kind(value: str) -> TypeGuard[EditKind]:
    """Whether ``value`` is one of :data:`EDIT_KINDS`."""
    return value in EDIT_KINDS


def is_termination_reason(value: str) -> TypeGuard[TerminationReason]:
    """Whether ``value`` is one of :data:`TERMINATION_REASONS`."""
    return value in TERMINATION_REASONS


def is_message_kind(value: str) -> TypeGuard[MessageKind]:
    """Whether ``value`` is one of :data:`MESSAGE_KINDS`."""
    return value in MESSAGE_KINDS


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the conversation (tool results live on their :class:`ToolCall`)."""

    role: str
    """``user``, ``assistant`` or ``system``."""
    text: str
    """The message text, bounded (head and tail kept) for very long messages."""
    index: int
    """Position in the source's message order (stable across a run-only read)."""
    is_sidechain: bool = False
    """Written by a subagent (Claude Code Task, stream-json ``parent_tool_use_id``)."""
    kind: MessageKind = "text"
    timestamp: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool invocation and what came back."""

    id: str
    name: str
    arguments: Mapping[str, Any]
    """The call's arguments as a dict; long string values are bounded."""
    outcome: Outcome = "unknown"
    output_excerpt: str = ""
    """The result text, bounded (head and tail kept); images become ``[image]``."""
    turn_index: int = 0
    """Which assistant turn (API response) issued the call, counting from 0."""
    is_sidechain: bool = False
    exit_code: int | None = None
    """The shell exit code where the source records one."""
    error: str | None = None
    """A short description of the failure, when ``outcome == "error"``."""
    details: Mapping[str, Any] = field(default_factory=dict)
    """Small scalar facts from a structured result (e.g. Claude Code's ``toolUseResult``:
    ``filePath``, ``type``, ``interrupted``)."""
    position: int | None = None
    """Where the call stands among the messages: it came after every message whose
    ``index`` is lower and before the others (None when the source order is unknown).
    Gate replay uses it to split a session into runs and find the agent's stops."""

    def as_tool_result(self) -> dict[str, Any]:
        """This call in the effect gate's tool-result shape (DESIGN.md "Effect gate contract").

        A call with no recorded result carries an ``error`` key: there is no evidence it
        happened, so the gate must not credit it.
        """
        result: dict[str, Any] = {
            "tool_name": self.name,
            "args": dict(self.arguments),
            "is_error": self.outcome == "error",
            "success": self.outcome == "success",
            "outcome": self.outcome,
            "id": self.id,
            "output": self.output_excerpt,
            "turn_index": self.turn_index,
            "is_sidechain": self.is_sidechain,
        }
        if self.exit_code is not None:
            result["exit_code"] = self.exit_code
        if self.outcome == "error":
            result["error"] = self.error or _first_line(self.output_excerpt) or "tool error"
        elif self.outcome == "unknown":
            result["error"] = self.error or "no tool result recorded"
        if self.details:
            result["details"] = dict(self.details)
        return result


@dataclass(frozen=True, slots=True)
class FileEdit:
    """A file the source says a tool created, modified or deleted."""

    path: str
    kind: EditKind
    tool_call_id: str


@dataclass(frozen=True, slots=True)
class Termination:
    """Why the run ended: ``normal`` only when the agent itself finished its turn."""

    reason: TerminationReason
    detail: str = ""

    @property
    def is_normal(self) -> bool:
        return self.reason == "normal"


@dataclass(frozen=True, slots=True)
class Trajectory:
    """One agent run in normalized form.

    ``user_request`` is the last real user prompt (never a tool result, IDE/CLI noise or a
    compaction summary); ``final_message`` is the agent's last text in this run (never a
    synthetic CLI message such as a usage-limit notice: those are terminations).
    """

    id: str
    source: str
    format: str
    messages: tuple[Message, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    file_edits: tuple[FileEdit, ...] = ()
    final_message: str | None = None
    termination: Termination = field(default_factory=lambda: Termination("unknown"))
    user_request: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def claimed_completion(self) -> bool:
        """The agent had the last word and the run ended normally."""
        return bool(self.final_message and self.final_message.strip()) and (
            self.termination.is_normal
        )

    def tool_results(self, *, include_sidechains: bool = True) -> list[dict[str, Any]]:
        """Every tool call in the effect gate's tool-result shape, in order."""
        return [
            c.as_tool_result() for c in self.tool_calls if include_sidechains or not c.is_sidechain
        ]

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape written by ``earnest trajectory convert`` (docs/formats.md)."""
        return {
            "schema": SCHEMA,
            "id": self.id,
            "source": self.source,
            "format": self.format,
            "user_request": self.user_request,
            "final_message": self.final_message,
            "termination": {"reason": self.termination.reason, "detail": self.termination.detail},
            "messages": [
                _drop_none(
                    {
                        "role": m.role,
                        "text": m.text,
                        "index": m.index,
                        "is_sidechain": m.is_sidechain,
                        "kind": m.kind,
                        "timestamp": m.timestamp,
                    }
                )
                for m in self.messages
            ],
            "tool_calls": [
                _drop_none(
                    {
                        "id": c.id,
                        "name": c.name,
                        "arguments": dict(c.arguments),
                        "outcome": c.outcome,
                        "output_excerpt": c.output_excerpt,
                        "turn_index": c.turn_index,
                        "is_sidechain": c.is_sidechain,
                        "exit_code": c.exit_code,
                        "error": c.error,
                        "details": dict(c.details) if c.details else None,
                        "position": c.position,
                    }
                )
                for c in self.tool_calls
            ],
            "file_edits": [
                {"path": e.path, "kind": e.kind, "tool_call_id": e.tool_call_id}
                for e in self.file_edits
            ],
            "metadata": dict(self.metadata),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trajectory:
        """Rebuild a trajectory from :meth:`to_dict`'s shape; raises ``ValueError`` if invalid."""
        if data.get("schema") != SCHEMA:
            raise ValueError(f"not an {SCHEMA} record (schema={data.get('schema')!r})")
        term = _mapping(data.get("termination") or {}, "termination")
        reason = str(term.get("reason", "unknown"))
        if not is_termination_reason(reason):
            raise ValueError(f"unknown termination reason {reason!r}")
        messages = []
        for raw in _list(data.get("messages"), "messages"):
            m = _mapping(raw, "message")
            kind = str(m.get("kind", "text"))
            if not is_message_kind(kind):
                raise ValueError(f"unknown message kind {kind!r}")
            messages.append(
                Message(
                    role=_str(m, "role"),
                    text=_str(m, "text"),
                    index=_int(m, "index"),
                    is_sidechain=bool(m.get("is_sidechain", False)),
                    kind=kind,
                    timestamp=_opt_str(m, "timestamp"),
                )
            )
        calls = []
        for raw in _list(data.get("tool_calls"), "tool_calls"):
            c = _mapping(raw, "tool call")
            outcome = str(c.get("outcome", "unknown"))
            if not is_outcome(outcome):
                raise ValueError(f"unknown tool outcome {outcome!r}")
            exit_code = c.get("exit_code")
            position = c.get("position")
            calls.append(
                ToolCall(
                    id=_str(c, "id"),
                    name=_str(c, "name"),
                    arguments=dict(_mapping(c.get("arguments") or {}, "arguments")),
                    outcome=outcome,
                    output_excerpt=str(c.get("output_excerpt", "")),
                    turn_index=_int(c, "turn_index", 0),
                    is_sidechain=bool(c.get("is_sidechain", False)),
                    exit_code=exit_code if isinstance(exit_code, int) else None,
                    error=_opt_str(c, "error"),
                    details=dict(_mapping(c.get("details") or {}, "details")),
                    position=(
                        position
                        if isinstance(position, int) and not isinstance(position, bool)
                        else None
                    ),
                )
            )
        edits = []
        for raw in _list(data.get("file_edits"), "file_edits"):
            e = _mapping(raw, "file edit")
            kind = str(e.get("kind"))
            if not is_edit_kind(kind):
                raise ValueError(f"unknown file edit kind {kind!r}")
            edits.append(
                FileEdit(
                    path=_str(e, "path"),
                    kind=kind,
                    tool_call_id=_str(e, "tool_call_id"),
                )
            )
        return cls(
            id=_str(data, "id"),
            source=_str(data, "source"),
            format=_str(data, "format"),
            messages=tuple(messages),
            tool_calls=tuple(calls),
            file_edits=tuple(edits),
            final_message=_opt_str(data, "final_message"),
            termination=Termination(reason, str(term.get("detail", ""))),
            user_request=_opt_str(data, "user_request"),
            metadata=dict(_mapping(data.get("metadata") or {}, "metadata")),
        )


SCHEMA = "earnest.trajectory/1"
"""The ``schema`` value of every normalized trajectory record."""


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0][:200] if text else ""


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} must be an object, got {type(value).__name__}")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a list, got {type(value).__name__}")
    return value


def _str(d: Mapping[str, Any], key: str) -> str:
    value = d.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string")
    return value


def _opt_str(d: Mapping[str, Any], key: str) -> str | None:
    value = d.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string or null")
    return value


def _int(d: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = d.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key!r} must be an integer")
    return value


__all__ = [
    "EDIT_KINDS",
    "MESSAGE_KINDS",
    "OUTCOMES",
    "SCHEMA",
    "TERMINATION_REASONS",
    "EditKind",
    "FileEdit",
    "Message",
    "MessageKind",
    "Outcome",
    "Termination",
    "TerminationReason",
    "ToolCall",
    "Trajectory",
    "is_edit_kind",
    "is_message_kind",
    "is_outcome",
    "is_termination_reason",
]
