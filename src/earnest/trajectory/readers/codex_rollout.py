"""Codex CLI rollout files (``~/.codex/sessions/.../rollout-*.jsonl``).

``{timestamp, type: session_meta|turn_context|response_item|event_msg, payload}``.
Conversation and tool calls come from ``response_item`` payloads (``message``,
``function_call``/``function_call_output``, ``custom_tool_call``/``custom_tool_call_output``,
``local_shell_call``; a plain-text output's header states the exit code: ``Process exited with
code N``; an ``exec_command`` that is an ``apply_patch <<'EOF'`` invocation is the patch tool,
as Codex runs it); ``event_msg`` adds exit codes (``exec_command_end``), patch results
(``patch_apply_end``) and how the task ended (``task_complete``, ``turn_aborted``,
``error``). Injected context (``<environment_context>``, AGENTS.md) is noise, not a prompt.

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "rollout.jsonl"
    >>> ev = [{"type": "session_meta", "payload": {"id": "r1"}},
    ...       {"type": "response_item", "payload": {"type": "message", "role": "user",
    ...        "content": [{"type": "input_text", "text": "fix it"}]}},
    ...       {"type": "response_item", "payload": {"type": "message", "role": "assistant",
    ...        "content": [{"type": "output_text", "text": "Fixed."}]}},
    ...       {"type": "event_msg", "payload": {"type": "task_complete"}}]
    >>> _ = p.write_text("".join(json.dumps(e) + "\\n" for e in ev))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.id, t.user_request, t.final_message, t.termination.reason
    ('r1', 'fix it', 'Fixed.', 'normal')
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from earnest.safejson import loads as safe_loads
from earnest.trajectory.model import EditKind, Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.lines import iter_json_lines, lines_backward, parse_line
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import (
    as_str,
    content_text,
    limit_reason,
    parse_arguments,
    user_text_kind,
)

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

FORMAT = "codex-rollout"

_QUIET_EVENTS = frozenset(
    {
        "task_started", "user_message", "agent_message", "token_count", "agent_reasoning",
        "exec_command_begin", "patch_apply_begin", "turn_diff", "mcp_tool_call_begin",
        "mcp_tool_call_end", "agent_reasoning_section_break", "exec_command_output_delta",
        "web_search_begin", "web_search_end", "plan_update", "context_compacted",
    }
)  # fmt: skip


def _prompt(record: dict[str, Any] | None) -> bool:
    """Whether a record is a user message :func:`read` takes for a prompt."""
    payload = record.get("payload") if record is not None else None
    if record is None or record.get("type") != "response_item" or not isinstance(payload, dict):
        return False
    if payload.get("type") != "message" or payload.get("role") != "user":
        return False
    return user_text_kind(content_text(payload.get("content"))) == "prompt"


def run_start(path: Path) -> int:
    """The byte offset of the line that starts the rollout's current run — its last user
    message :func:`read` takes for a prompt — found by reading the file backwards; 0 when
    there is none. A stop hook reads from there (``read(path, report, start=...)``), the
    ``session_meta`` line besides.

    Example:
        >>> import tempfile, pathlib, json
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "rollout.jsonl"
        >>> def user(t): return {"type": "response_item", "payload": {"type": "message",
        ...     "role": "user", "content": [{"type": "input_text", "text": t}]}}
        >>> lines = [json.dumps(r) + "\\n" for r in (user("first"), user("second"))]
        >>> _ = p.write_text("".join(lines))
        >>> run_start(p) == len(lines[0])
        True
    """
    report = ReadReport()
    with open(path, "rb") as handle:
        for offset, raw in lines_backward(handle, handle.seek(0, 2)):
            if (
                b'"user"' in raw
                and raw.endswith(b"\n")
                and _prompt(parse_line(raw, str(path), None, report))
            ):
                return offset
    return 0


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per rollout file; ``start`` (a byte offset from :func:`run_start`)
    reads the file's first line (its ``session_meta``) and then from there on."""
    start = int(options.pop("start", 0) or 0)
    builder = TrajectoryBuilder(id=path.stem, source=str(path), format=FORMAT, **options)
    name = str(path)
    in_turn = False
    records = iter_json_lines(path, report, start=start)
    if start:
        with open(path, "rb") as handle:
            first = parse_line(handle.readline(1 << 20), name, 1, report)
        if first is not None and first.get("type") == "session_meta":
            records = itertools.chain([(1, first)], records)
        builder.metadata["run_offset"] = start
    for number, record in records:
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            report.skip(name, number, f"record {kind!r} without a payload")
            continue
        ptype = as_str(payload.get("type"))
        if kind == "session_meta":
            if isinstance(payload.get("id"), str):
                builder.id = payload["id"]
            for key in ("cwd", "cli_version", "originator", "model_provider"):
                if isinstance(payload.get(key), str):
                    builder.metadata[key] = payload[key]
        elif kind == "turn_context":
            if isinstance(payload.get("model"), str):
                builder.metadata["model"] = payload["model"]
        elif kind == "response_item":
            if ptype == "message":
                role = payload.get("role")
                text = content_text(payload.get("content"))
                if role == "assistant":
                    if not in_turn:
                        builder.new_turn()
                        in_turn = True
                    builder.message("assistant", text)
                elif role == "user":
                    in_turn = False
                    user_kind = user_text_kind(text)
                    if user_kind == "prompt":
                        builder.clear_termination()
                    builder.message("user", text, kind=user_kind)
                else:
                    builder.message("system", text, kind="system")
            elif ptype in ("function_call", "custom_tool_call", "local_shell_call"):
                if not in_turn:
                    builder.new_turn()
                    in_turn = True
                _call(builder, payload)
            elif ptype in ("function_call_output", "custom_tool_call_output"):
                _output(builder, payload)
            elif ptype in ("reasoning",):
                continue
            else:
                report.unknown(name, number, f"response item type {ptype!r}")
        elif kind == "event_msg":
            _event(builder, payload, report, name, number)
        else:
            report.skip(name, number, f"unknown record type {kind!r}")
    yield builder.build()


