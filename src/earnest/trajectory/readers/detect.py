"""Which transcript format a file holds, judged from its first 64 KiB.

JSONL formats are recognised from the keys of their first records; whole JSON documents
from their first keys and a few tell-tale strings. Lines holding a NUL byte are passed over,
so one damaged record does not hide the readable ones. Binary, empty and unrecognised files
give ``None``.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.jsonl"
    >>> _ = p.write_text('{"type":"thread.started","thread_id":"t"}\\n')
    >>> detect_format(p)
    'codex-exec'
"""

from __future__ import annotations

import re
from pathlib import Path

from earnest.safejson import loads as safe_loads

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

HEAD_BYTES = 64 * 1024
_MAX_PROBE_LINES = 40

_CLAUDE_TYPES = frozenset(
    {"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation",
     "progress"}
)  # fmt: skip
_CODEX_EXEC_TYPES = frozenset(
    {"thread.started", "turn.started", "turn.completed", "turn.failed", "item.started",
     "item.updated", "item.completed"}
)  # fmt: skip
_ROLLOUT_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
_GEMINI_TYPES = frozenset({"init", "message", "tool_use", "tool_result", "result"})
_FIRST_KEY = re.compile(r'^\s*(\[\s*)?\{\s*"((?:[^"\\]|\\.)*)"')


def detect_format(path: str | Path) -> str | None:
    """The reader format name for ``path``, or ``None`` if it is not a transcript."""
    if Path(path).is_dir() or Path(path).parent.parent.name == "session":
        # opencode's older JSON storage: the folder, or one of its session files.
        from earnest.trajectory.readers.opencode_storage import is_opencode_storage, storage_of

        if Path(path).is_dir():
            return "opencode" if is_opencode_storage(Path(path)) else None
        if storage_of(Path(path)) is not None:
            return "opencode"
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
            whole = len(head) < HEAD_BYTES or not handle.read(1)
    except OSError:
        return None
    if head.startswith(b"PK\x03\x04"):
        # A zip archive: an Inspect AI .eval log is judged by its member names.
        from earnest.trajectory.readers.inspect_log import is_eval_archive

        return "inspect" if is_eval_archive(Path(path)) else None
    if head.startswith(b"SQLite format 3\x00"):
        # A SQLite file: opencode's session database when it has opencode's tables.
        from earnest.trajectory.readers.opencode_db import is_opencode_db

        return "opencode" if is_opencode_db(Path(path)) else None
    return detect_bytes(head, whole=whole, name=str(path))


def detect_bytes(head: bytes, *, whole: bool = True, name: str = "") -> str | None:
    """Detect from the first bytes of a file (``whole``: these are all of its bytes)."""
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not text:
        return None
    lines = [line.strip() for line in text.split("\n")]
    if not whole:
        lines = lines[:-1]  # the last line may be cut by the head limit
    if "\x00" in text:
        # One damaged record (a NUL from a crash mid-write) must not hide the rest: judge the
        # readable lines. A binary file has none that parse, so it is still not recognised.
        lines = [line for line in lines if "\x00" not in line]
        text = "\n".join(lines)
    objects: list[dict[str, Any]] = []
    nonblank = 0
    for line in lines:
        if not line or line.startswith("//"):
            continue
        nonblank += 1
        if len(objects) >= _MAX_PROBE_LINES:
            break
        try:
            value = safe_loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            objects.append(value)
        elif isinstance(value, list) and nonblank == 1:
            return _classify_array(value)
    if objects:
        single = nonblank == 1 and whole
        found = _classify_records(objects, single=single, name=name)
        if found:
            return found
    return _sniff_document(text, name)


