"""Qwen Code chat logs: ``~/.qwen/projects/<cwd, "/" and "_" as "-">/chats/<sessionId>.jsonl``.

One JSON record per line, ``{uuid, parentUuid, sessionId, timestamp, type, cwd, version,
message?}``, where ``message`` is Gemini-style ``{role, parts}``:

- ``user``: the user's prompt (``parts[].text``);
- ``assistant``: one model response (``role: "model"``): ``text`` parts (``thought: true``
  parts are reasoning, not the answer) and ``functionCall`` parts ``{id, name, args}``;
- ``tool_result``: ``functionResponse`` parts ``{id, name, response: {output | error}}``, and
  ``toolCallResult: {callId, status, resultDisplay}``;
- ``system``: Qwen's own bookkeeping (``ui_telemetry``, ``attribution_snapshot``,
  ``chat_compression``...): not part of the conversation, passed over — but for a subagent's
  tool calls.

**Subagents** (Qwen's ``agent`` tool) leave no file of their own (0.15.10, 0.24.4): the main log
holds the ``agent`` call and its result (``toolCallResult.resultDisplay`` of type
``task_execution``: the subagent's final text, a summary with counts only), and between the two
one ``system``/``ui_telemetry`` record per subagent tool call, ``uiEvent: {"event.name":
"qwen-code.tool_call", function_name, function_args, status, success, error?, call_id?,
prompt_id}``. A subagent's ``prompt_id`` is ``<session>#<agent>-<id>#<round>`` (the main
agent's is a plain id, or ``<session>########<round>`` in 0.24): those calls are read as the
subagent's (sidechain) calls, with the telemetry's outcome and no output. Qwen 0.15.10 calls a
shell command that exited non-zero a success there (0.24 does not): a shell call a release
before 0.24 calls a success is read with an unknown outcome (:data:`SHELL_FAILURES_FROM`).

Qwen does not write a stop hook's block reason into the log: after a block the run goes on
under the same prompt.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> rec = {"sessionId": "s", "parentUuid": None, "cwd": "/w", "version": "0.15.10"}
    >>> _ = p.write_text("\\n".join(json.dumps({**rec, **r}) for r in [
    ...     {"uuid": "1", "type": "user", "message": {"role": "user", "parts": [{"text": "ls"}]}},
    ...     {"uuid": "2", "type": "assistant", "message": {"role": "model", "parts": [
    ...         {"functionCall": {"id": "c1", "name": "list_directory", "args": {"path": "/w"}}}]}},
    ...     {"uuid": "3", "type": "tool_result", "message": {"role": "user", "parts": [
    ...         {"functionResponse": {"id": "c1", "name": "list_directory",
    ...                               "response": {"output": "a.py"}}}]}},
    ...     {"uuid": "4", "type": "assistant",
    ...      "message": {"role": "model", "parts": [{"text": "One file."}]}}]) + "\\n")
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, t.tool_calls[0].outcome, t.final_message
    ('ls', 'success', 'One file.')
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines, lines_backward, parse_line
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_str, content_text, parse_arguments, user_text_kind

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FORMAT = "qwen-code-chat"
RECORD_TYPES = frozenset({"user", "assistant", "tool_result", "system"})


def run_start(path: Path) -> int:
    """The byte offset of the line that starts the log's current run: its last real prompt
    (a ``user`` record whose text :func:`~earnest.trajectory.text.user_text_kind` calls a
    prompt, as :func:`read` judges it), found by reading the file backwards; 0 when there is
    none. A stop hook reads from there (``read(path, report, start=...)``) instead of
    parsing the whole log: the same run, for a fraction of the work on a long session.

    Example:
        >>> import tempfile, pathlib, json
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
        >>> def user(t): return {"type": "user", "message": {"role": "user", "parts": [{"text": t}]}}
        >>> lines = [json.dumps(r) + "\\n" for r in (user("first"), user("second"))]
        >>> _ = p.write_text("".join(lines))
        >>> run_start(p) == len(lines[0])
        True
    """
    report = ReadReport()
    with open(path, "rb") as handle:
        for offset, raw in lines_backward(handle, handle.seek(0, 2)):
            if b'"user"' not in raw or not raw.endswith(b"\n"):
                continue
            record = parse_line(raw, str(path), None, report)
            if record is None or record.get("type") != "user":
                continue
            message = record.get("message")
            parts = message.get("parts") if isinstance(message, dict) else None
            if not isinstance(parts, list):
                continue
            text = "".join(
                p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
            if text.strip() and user_text_kind(text) == "prompt":
                return offset
    return 0


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per chat log; ``start`` (a byte offset from :func:`run_start`) reads
    from there on, for the run that begins there."""
    name = str(path)
    start = int(options.pop("start", 0) or 0)
    builder: TrajectoryBuilder | None = None
    turns = 0
    for number, record in iter_json_lines(path, report, start=start):
        kind = record.get("type")
        if builder is None:
            sid = as_str(record.get("sessionId"))
            builder = TrajectoryBuilder(id=sid or path.stem, source=name, format=FORMAT, **options)
            if sid:
                builder.metadata["session_id"] = sid
            version = as_str(record.get("version"))
            if version:
                builder.metadata["cli_version"] = version
            if start:
                builder.metadata["run_offset"] = start
        if kind == "system":
            if record.get("subtype") == "ui_telemetry":
                _subagent_call(builder, record)
            continue
        message = record.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        if kind not in RECORD_TYPES or not isinstance(parts, list):
            report.skip(name, number, f"not a Qwen Code message (type {kind!r})")
            continue
        stamp = as_str(record.get("timestamp"))
        if kind == "assistant":
            builder.new_turn()
            turns += 1
            _assistant(builder, parts, stamp)
        else:
            _user(builder, record, parts, stamp, name, number, report)
    if builder is None:
        return
    builder.metadata["assistant_turns"] = turns
    yield builder.build()


