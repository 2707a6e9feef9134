"""The accumulator every reader feeds: messages, tool calls by id, signals, then a Trajectory.

Readers translate their format's records into calls on a :class:`TrajectoryBuilder`; the
builder owns the shared judgements (which prompt is the request, which text is final, how
a run without an explicit end signal ended) so that no reader forks them.

Example:
    >>> b = TrajectoryBuilder(id="s1", source="run.jsonl", format="demo")
    >>> b.message("user", "Add a test", kind="prompt")
    >>> turn = b.new_turn()
    >>> _ = b.tool_call("t1", "Write", {"file_path": "t.py"}, edits=[("t.py", "create")])
    >>> b.tool_result("t1", is_error=False, output="ok")
    True
    >>> b.message("assistant", "Done.")
    >>> t = b.build()
    >>> t.user_request, t.final_message, t.termination.reason, len(t.file_edits)
    ('Add a test', 'Done.', 'normal', 1)
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from earnest.trajectory.model import (
    EditKind,
    FileEdit,
    Message,
    MessageKind,
    Outcome,
    Termination,
    TerminationReason,
    ToolCall,
    Trajectory,
    is_termination_reason,
)
from earnest.trajectory.text import (
    MESSAGE_CHARS,
    OUTPUT_CHARS,
    bound_arguments,
    excerpt,
)

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any, Literal

_NO_DETAILS: Mapping[str, Any] = MappingProxyType({})
"""Shared by every call without details: one empty dict per call adds up."""


class _Call:
    """A tool call while it is still being assembled (its result may arrive later)."""

    __slots__ = (
        "arguments",
        "details",
        "edits",
        "error",
        "exit_code",
        "id",
        "name",
        "outcome",
        "output",
        "position",
        "sidechain",
        "turn",
    )

    def __init__(
        self,
        id: str,
        name: str,
        arguments: dict[str, Any],
        turn: int,
        sidechain: bool,
        position: int,
    ) -> None:
        self.id = id
        self.position = position
        self.name = name
        self.arguments = arguments
        self.turn = turn
        self.sidechain = sidechain
        self.outcome: Outcome = "unknown"
        self.output = ""
        self.exit_code: int | None = None
        self.error: str | None = None
        self.details: dict[str, Any] = {}
        self.edits: list[tuple[str, EditKind]] = []

    def freeze(self) -> ToolCall:
        return ToolCall(
            id=self.id,
            name=self.name,
            arguments=self.arguments,
            outcome=self.outcome,
            output_excerpt=self.output,
            turn_index=max(self.turn, 0),
            is_sidechain=self.sidechain,
            exit_code=self.exit_code,
            error=self.error,
            details=self.details or _NO_DETAILS,
            position=self.position,
        )


class TrajectoryBuilder:
    """Collects one run's records and produces a frozen :class:`Trajectory`.

    ``run_only`` keeps only what follows the last real user prompt (older runs are dropped
    as they are passed, so memory stays bounded). ``request_policy`` picks the first or
    the last real prompt as the request (harness formats put observations in user turns).
    """

    def __init__(
        self,
        *,
        id: str,
        source: str,
        format: str,
        output_chars: int = OUTPUT_CHARS,
        message_chars: int = MESSAGE_CHARS,
        run_only: bool = False,
        request_policy: Literal["first", "last"] = "last",
    ) -> None:
        self.id = id
        self.source = source
        self.format = format
        self.output_chars = output_chars
        self.message_chars = message_chars
        self.run_only = run_only
        self.request_policy = request_policy
        self.metadata: dict[str, Any] = {}
        self.turn = -1
        self._messages: list[Message] = []
        self._calls: list[_Call] = []
        self._by_id: dict[str, _Call] = {}
        self._next_index = 0
        self._has_main = False
        self._tail: dict[bool, tuple[str, str]] = {}
        self._first_prompt: dict[bool, int] = {}
        self._last_prompt: dict[bool, int] = {}
        self._termination: Termination | None = None
        self._anon = 0

    # -- feeding -----------------------------------------------------------------------

    def new_turn(self) -> int:
        """Start a new assistant turn (one API response); returns its index."""
        self.turn += 1
        return self.turn

    @property
    def empty(self) -> bool:
        return not self._messages and not self._calls and self._termination is None

    def message(
        self,
        role: str,
        text: str,
        *,
        kind: MessageKind = "text",
        sidechain: bool = False,
        timestamp: str | None = None,
    ) -> None:
        """Add a message. A user ``prompt`` on the primary chain starts a new run."""
        if not sidechain:
            self._has_main = True
        if role == "user" and kind == "prompt" and self.starts_run(sidechain):
            self._messages.clear()
            self._calls.clear()
            self._by_id.clear()
            self._first_prompt.clear()
            self._last_prompt.clear()
        position = len(self._messages)
        self._messages.append(
            Message(
                role=sys.intern(role),
                text=excerpt(text, self.message_chars),
                index=self._next_index,
                is_sidechain=sidechain,
                kind=kind,
                timestamp=timestamp,
            )
        )
        self._next_index += 1
        if role == "user" and kind == "prompt":
            self._first_prompt.setdefault(sidechain, position)
            self._last_prompt[sidechain] = position
            self._tail[sidechain] = ("prompt", "")
        elif role == "assistant" and kind == "text":
            self._tail[sidechain] = ("text", "")
        elif kind == "interrupt":
            self._tail[sidechain] = ("signal:interrupted", text.strip()[:200])

    def signal(
        self, reason: TerminationReason, detail: str = "", *, sidechain: bool = False
    ) -> None:
        """Note an abnormal event (API error, limit, interrupt); later assistant text clears it."""
        if not sidechain:
            self._has_main = True
        self._tail[sidechain] = (f"signal:{reason}", detail[:500])

    def terminate(self, reason: TerminationReason, detail: str = "") -> None:
        """Record the run's explicit end (a result event); overrides inference."""
        self._termination = Termination(reason, detail[:500])

    def clear_termination(self) -> None:
        """Forget an explicit end (a new task started after it)."""
        self._termination = None

    def tool_call(
        self,
        id: str | None,
        name: str,
        arguments: Any,
        *,
        sidechain: bool = False,
        edits: Iterable[tuple[str, EditKind]] = (),
    ) -> str:
        """Add a tool call (a repeated id is ignored); returns the call's id."""
        if not sidechain:
            self._has_main = True
        if not id or not isinstance(id, str):  # a transcript's id may be anything
            self._anon += 1
            id = f"call-{self._anon}"
        if id in self._by_id:
            return id
        args = bound_arguments(arguments if isinstance(arguments, dict) else {})
        name = name if isinstance(name, str) and name else "unknown"
        call = _Call(id, sys.intern(name), args, self.turn, sidechain, self._next_index)
        call.edits.extend(edits)
        self._calls.append(call)
        self._by_id[id] = call
        self._tail[sidechain] = ("tool_call", "")
        return id

    def _get(self, id: Any) -> _Call | None:
        # Ids come from untrusted records: a list or a dict is no id (and is unhashable).
        return self._by_id.get(id) if isinstance(id, str) else None

    def has_call(self, id: str) -> bool:
        return self._get(id) is not None

    def tool_result(
        self,
        id: str,
        *,
        is_error: bool | None,
        output: str = "",
        exit_code: int | None = None,
        error: str | None = None,
        details: dict[str, Any] | None = None,
        edits: Iterable[tuple[str, EditKind]] | None = None,
    ) -> bool:
        """Attach a result to the call ``id``; ``is_error=None`` keeps the outcome unknown.

        Returns False when no call has that id (the reader decides whether to warn).
        """
        call = self._get(id)
        if call is None:
            return False
        if is_error is not None:
            call.outcome = "error" if is_error else "success"
        call.output = excerpt(output, self.output_chars)
        if exit_code is not None:
            call.exit_code = exit_code
        if error:
            call.error = error[:500]
        if details:
            call.details.update((sys.intern(str(k)), v) for k, v in details.items())
        if edits is not None:
            call.edits = list(edits)
        self._tail[call.sidechain] = ("tool_result", "")
        return True

    def call_name(self, id: str) -> str | None:
        call = self._get(id)
        return call.name if call is not None else None

    def call_edits(self, id: str) -> list[tuple[str, EditKind]]:
        call = self._get(id)
        return list(call.edits) if call is not None else []

    def pending_ids(self) -> list[str]:
        """Ids of calls that have no result yet, oldest first."""
        return [c.id for c in self._calls if c.outcome == "unknown" and not c.output]

    def set_edits(self, id: str, edits: Iterable[tuple[str, EditKind]]) -> None:
        call = self._get(id)
        if call is not None:
            call.edits = list(edits)

    # -- building ----------------------------------------------------------------------

    def _primary(self, sidechain: bool) -> bool:
        return not sidechain or not self._has_main

    def starts_run(self, sidechain: bool) -> bool:
        """Whether a user prompt on this chain would start a new run (``run_only``)."""
        return self.run_only and self._primary(sidechain)

    def build(self) -> Trajectory:
        """Freeze what was fed into a :class:`Trajectory`."""
        chain = not self._has_main  # subagent-only logs: the sidechain is the run
        messages = tuple(self._messages)
        run_start = self._last_prompt.get(chain, 0)
        prompt_at = (
            self._first_prompt.get(chain)
            if self.request_policy == "first"
            else self._last_prompt.get(chain)
        )
        user_request = messages[prompt_at].text if prompt_at is not None else None
        final = None
        for m in reversed(messages[run_start:]):
            if (
                m.role == "assistant"
                and m.kind == "text"
                and m.is_sidechain == chain
                and m.text.strip()
            ):
                final = m.text
                break
        termination = self._termination or self._infer(chain)
        calls = tuple(c.freeze() for c in self._calls)
        edits = tuple(
            FileEdit(path, kind, c.id)
            for c in self._calls
            if c.outcome != "error"
            for path, kind in c.edits
        )
        return Trajectory(
            id=self.id,
            source=self.source,
            format=self.format,
            messages=messages,
            tool_calls=calls,
            file_edits=edits,
            final_message=final,
            termination=termination,
            user_request=user_request,
            metadata=dict(self.metadata),
        )

    def _infer(self, chain: bool) -> Termination:
        tail = self._tail.get(chain)
        if tail is None:
            return Termination("unknown", "no messages")
        kind, detail = tail
        if kind.startswith("signal:"):
            reason = kind.split(":", 1)[1]
            if is_termination_reason(reason):
                return Termination(reason, detail)
        if kind == "text":
            return Termination("normal")
        if kind == "prompt":
            return Termination("unknown", "no assistant reply after the last user prompt")
        return Termination("truncated", "the log ends inside the agent loop, after a tool call")


__all__ = ["TrajectoryBuilder"]