def _classify_records(objects: list[dict[str, Any]], *, single: bool, name: str) -> str | None:
    first = objects[0]
    if single:
        doc = _classify_document(first, name)
        if doc:
            return doc
    if any(o.get("schema") == "earnest.trajectory/1" for o in objects):
        return "earnest"
    if any(isinstance(o.get("resourceSpans"), list) for o in objects):
        return "otlp-json"  # an OTel collector file exporter: one trace request per line
    if any(_agents_trace_item(o) for o in objects):
        return "openai-agents-trace"  # the OpenAI Agents SDK's Trace/Span.export(), one a line
    if any(_langsmith_run(o) for o in objects):
        return "langsmith-runs"
    if _gemini_jsonl(objects):
        return "gemini-cli-session"
    if _pi_session(objects):
        return "pi-session"
    if any(o.get("earnest_cursor_event") == 1 for o in objects):
        return "cursor-hook-events"
    if any("step_index" in o and "source" in o for o in objects):
        return "antigravity"
    if any(isinstance(o.get("raw"), dict) and "kind" in o for o in objects):
        return "claude-managed-agents"
    if any(
        "role" in o and isinstance(o.get("content"), dict) and "type" in o["content"]
        for o in objects
    ):
        return "engram"
    types = {o.get("type") for o in objects if isinstance(o.get("type"), str)}
    if types & _CODEX_EXEC_TYPES:
        return "codex-exec"
    if types & _ROLLOUT_TYPES and any("payload" in o for o in objects):
        return "codex-rollout"
    if any(_copilot_event(o) for o in objects):
        return "copilot-cli-events"
    if any(_qwen_record(o) for o in objects):
        return "qwen-code-chat"  # before Claude Code's: it has sessionId and parentUuid too
    for o in objects:
        t = o.get("type")
        if not isinstance(t, str | None):
            continue  # {"type": ["user"]} is no record type (and unhashable)
        if t == "system" and o.get("subtype") == "init" and "session_id" in o:
            return "claude-stream-json"
        if t in ("user", "assistant") and "parent_tool_use_id" in o:
            return "claude-stream-json"
        if t in _CLAUDE_TYPES and (
            "sessionId" in o or "parentUuid" in o or "leafUuid" in o or "messageId" in o
        ):
            return "claude-code"
        if t == "init" and "subtype" not in o:
            return "gemini-cli-stream"
        if t in ("tool_use", "tool_result") and "tool_id" in o:
            return "gemini-cli-stream"
        if t == "message" and "role" in o and "message" not in o:
            return "gemini-cli-stream"
    if types & {"result"} and any("subtype" in o or "is_error" in o for o in objects):
        return "claude-stream-json" if len(objects) > 1 else "claude-json"
    if all("role" in o for o in objects) and any(
        "content" in o or "tool_calls" in o for o in objects
    ):
        return "openai-chat"
    if any(isinstance(o.get("messages"), list) for o in objects):
        return "openai-chat"
    return None


_COPILOT_TYPES = frozenset(
    {"session.start", "session.resume", "user.message", "assistant.message",
     "tool.execution_start", "tool.execution_complete", "assistant.turn_start"}
)  # fmt: skip


def _copilot_event(o: dict[str, Any]) -> bool:
    """A GitHub Copilot CLI ``events.jsonl`` line
    (:mod:`earnest.trajectory.readers.copilot_events`): ``{type, data, id, timestamp,
    parentId}`` with a dotted event type."""
    kind = o.get("type")
    return (
        isinstance(kind, str)  # a hostile line's type may be a list: never hashed
        and kind in _COPILOT_TYPES
        and isinstance(o.get("data"), dict)
        and "parentId" in o
        and "id" in o
    )


def _qwen_record(o: dict[str, Any]) -> bool:
    """A Qwen Code chat-log line (:mod:`earnest.trajectory.readers.qwen_chat`): a Claude-like
    envelope around a Gemini-style ``parts`` list."""
    message = o.get("message")
    return (
        o.get("type") in ("user", "assistant", "tool_result", "system")
        and "sessionId" in o
        and isinstance(message, dict)
        and isinstance(message.get("parts"), list)
    )


def _pi_session(objects: list[dict[str, Any]]) -> bool:
    """A Pi session file (:mod:`earnest.trajectory.readers.pi_session`): its header line, or
    tree entries whose ``message`` has a Pi role."""
    first = objects[0]
    if first.get("type") == "session" and "cwd" in first and isinstance(first.get("version"), int):
        return True
    return any(
        o.get("type") == "message"
        and "parentId" in o
        and isinstance(o.get("message"), dict)
        and o["message"].get("role") in ("user", "assistant", "toolResult")
        for o in objects
    )


def _gemini_jsonl(objects: list[dict[str, Any]]) -> bool:
    """Gemini CLI 0.4x+ ``session-*.jsonl``: a header line, then messages and ``$set``s."""
    first = objects[0]
    if "type" not in first and "sessionId" in first and "projectHash" in first:
        return True
    return any("$set" in o or "$rewindTo" in o for o in objects)


def _agents_trace_item(o: Any) -> bool:
    """An OpenAI Agents SDK ``Trace.export()`` or ``Span.export()``."""
    return isinstance(o, dict) and (
        (o.get("object") == "trace.span" and "span_data" in o)
        or (o.get("object") == "trace" and "workflow_name" in o)
    )


def _langsmith_run(o: Any) -> bool:
    """A LangSmith run record (``langsmith.schemas.Run``)."""
    return (
        isinstance(o, dict)
        and isinstance(o.get("run_type"), str)
        and "dotted_order" in o
        and "trace_id" in o
    )