def _call(builder: TrajectoryBuilder, payload: dict[str, Any]) -> None:
    name = str(payload.get("name") or payload.get("type"))
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        args = {"command": action.get("command")} if isinstance(action, dict) else {}
    elif payload.get("type") == "custom_tool_call":
        args = {"input": payload.get("input")}
    else:
        args = parse_arguments(payload.get("arguments"))
        patch = _patch_invocation(args.get("cmd") if name == "exec_command" else None)
        if patch is not None:
            name, args = "apply_patch", {"input": patch}
    call_id = payload.get("call_id") or payload.get("id")
    builder.tool_call(call_id if isinstance(call_id, str) else None, name, args)


_PATCH_HEREDOC = re.compile(
    r"\A\s*apply_patch\s*<<-?\s*(['\"]?)(\w+)\1[ \t]*\n(.*?)\n\2\s*\Z", re.DOTALL
)


def _patch_invocation(cmd: object) -> str | None:
    """The patch of an ``exec_command`` that is an ``apply_patch`` invocation, else None.

    Codex intercepts such a command and applies the patch itself (its rollout records the call
    as ``exec_command`` and the result as a ``FileChange``), so it is read as the
    ``apply_patch`` tool it is: the files it names are what it wrote, which a shell reading
    of ``apply_patch <<'EOF'`` cannot see.

    Example:
        >>> _patch_invocation("apply_patch <<'EOF'\\n*** Begin Patch\\n*** Add File: a\\n+x\\n"
        ...                   "*** End Patch\\nEOF")
        '*** Begin Patch\\n*** Add File: a\\n+x\\n*** End Patch'
        >>> _patch_invocation("cat <<'EOF' > a\\nx\\nEOF") is None
        True
    """
    if not isinstance(cmd, str) or "apply_patch" not in cmd[:64]:
        return None
    match = _PATCH_HEREDOC.match(cmd)
    return match.group(3) if match else None


def _output(builder: TrajectoryBuilder, payload: dict[str, Any]) -> None:
    call_id = payload.get("call_id")
    if not isinstance(call_id, str):
        return
    raw = payload.get("output")
    success: Any = None
    if isinstance(raw, str) and raw.startswith("{"):
        with contextlib.suppress(ValueError):
            raw = safe_loads(raw)
    if isinstance(raw, dict):
        success = raw.get("success")
        meta = raw.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        text = content_text(raw.get("output", raw.get("content")))
    else:
        text = content_text(raw)
        code = _header_exit_code(text)
    if isinstance(code, int):
        builder.tool_result(call_id, is_error=code != 0, output=text, exit_code=code)
    else:
        builder.tool_result(call_id, is_error=success is False, output=text)


_EXIT_HEADER = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)\s*$", re.MULTILINE)


def _header_exit_code(text: str) -> int | None:
    """The exit code a plain-text tool output states in its header, if it does.

    Codex's ``exec_command`` output begins ``Chunk ID: ... / Wall time: ... / Process exited
    with code N / ... / Output:``; its older shell tool ``Exit code: N / Wall time: ... /
    Output:``. Only the header counts (what the program printed comes after ``Output:``).

    Example:
        >>> _header_exit_code("Wall time: 0.1 seconds\\nProcess exited with code 2\\nOutput:\\nboom")
        2
        >>> _header_exit_code("Output:\\nProcess exited with code 0") is None
        True
    """
    head = text.split("\nOutput:", 1)[0] if "\nOutput:" in text else text[:0]
    if text.startswith("Output:"):
        return None
    match = _EXIT_HEADER.search(head[:2000])
    return int(match.group(1)) if match else None


def _event(
    builder: TrajectoryBuilder, payload: dict[str, Any], report: ReadReport, name: str, number: int
) -> None:
    ptype = as_str(payload.get("type"))
    call_id = payload.get("call_id")
    if ptype == "task_complete":
        builder.terminate("normal")
    elif ptype == "turn_aborted":
        builder.terminate("interrupted", str(payload.get("reason") or "aborted"))
    elif ptype in ("error", "stream_error"):
        detail = str(payload.get("message") or ptype)
        builder.signal(limit_reason(detail), detail)
    elif ptype == "exec_command_end" and isinstance(call_id, str):
        code = payload.get("exit_code")
        if isinstance(code, int):
            builder.tool_result(
                call_id,
                is_error=code != 0,
                output=content_text(payload.get("aggregated_output") or payload.get("stdout")),
                exit_code=code,
            )
    elif ptype == "patch_apply_end" and isinstance(call_id, str):
        changes = payload.get("changes")
        edits: list[tuple[str, EditKind]] = []
        if isinstance(changes, dict):
            for path, change in changes.items():
                kind: EditKind = "modify"
                if isinstance(change, dict):
                    kind = (
                        "create"
                        if "add" in change
                        else "delete"
                        if "delete" in change
                        else "modify"
                    )
                edits.append((str(path), kind))
        builder.tool_result(
            call_id,
            is_error=payload.get("success") is False,
            output=content_text(payload.get("stdout") or payload.get("stderr")),
            edits=edits,
        )
    elif ptype not in _QUIET_EVENTS:
        report.unknown(name, number, f"event type {ptype!r}")


__all__ = ["FORMAT", "read", "run_start"]
