"""The OpenAI Agents SDK's traces: what its tracing processors export (``Trace.export()``,
``Span.export()``).

Read as JSONL (one exported trace or span per line: what a ``TracingProcessor`` that writes
each ``export()`` produces), or as one JSON document: the ``{"data": [...]}`` batch the SDK's
``BackendSpanExporter`` posts, or a plain array of exported items. Every ``trace_id`` is one
trajectory, its spans ordered by ``started_at``:

- ``function`` spans are tool calls: ``name``, ``input`` (the arguments, a JSON string),
  ``output``; a span with an ``error`` (``{"message", "data": {"tool_name", "error"}}``: the
  SDK's ``Error running tool``) is a failed call, the error its ``data.error`` or ``message``.
- ``generation`` spans (Chat Completions models) are model turns: the user messages of their
  ``input`` not seen yet (each turn repeats the history) and the text of their ``output``
  (the assistant's reply). A ``generation`` span with an error is an API error.
- ``agent`` spans give the agent's name; an ``agent`` or ``task`` span whose error says the
  turn limit was reached (``Max turns ... exceeded``) ends the run at the turn cap, any other
  error on them is an API error.
- ``response`` spans (Responses API models) export only the response's id: such a trace has
  tool calls but no message text, so no request and no final answer to judge.

Anything malformed is a warning naming the line (or ``data[N]``).

Example:
    >>> import json, tempfile, pathlib
    >>> items = [
    ...   {"object": "trace.span", "id": "s1", "trace_id": "t1", "started_at": "1",
    ...    "span_data": {"type": "generation", "input": [{"role": "user", "content": "Make a.txt"}],
    ...                  "output": [{"role": "assistant", "content": None}]}},
    ...   {"object": "trace.span", "id": "s2", "trace_id": "t1", "started_at": "2",
    ...    "span_data": {"type": "function", "name": "write_file",
    ...                  "input": '{"path": "a.txt", "content": "x"}', "output": "ok"}},
    ...   {"object": "trace.span", "id": "s3", "trace_id": "t1", "started_at": "3",
    ...    "span_data": {"type": "generation", "output": [{"role": "assistant",
    ...                                                     "content": "Done."}]}}]
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "trace.jsonl"
    >>> _ = p.write_text("".join(json.dumps(i) + "\\n" for i in items))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, [(c.name, c.outcome) for c in t.tool_calls], t.final_message
    ('Make a.txt', [('write_file', 'success')], 'Done.')
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import content_text, parse_arguments, user_text_kind

FORMAT = "openai-agents-trace"
_MAX_TURNS = re.compile(r"max(?:imum)?[ _]turns", re.IGNORECASE)


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per trace id, in the order the traces first appear."""
    name = str(path)
    traces: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    names: dict[str, str] = {}
    for order, (item, place) in enumerate(_items(path, report)):
        trace_id = item.get("trace_id") if item.get("object") == "trace.span" else item.get("id")
        if not isinstance(trace_id, str):
            report.skip(name, None, f"{place}: no trace id")
            continue
        spans = traces.setdefault(trace_id, [])
        if item.get("object") == "trace":
            if isinstance(item.get("workflow_name"), str):
                names[trace_id] = item["workflow_name"]
        elif not isinstance(item.get("span_data"), dict):
            report.skip(name, None, f"{place}: a span with no span_data object")
        else:
            spans.append((order, item))
    for trace_id, spans in traces.items():
        if spans:
            yield _build(path, trace_id, spans, names.get(trace_id), options)


def _items(path: Path, report: ReadReport) -> Iterator[tuple[dict[str, Any], str]]:
    name = str(path)
    if path.suffix in (".jsonl", ".ndjson"):
        for number, obj in iter_json_lines(path, report):
            if obj.get("object") in ("trace", "trace.span"):
                yield obj, f"line {number}"
            else:
                report.skip(name, number, "not an exported trace or span (no object: trace...)")
        return
    data = load_document(path, report)
    items = data.get("data") if isinstance(data, dict) else data
    if not isinstance(items, list):
        if data is not None:
            report.warn(name, None, "not an OpenAI Agents SDK trace export: no data list")
        return
    where = "data" if isinstance(data, dict) else "items"
    for k, item in enumerate(items):
        if isinstance(item, dict) and item.get("object") in ("trace", "trace.span"):
            yield item, f"{where}[{k}]"
        else:
            report.skip(name, None, f"{where}[{k}]: not an exported trace or span")


def _build(
    path: Path,
    trace_id: str,
    spans: list[tuple[int, dict[str, Any]]],
    workflow: str | None,
    options: dict[str, Any],
) -> Trajectory:
    builder = TrajectoryBuilder(id=trace_id, source=str(path), format=FORMAT, **options)
    if workflow:
        builder.metadata["workflow"] = workflow
    seen_users = 0
    ordered = sorted(spans, key=lambda pair: (str(pair[1].get("started_at") or ""), pair[0]))
    for _, span in ordered:
        data: dict[str, Any] = span["span_data"]
        kind = data.get("type")
        error = _error(span.get("error"))
        if kind == "generation":
            builder.new_turn()
            users = [content_text(m.get("content")) for m in _list(data.get("input"))
                     if isinstance(m, dict) and m.get("role") == "user"]  # fmt: skip
            for text in users[seen_users:]:
                builder.message("user", text, kind=user_text_kind(text))
            seen_users = max(seen_users, len(users))
            texts = [content_text(m.get("content")) for m in _list(data.get("output"))
                     if isinstance(m, dict) and m.get("role") == "assistant"]  # fmt: skip
            text = "\n".join(t for t in texts if t.strip())
            if text:
                builder.message("assistant", text)
            if isinstance(data.get("model"), str):
                builder.metadata.setdefault("model", data["model"])
            if error is not None:
                builder.terminate("api_error", error)
        elif kind == "function":
            tool = data.get("name")
            tool = tool if isinstance(tool, str) and tool else "unknown"
            args = parse_arguments(data.get("input"))
            call_id = builder.tool_call(str(span.get("id") or ""), tool, args,
                                        edits=structured_edits(tool, args))  # fmt: skip
            output = data.get("output")
            builder.tool_result(call_id, is_error=error is not None, error=error,
                                output=output if isinstance(output, str) else content_text(output))  # fmt: skip
        elif kind in ("agent", "custom") and error is not None:
            if _MAX_TURNS.search(error):
                builder.terminate("max_turns", error)
            else:
                builder.terminate("api_error", error)
        if kind == "agent" and isinstance(data.get("name"), str):
            builder.metadata.setdefault("agent", data["name"])
    return builder.build()


def _error(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    data = value.get("data")
    detail = data.get("error") if isinstance(data, dict) else None
    message = value.get("message")
    if isinstance(detail, str) and detail:
        return f"{message}: {detail}" if isinstance(message, str) and message else detail
    return message if isinstance(message, str) and message else "error"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


__all__ = ["FORMAT", "read"]
