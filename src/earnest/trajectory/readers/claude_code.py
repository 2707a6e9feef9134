"""Claude Code session transcripts (``~/.claude/projects/<project>/<session>.jsonl``).

Also the engine behind the ``stream-json`` and headless ``json`` readers, which carry the
same messages in a different envelope. Handles: one API response split over several
lines sharing ``message.id`` (merged, repeated blocks dropped); inline sidechains
(``isSidechain``) and subagent files (``agent-*.jsonl``); ``summary``,
``file-history-snapshot``, ``progress`` and ``queue-operation`` records (passed over
before parsing); ``compact_boundary`` and compaction summaries; ``//`` comment lines;
tool results in user lines with the structured ``toolUseResult``; images; synthetic
``<synthetic>`` messages (limits and timeouts are terminations, not completions).

Claude Code 2.1.x keeps a subagent's own calls in ``<session>/subagents/agent-<id>.jsonl``
beside the main transcript, which holds only the Agent (Task) call; its ``toolUseResult``
names the subagent (``agentId``). When that file exists it is read in at that point, as
the subagent's sidechain, so the work a subagent did is part of the run that asked for it.
Since 2.1.33x subagents run in the background: the Agent call returns at once
(``{"isAsync": true, "status": "async_launched", "agentId": ...}``) and the subagent writes
its file while the main agent goes on. The session remembers how far it read each subagent's
file, and each read (:func:`read_claude_code_from`, :func:`read`) ends by reading what the
subagents appended since, whole lines only: a stop hook that resumes the saved session counts
the delegated work once it is there.

Record types read deliberately, not warned about: 2.1.33x adds ``attachment`` (context shown to
the model: environment, date, listings, a hook's rendered error), ``last-prompt``,
``atis-latch``, ``api-request-shape``, ``api-request-blob`` and ``api-request`` (copies of what
was sent to the API: the large ones are passed over before parsing), ``tools-used`` and
``cost-state`` (running totals; the cost goes to ``metadata["cost_state_usd"]``) and
``system``/``stop_hook_summary`` (the hook runs of a stop; the block itself is the
``Stop hook feedback:`` user line).

For the stop hook: :func:`read_claude_code_from` reads from a byte offset and returns the
new offset; :func:`read_claude_run` returns only the current run (since the last prompt).

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> lines = [
    ...     {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}},
    ...     {"type": "assistant", "sessionId": "s", "message": {"id": "m1",
    ...      "model": "claude", "content": [{"type": "text", "text": "Hello!"}]}},
    ... ]
    >>> _ = p.write_text("".join(json.dumps(x) + "\\n" for x in lines))
    >>> session, offset = read_claude_code_from(p)
    >>> t = session.trajectory()
    >>> t.user_request, t.final_message, t.termination.reason, offset == p.stat().st_size
    ('hi', 'Hello!', 'normal', True)
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from pathlib import Path

from earnest.trajectory.model import EditKind, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import parse_line
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import (
    MESSAGE_CHARS,
    OUTPUT_CHARS,
    as_str,
    content_text,
    limit_reason,
    small_details,
    user_text_kind,
)

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FORMAT = "claude-code"

# Records nobody downstream needs; recognised by a substring check before JSON parsing.
_SKIP_MARKERS = (
    b'"type":"progress"',
    b'"type":"file-history-snapshot"',
    b'"type":"queue-operation"',
    # Claude Code 2.1.33x: copies of each API request (the system prompt, every block sent)
    # and the context attached to the conversation: the largest lines, needed by no one.
    b'"type":"api-request-blob"',
    b'"type":"api-request-shape"',
    b'"type":"api-request"',
    b'"type":"attachment"',
)
_QUIET_TYPES = frozenset(
    {
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "tag",
        "agent-name",
        # Claude Code 2.1.33x (see the module docstring)
        "attachment",
        "last-prompt",
        "atis-latch",
        "api-request-shape",
        "api-request-blob",
        "api-request",
        "tools-used",
    }
)
_EXIT_CODE = re.compile(r"Exit code (-?\d+)")
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")  # an agentId names a file: nothing else passes
MAX_SUBAGENT_BYTES = 256 * 1024 * 1024
RECENT_TURNS = 32
"""How many recent API message ids a session remembers to merge split messages."""


def skippable(line: bytes) -> bool:
    """True for top-level progress/snapshot/queue records (the marker precedes ``message``).

    ``message`` is looked for first: in user and assistant records, most of the bytes,
    it comes early, and the markers are then looked for only before it (a match that
    starts before it ends by ``message_at + len(marker)``), not in the whole line.
    """
    message_at = line.find(b'"message":')
    if message_at < 0:
        return any(marker in line for marker in _SKIP_MARKERS)
    for marker in _SKIP_MARKERS:
        at = line.find(marker, 0, message_at + len(marker))
        if 0 <= at < message_at:
            return True
    return False


def is_sidechain(obj: dict[str, Any], *, stream: bool = False) -> bool:
    """Whether a record belongs to a sidechain (a subagent), in either envelope."""
    if stream:
        return obj.get("parent_tool_use_id") is not None
    return bool(obj.get("isSidechain"))


def _meta(obj: dict[str, Any]) -> bool:
    # stream-json marks what Claude Code itself injects (a stop hook's feedback) isSynthetic.
    return bool(obj.get("isMeta") or obj.get("isVisibleInTranscriptOnly") or obj.get("isSynthetic"))


def _names_command(text: str) -> bool:
    return user_text_kind(text) == "noise" and "<command-name>" in text


def command_flag(obj: dict[str, Any]) -> bool | None:
    """Whether a ``user`` record announces a slash command (its expansion comes next).

    ``None`` when the record leaves the flag as it was: no message, or a compaction
    summary. The next meta record is a prompt only when the flag is set.
    """
    msg = obj.get("message")
    if not isinstance(msg, dict) or obj.get("isCompactSummary"):
        return None
    if _meta(obj):
        return False
    content = msg.get("content")
    if isinstance(content, str):
        return _names_command(content)
    if isinstance(content, list):
        return any(
            isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
            and _names_command(block["text"])
            for block in content
        )
    return False


def user_prompt(obj: dict[str, Any], *, after_command: bool = False) -> str | None:
    """The real prompt a ``user`` record carries, or ``None``.

    Not prompts: tool results, IDE and slash-command noise, interrupts, compaction
    summaries, and meta records — except the meta record right after a slash command
    (``after_command``), which is the command's expansion: what the model is asked to do.
    This is the one judgement of "a real user prompt" for the reader and for the stop
    hook's backward scan (:mod:`earnest.trajectory.readers.claude_tail`).
    """
    msg = obj.get("message")
    if not isinstance(msg, dict) or obj.get("isCompactSummary"):
        return None
    content = msg.get("content")
    if _meta(obj):
        text = content_text(content)
        return text if after_command and user_text_kind(text) == "prompt" else None
    if isinstance(content, str):
        return content if user_text_kind(content) == "prompt" else None
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text":
            block_text = block.get("text")
            if isinstance(block_text, str) and user_text_kind(block_text) == "prompt":
                parts.append(block_text)
        elif btype == "image":
            parts.append("[image]")
        elif btype == "document":
            parts.append("[document]")
    return "\n".join(parts) if parts else None


def turn_key(obj: dict[str, Any]) -> str | None:
    """The key an ``assistant`` record's blocks are merged under (its ``message.id``).

    Lines that share it are one API response. ``None`` for synthetic and API-error
    messages, which are not turns.
    """
    msg = obj.get("message")
    if not isinstance(msg, dict):
        return None
    if msg.get("model") == "<synthetic>" or obj.get("isApiErrorMessage"):
        return None
    mid = msg.get("id") if isinstance(msg.get("id"), str) else obj.get("uuid")
    return mid if isinstance(mid, str) else None


def edits_for(name: str, args: Any) -> list[tuple[str, EditKind]]:
    """The file edits a Claude Code tool call makes, from its name and input (shared rules)."""
    return structured_edits(name, args)


class ClaudeCodeSession:
    """An incremental reader of one Claude Code transcript: feed lines, take a snapshot.

    Reusable by a stop hook: keep the session and the offset from
    :func:`read_claude_code_from`, call it again with both when the transcript grows.
    The state lives in memory (one process); warnings number lines from the first line
    this session read.
    """

    continues_earlier = False
    """True once a line continued a message from before the first line read (see
    :meth:`preload_turns`): this session's run may differ from a full read's."""
    final_at = -1
    """Byte offset of the line that holds the newest main-thread assistant text (-1: none
    read): a stop hook tells a final message written since its previous call from an
    identical one it already judged."""

    def __init__(
        self,
        source: str | Path,
        *,
        report: ReadReport | None = None,
        run_only: bool = False,
        stream: bool = False,
        format: str = FORMAT,
        output_chars: int = OUTPUT_CHARS,
        message_chars: int = MESSAGE_CHARS,
    ) -> None:
        self.source = str(source)
        self.report = report if report is not None else ReadReport()
        self.stream = stream
        self.lines = 0
        self.position = 0  # byte offset of the next line fed with :meth:`feed`
        self._line_start: int | None = None
        self.builder = TrajectoryBuilder(
            id=Path(self.source).stem,
            source=self.source,
            format=format,
            output_chars=output_chars,
            message_chars=message_chars,
            run_only=run_only,
        )
        # Recent API message ids → blocks seen (None: used before the first line read).
        self._recent: OrderedDict[str, set[str] | None] = OrderedDict()
        self._session_id: str | None = None
        self._agent_id: str | None = None
        self._orphans = 0
        self._images = 0
        self._compactions = 0
        self._models: list[str] = []
        self._after_command = False
        # agentId -> (bytes, lines) of its file read so far (the file may not exist yet)
        self._subagents_read: dict[str, tuple[int, int]] = {}
        self._in_subagent = False

    # -- feeding -----------------------------------------------------------------------

    def feed(self, raw: bytes, line: int | None = None) -> None:
        """Process one raw line (``line`` is its 1-based number, for warnings)."""
        self.lines += 1
        number = line if line is not None else self.lines
        self._line_start = self.position
        self.position += len(raw)
        obj = parse_line(raw, self.source, number, self.report, skip=skippable)
        if obj is not None:
            self.feed_object(obj, number)
        self._line_start = None

    def feed_object(self, obj: dict[str, Any], line: int | None = None) -> None:
        """Process one parsed record."""
        kind = obj.get("type")
        if not isinstance(kind, str | None):
            # {"type": ["user"]}: no record type at all, and unhashable besides
            self.report.skip(
                self.source, line, f"record type is not a string ({type(kind).__name__})"
            )
            return
        if kind == "assistant":
            self._assistant(obj, line)
        elif kind == "user":
            self._user(obj, line)
        elif kind == "system":
            self._system(obj)
        elif kind == "result":
            apply_result(self.builder, obj)
        elif kind == "summary":
            self.builder.metadata["summaries"] = self.builder.metadata.get("summaries", 0) + 1
        elif kind in _QUIET_TYPES:
            return
        elif kind == "cost-state":
            cost = obj.get("totalCostUSD")
            if isinstance(cost, int | float) and not isinstance(cost, bool):
                self.builder.metadata["cost_state_usd"] = cost
        elif kind is None and obj.get("role") == "system" and "result" in obj:
            apply_result(self.builder, obj)
        else:
            self.report.skip(self.source, line, f"unknown record type {kind!r}")

    # -- records -----------------------------------------------------------------------

    def _envelope(self, obj: dict[str, Any]) -> bool:
        """Note session facts; returns whether the record is a sidechain."""
        if self._session_id is None:
            sid = obj.get("sessionId") or obj.get("session_id")
            if isinstance(sid, str):
                self._session_id = sid
                meta = self.builder.metadata
                meta["session_id"] = sid
                for key in ("cwd", "version", "gitBranch"):
                    if isinstance(obj.get(key), str):
                        meta[key] = obj[key]
        if self._in_subagent:
            return True  # a subagent's file, read in for its Agent call: all sidechain
        if self._agent_id is None and isinstance(obj.get("agentId"), str):
            self._agent_id = obj["agentId"]
            self.builder.metadata["agent_id"] = self._agent_id
        return is_sidechain(obj, stream=self.stream)

    def _assistant(self, obj: dict[str, Any], line: int | None) -> None:
        side = self._envelope(obj)
        msg = obj.get("message")
        if not isinstance(msg, dict):
            self.report.skip(self.source, line, "assistant record without a message")
            return
        content = msg.get("content")
        model = msg.get("model")
        if model == "<synthetic>" or obj.get("isApiErrorMessage"):
            self._synthetic(obj, content_text(content), side)
            return
        if isinstance(model, str) and model not in self._models:
            self._models.append(model)
        seen = self._turn_blocks(turn_key(obj))
        timestamp = as_str(obj.get("timestamp"))
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list):
            return
        for block in blocks:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "text":
                text = block.get("text")
                if isinstance(text, str) and text.strip():
                    key = "t:" + text
                    if key not in seen:
                        seen.add(key)
                        self.builder.message("assistant", text, sidechain=side, timestamp=timestamp)
                        if not side and self._line_start is not None:
                            self.final_at = self._line_start
            elif btype == "tool_use":
                tid = block.get("id")
                name = str(block.get("name") or "unknown")
                args = block.get("input")
                key = f"u:{tid}"
                if key in seen:
                    continue
                seen.add(key)
                self.builder.tool_call(
                    tid if isinstance(tid, str) else None,
                    name,
                    args if isinstance(args, dict) else {},
                    sidechain=side,
                    edits=edits_for(name, args),
                )
            elif btype in ("thinking", "redacted_thinking"):
                continue
            else:
                self.report.unknown(self.source, line, f"assistant block type {btype!r}")

    def _turn_blocks(self, mid: str | None) -> set[str]:
        """The blocks already seen for this API message; a new id starts a new turn."""
        if mid is not None and mid in self._recent:
            self._recent.move_to_end(mid)
            blocks = self._recent[mid]
            if blocks is not None:
                return blocks
            # This line continues a message from before the first line read: what a full
            # read would have merged is unknown here (the caller reads from the start).
            self.continues_earlier = True
        self.builder.new_turn()
        fresh: set[str] = set()
        if mid is not None:
            self._recent[mid] = fresh
            while len(self._recent) > RECENT_TURNS:
                self._recent.popitem(last=False)
        return fresh

    def preload_turns(self, keys: Iterable[str]) -> None:
        """Name the message ids a full read would remember where this session starts.

        ``keys`` oldest first (at most :data:`RECENT_TURNS` count). They age out exactly
        as in a full read; a line that continues one of them before it does sets
        :attr:`continues_earlier`, because its blocks cannot be merged from here.
        """
        for key in keys:
            self._recent[key] = None
            self._recent.move_to_end(key)
        while len(self._recent) > RECENT_TURNS:
            self._recent.popitem(last=False)

    def _synthetic(self, obj: dict[str, Any], text: str, side: bool) -> None:
        self.builder.message("assistant", text, kind="synthetic", sidechain=side)
        if text.strip().startswith("No response requested"):
            self.builder.signal("interrupted", text.strip(), sidechain=side)
        else:
            reason = limit_reason(text)
            self.builder.signal(reason, text.strip(), sidechain=side)

    def _user(self, obj: dict[str, Any], line: int | None) -> None:
        side = self._envelope(obj)
        msg = obj.get("message")
        if not isinstance(msg, dict):
            self.report.skip(self.source, line, "user record without a message")
            return
        content = msg.get("content")
        timestamp = as_str(obj.get("timestamp"))
        if obj.get("isCompactSummary"):
            self.builder.message(
                "user", content_text(content), kind="compact_summary", sidechain=side
            )
            return
        prompt = user_prompt(obj, after_command=self._after_command)
        self._after_command = command_flag(obj) is True
        if _meta(obj):
            if prompt is not None:
                self._prompt(prompt, side, timestamp)
            else:
                text = content_text(content)
                self.builder.message(
                    "user", text, kind="noise", sidechain=side, timestamp=timestamp
                )
            return
        if isinstance(content, str):
            if prompt is not None:
                self._prompt(prompt, side, timestamp)
            else:
                kind = user_text_kind(content)
                self.builder.message(
                    "user", content, kind=kind, sidechain=side, timestamp=timestamp
                )
            return
        if not isinstance(content, list):
            return
        structured = obj.get("tool_use_result" if self.stream else "toolUseResult")
        if structured is None:
            structured = obj.get("toolUseResult", obj.get("tool_use_result"))
        for block in content:
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            if btype == "tool_result":
                self._tool_result(block, structured, line)
            elif btype == "text":
                block_text = block.get("text")
                if isinstance(block_text, str) and user_text_kind(block_text) != "prompt":
                    self.builder.message(
                        "user",
                        block_text,
                        kind=user_text_kind(block_text),
                        sidechain=side,
                        timestamp=timestamp,
                    )
            elif btype == "image":
                self._images += 1
            elif btype != "document":
                self.report.unknown(self.source, line, f"user block type {btype!r}")
        if prompt is not None:
            self._prompt(prompt, side, timestamp)

    def _prompt(self, text: str, side: bool, timestamp: str | None) -> None:
        builder = self.builder
        if builder.run_only and self._line_start is not None and builder.starts_run(side):
            # Where the run begins in the file: a name for it that does not depend on
            # where reading began (the stop hook may start at the prompt, not at byte 0).
            builder.metadata["run_offset"] = self._line_start
        builder.message("user", text, kind="prompt", sidechain=side, timestamp=timestamp)

    def _tool_result(self, block: dict[str, Any], structured: Any, line: int | None) -> None:
        tid = block.get("tool_use_id")
        if not isinstance(tid, str):
            self.report.skip(self.source, line, "tool_result without tool_use_id")
            return
        raw = block.get("content")
        if isinstance(raw, list):
            self._images += sum(1 for b in raw if isinstance(b, dict) and b.get("type") == "image")
        output = content_text(raw)
        is_error = bool(block.get("is_error"))
        exit_code = None
        if output.startswith("Exit code "):
            match = _EXIT_CODE.match(output)
            if match:
                exit_code = int(match.group(1))
        error = None
        details: dict[str, Any] = {}
        edits: list[tuple[str, EditKind]] | None = None
        if isinstance(structured, dict):
            details = small_details(structured)
            if isinstance(structured.get("exitCode"), int):
                exit_code = structured["exitCode"]
            path = structured.get("filePath")
            if isinstance(path, str) and structured.get("type") in ("create", "update"):
                edits = [(path, "create" if structured["type"] == "create" else "modify")]
        elif isinstance(structured, str) and is_error:
            error = structured
        if is_error and error is None:
            error = output.strip().split("\n", 1)[0][:300] or "tool error"
        found = self.builder.tool_result(
            tid,
            is_error=is_error,
            output=output,
            exit_code=exit_code,
            error=error if is_error else None,
            details=details,
            edits=edits,
        )
        if not found:
            self._orphans += 1
        if isinstance(structured, dict) and isinstance(structured.get("agentId"), str):
            self._read_subagent(structured["agentId"])

    def subagent_path(self, agent_id: str) -> Path | None:
        """Where Claude Code 2.1.x keeps the subagent ``agent_id``'s transcript, if there."""
        path = self._subagent_file(agent_id)
        return path if path is not None and path.is_file() else None

    def _subagent_file(self, agent_id: str) -> Path | None:
        if self.stream or not _AGENT_ID.fullmatch(agent_id):
            return None
        source = Path(self.source)
        return source.parent / source.stem / "subagents" / f"agent-{agent_id}.jsonl"

    def _read_subagent(self, agent_id: str) -> None:
        """Start reading a subagent's own transcript in, as sidechain records.

        A subagent that runs in the background may not have written its file yet: it is
        remembered, and :meth:`refresh_subagents` reads what it appends.
        """
        if self._in_subagent or agent_id in self._subagents_read:
            return
        if self._subagent_file(agent_id) is None:
            return
        self._subagents_read[agent_id] = (0, 0)
        self._read_subagent_from(agent_id, final=False)

    def refresh_subagents(self, *, final: bool = False) -> None:
        """Read what each subagent's file gained since it was last read (whole lines only).

        Example:
            >>> ClaudeCodeSession("s.jsonl").refresh_subagents()  # no subagent: nothing to do
        """
        for agent_id in list(self._subagents_read):
            self._read_subagent_from(agent_id, final=final)

    def _read_subagent_from(self, agent_id: str, *, final: bool) -> None:
        path = self._subagent_file(agent_id)
        done, number = self._subagents_read.get(agent_id, (0, 0))
        if path is None:
            return
        try:
            size = path.stat().st_size
        except OSError:
            return  # not written yet (a background subagent): read when it is there
        if size == done:
            return
        if size < done:
            self.report.warn(str(path), None, "subagent transcript shrank; not read again")
            self._subagents_read[agent_id] = (size, number)
            return
        if size > MAX_SUBAGENT_BYTES:
            self.report.warn(str(path), None, "subagent transcript too large; not read")
            self._subagents_read[agent_id] = (size, number)
            return
        try:
            handle = open(path, "rb")  # noqa: SIM115 - closed below, errors reported
        except OSError as exc:
            self.report.warn(str(path), None, f"subagent transcript not read: {exc.strerror}")
            return
        saved = (self._line_start, self._after_command)
        self._in_subagent, self._line_start = True, None
        first = done == 0
        try:
            with handle:
                handle.seek(done)
                for raw in handle:
                    if not raw.endswith(b"\n") and not final:
                        break  # a line the subagent is still writing: the next read takes it
                    done += len(raw)
                    number += 1
                    obj = parse_line(raw, str(path), number, self.report, skip=skippable)
                    if obj is not None:
                        self.feed_object(obj, number)
        finally:
            self._in_subagent = False
            self._line_start, self._after_command = saved
            self._subagents_read[agent_id] = (done, number)
        if first:
            meta = self.builder.metadata
            meta["subagent_files"] = meta.get("subagent_files", 0) + 1

    def _system(self, obj: dict[str, Any]) -> None:
        side = self._envelope(obj)
        subtype = obj.get("subtype")
        if subtype == "init":
            meta = self.builder.metadata
            for key in ("model", "cwd", "claude_code_version", "permissionMode"):
                if isinstance(obj.get(key), str):
                    meta[key] = obj[key]
            sid = obj.get("session_id")
            if isinstance(sid, str):
                meta["session_id"] = sid
                self._session_id = sid
        elif subtype == "api_error":
            detail = obj.get("error") or obj.get("cause") or obj.get("content")
            detail_text = detail if isinstance(detail, str) else content_text(detail)
            if not detail_text:
                attempt, most = obj.get("retryAttempt"), obj.get("maxRetries")
                detail_text = "API error" + (f" (retry {attempt}/{most})" if attempt else "")
            self.builder.signal("api_error", detail_text[:300], sidechain=side)
        elif subtype == "compact_boundary":
            self._compactions += 1
        elif subtype == "local_command":
            text = obj.get("content")
            if isinstance(text, str):
                self.builder.message("system", text, kind="noise", sidechain=side)

    # -- snapshot ----------------------------------------------------------------------

    def trajectory(self) -> Trajectory:
        """The trajectory as read so far (the session can keep reading afterwards)."""
        b = self.builder
        if self._session_id:
            b.id = self._session_id + (f":agent-{self._agent_id}" if self._agent_id else "")
        meta = b.metadata
        meta["assistant_turns"] = b.turn + 1
        if self._models:
            meta["models"] = list(self._models)
        if self._images:
            meta["images"] = self._images
        if self._compactions:
            meta["compactions"] = self._compactions
        if self._orphans:
            meta["orphan_tool_results"] = self._orphans
        return b.build()