def _classify_document(doc: dict[str, Any], name: str) -> str | None:
    if doc.get("schema") == "earnest.trajectory/1":
        return "earnest"
    data = doc.get("data")
    if isinstance(data, list) and any(_agents_trace_item(o) for o in data[:10]):
        return "openai-agents-trace"  # the SDK's BackendSpanExporter batch: {"data": [...]}
    if isinstance(doc.get("resourceSpans"), list):
        return "otlp-json"
    spec = doc.get("eval")
    if isinstance(spec, dict) and "task" in spec and ("samples" in doc or "plan" in doc):
        return "inspect"  # an Inspect AI .json log (inspect_log.is_json_log)
    if doc.get("type") == "result" or (doc.get("role") == "system" and "cost_usd" in doc):
        return "claude-json"
    version = doc.get("schema_version")
    if (isinstance(version, str) and version.upper().startswith("ATIF")) or (
        isinstance(doc.get("steps"), list) and "agent" in doc
    ):
        return "atif"
    if isinstance(doc.get("simulations"), list) and ("tasks" in doc or "info" in doc):
        return "tau2-bench"  # tau2's Results
    if "termination_reason" in doc and "task_id" in doc and ("messages" in doc or "ticks" in doc):
        return "tau2-bench"  # one tau2 SimulationRun (simulations/<id>.json)
    if isinstance(doc.get("messages"), list):
        if "sessionId" in doc or "projectHash" in doc:
            return "gemini-cli-session"
        fmt = doc.get("trajectory_format")
        info = doc.get("info")
        if (isinstance(fmt, str) and fmt.startswith("mini-swe-agent")) or (
            isinstance(info, dict) and "mini_version" in info
        ):
            return "mini-swe-agent"
        return "openai-chat"
    if isinstance(doc.get("history"), list) or (
        isinstance(doc.get("trajectory"), list) and "environment" in doc
    ):
        return "swe-agent"
    if isinstance(doc.get("events"), list):
        return _classify_array(doc["events"])
    return None


def _classify_array(items: list[Any]) -> str | None:
    first = next((i for i in items if isinstance(i, dict)), None)
    if first is None:
        return None
    if "traj" in first and ("task_id" in first or "reward" in first):
        return "tau-bench"
    if isinstance(first.get("parts"), list) and first.get("kind") in ("request", "response"):
        return "pydantic-ai-messages"  # result.all_messages_json()
    if _agents_trace_item(first):
        return "openai-agents-trace"
    if _langsmith_run(first):
        return "langsmith-runs"
    if ("action" in first or "observation" in first) and "source" in first:
        return "openhands"
    if first.get("type") in ("system", "assistant", "user", "result") and "session_id" in first:
        return "claude-json"
    if "role" in first:
        return "openai-chat"
    return None


def _sniff_document(text: str, name: str) -> str | None:
    """A JSON document too large for the head: judge by its first key and tell-tale keys."""
    match = _FIRST_KEY.match(text)
    if not match:
        return None
    is_array = match.group(1) is not None
    key = match.group(2)
    head = text[:HEAD_BYTES]
    if is_array:
        if '"traj"' in head and ('"task_id"' in head or '"reward"' in head):
            return "tau-bench"
        if key == "parts" and '"part_kind"' in head:
            return "pydantic-ai-messages"
        if key == "object" and '"span_data"' in head:
            return "openai-agents-trace"
        if ('"action"' in head or '"observation"' in head) and '"source"' in head:
            return "openhands"
        if key == "type" and '"session_id"' in head:
            return "claude-json"
        if key == "role":
            return "openai-chat"
        return None
    if key == "version" and re.search(r'"eval"\s*:\s*\{', head) and '"task"' in head:
        return "inspect"  # an Inspect AI .json log: {"version": 2, "status": ..., "eval": {...}}
    if key == "timestamp" and (
        '"simulations"' in head or ('"num_trials"' in head and '"user_info"' in head)
    ):
        return "tau2-bench"  # tau2's Results: {timestamp, info, tasks, simulations}
    if key == "data" and re.match(r'\s*\{\s*"data"\s*:\s*\[\s*\{\s*"object"\s*:\s*"trace', text):
        return "openai-agents-trace"
    if key == "id" and '"termination_reason"' in head and '"task_id"' in head:
        return "tau2-bench"  # one tau2 SimulationRun
    if key == "schema" and '"earnest.trajectory/1"' in head:
        return "earnest"
    if key == "resourceSpans":
        return "otlp-json"
    if re.search(r'"schema_version"\s*:\s*"ATIF', head):
        return "atif"
    if key in ("sessionId", "projectHash") and '"messages"' in head:
        return "gemini-cli-session"
    if '"mini_version"' in head or '"trajectory_format": "mini-swe-agent' in head:
        return "mini-swe-agent"
    if key in ("environment", "history", "trajectory") or '"message_type"' in head:
        return "swe-agent"
    if key == "type" and re.match(r'\s*\{\s*"type"\s*:\s*"result"', text):
        return "claude-json"
    if key == "role" and '"cost_usd"' in head:
        return "claude-json"
    if key == "messages":
        return "openai-chat"
    return None


__all__ = ["HEAD_BYTES", "detect_bytes", "detect_format"]