def _subagent_call(builder: TrajectoryBuilder, record: dict[str, Any]) -> None:
    """A subagent's tool call, told by its telemetry record (see the module doc)."""
    payload = record.get("systemPayload")
    event = payload.get("uiEvent") if isinstance(payload, dict) else None
    if not isinstance(event, dict) or event.get("event.name") != "qwen-code.tool_call":
        return
    prompt = as_str(event.get("prompt_id")) or ""
    rounds = prompt.split("#")
    if len(rounds) < 3 or not rounds[1]:  # the main agent's own call (its result is recorded)
        return
    name = str(event.get("function_name") or "unknown")
    args = parse_arguments(event.get("function_args"))
    call = builder.tool_call(
        as_str(event.get("call_id")), name, args, sidechain=True, edits=structured_edits(name, args)
    )
    error = event.get("error")
    failed = event.get("success") is False or event.get("status") in ("error", "cancelled")
    if not failed and name == SHELL_TOOL and not _reports_shell_failures(record):
        # No output to read, and an outcome that says nothing: the call happened, its result
        # is unknown, so it backs no check (a red test run must not back "all tests pass").
        version = as_str(record.get("version")) or "of unknown version"
        builder.tool_result(call, is_error=None, error=f"{UNTOLD_SHELL} (Qwen Code {version})")
        return
    builder.tool_result(
        call,
        is_error=failed,
        output=content_text(error) if failed and error is not None else "",
        error=(content_text(error) if error is not None else f"status {event.get('status')}")
        if failed
        else None,
    )


SHELL_TOOL = "run_shell_command"
"""Qwen Code's shell tool."""
SHELL_FAILURES_FROM = (0, 24)
"""The first Qwen Code release known to report a subagent's failed shell command as failed in
its telemetry (0.24.4: ``success: false``, ``status: "error"``, the output in ``error``); 0.15.10
reports every one a success, a red test run's exit status 1 included (both seen in the real-CLI
tier, ``test_g_a_subagents_failing_test_run_backs_no_pass``)."""
UNTOLD_SHELL = (
    "a subagent's shell command, its outcome unknown: this release reports every one a success"
)


def _reports_shell_failures(record: dict[str, Any]) -> bool:
    """Whether the release that wrote ``record`` tells a subagent's failed shell command from
    a successful one (:data:`SHELL_FAILURES_FROM` on; an unknown version does not)."""
    parts = (as_str(record.get("version")) or "").split(".")[:2]
    try:
        release = tuple(int(part) for part in parts)
    except ValueError:
        return False
    return len(release) == 2 and release >= SHELL_FAILURES_FROM


def _assistant(builder: TrajectoryBuilder, parts: list[Any], stamp: str | None) -> None:
    texts: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        call = part.get("functionCall")
        if isinstance(call, dict):
            name = str(call.get("name") or "unknown")
            args = parse_arguments(call.get("args"))
            builder.tool_call(
                as_str(call.get("id")), name, args, edits=structured_edits(name, args)
            )
        elif isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
    text = "".join(texts)
    if text.strip():
        builder.message("assistant", text, timestamp=stamp)


def _user(
    builder: TrajectoryBuilder,
    record: dict[str, Any],
    parts: list[Any],
    stamp: str | None,
    name: str,
    number: int,
    report: ReadReport,
) -> None:
    texts: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse")
        if isinstance(response, dict):
            _result(builder, record, response, name, number, report)
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    text = "".join(texts)
    if record.get("type") == "user" and text.strip():
        builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)


def _result(
    builder: TrajectoryBuilder,
    record: dict[str, Any],
    response: dict[str, Any],
    name: str,
    number: int,
    report: ReadReport,
) -> None:
    call_id = as_str(response.get("id")) or ""
    body = response.get("response")
    body = body if isinstance(body, dict) else {}
    error = content_text(body["error"]) if body.get("error") is not None else None
    output = content_text(body.get("output")) if body.get("output") is not None else ""
    info = record.get("toolCallResult")
    status = info.get("status") if isinstance(info, dict) else None
    if not output and isinstance(info, dict):
        output = content_text(info.get("resultDisplay"))
    failed = error is not None or status in ("error", "cancelled")
    done = builder.tool_result(
        call_id,
        is_error=failed,
        output=error if error is not None and not output else output,
        error=error or (f"status {status}" if failed else None),
    )
    if not done:
        report.skip(name, number, f"tool result for an unknown call {call_id!r}")


__all__ = ["FORMAT", "RECORD_TYPES", "read", "run_start"]