def apply_result(builder: TrajectoryBuilder, obj: dict[str, Any]) -> None:
    """Apply a headless ``result`` record: the run's explicit end and its final text."""
    subtype = obj.get("subtype")
    is_error = obj.get("is_error")
    result = obj.get("result")
    text = result if isinstance(result, str) else ""
    meta = builder.metadata
    for key in ("num_turns", "total_cost_usd", "cost_usd", "duration_ms", "session_id"):
        if key in obj and isinstance(obj[key], int | float | str):
            meta[key] = obj[key]
    if isinstance(subtype, str):
        meta["result_subtype"] = subtype
    errors = obj.get("errors")
    error_text = "; ".join(str(e) for e in errors) if isinstance(errors, list) else ""
    if subtype == "error_max_turns":
        builder.terminate("max_turns", f"error_max_turns after {obj.get('num_turns')} turns")
    elif is_error or (isinstance(subtype, str) and subtype.startswith("error")):
        detail = text or error_text or str(subtype)
        reason = "usage_limit" if subtype == "error_max_budget_usd" else limit_reason(detail)
        builder.terminate(reason, detail)
    else:
        if text.strip() and not _has_final_text(builder, text):
            builder.message("assistant", text)
        builder.terminate("normal")


def _has_final_text(builder: TrajectoryBuilder, text: str) -> bool:
    trajectory = builder.build()
    return (trajectory.final_message or "").strip() == text.strip()


def read_claude_code_from(
    path: str | Path,
    offset: int = 0,
    session: ClaudeCodeSession | None = None,
    *,
    final: bool = True,
    run_only: bool = False,
    report: ReadReport | None = None,
) -> tuple[ClaudeCodeSession, int]:
    """Read a Claude Code transcript from byte ``offset``; return the session and new offset.

    Only whole lines are consumed unless ``final`` (then an unterminated last line is read
    too; a live transcript's half-written last line should wait: pass ``final=False``).
    Pass the returned session and offset back in to continue where this call stopped.
    """
    if session is None:
        session = ClaudeCodeSession(path, report=report, run_only=run_only)
    session.position = offset
    with open(path, "rb") as handle:
        handle.seek(offset)
        for raw in handle:
            if not raw.endswith(b"\n") and not final:
                break
            session.feed(raw)
    session.refresh_subagents(final=final)
    return session, session.position


def read_claude_run(path: str | Path, *, report: ReadReport | None = None) -> Trajectory:
    """The current run of a Claude Code session: everything since the last real prompt."""
    session, _ = read_claude_code_from(path, run_only=True, report=report)
    return session.trajectory()


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """Reader entry point: one trajectory per session file."""
    session = ClaudeCodeSession(path, report=report, **options)
    with open(path, "rb") as handle:
        for raw in handle:
            session.feed(raw)
    session.refresh_subagents(final=True)
    yield session.trajectory()


__all__ = [
    "FORMAT",
    "RECENT_TURNS",
    "ClaudeCodeSession",
    "apply_result",
    "command_flag",
    "edits_for",
    "is_sidechain",
    "read",
    "read_claude_code_from",
    "read_claude_run",
    "skippable",
    "turn_key",
    "user_prompt",
]
