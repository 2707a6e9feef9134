"""OTLP JSON trace exports of agent spans (OpenTelemetry GenAI conventions) as trajectories.

An OpenTelemetry collector's file exporter writes one ``ExportTraceServiceRequest`` per line
(``{"resourceSpans": [{"resource", "scopeSpans": [{"scope", "spans": [...]}]}]}``); a single
such document (``.json``) is read too. Every trace (``traceId``) is one trajectory, its spans
ordered by start time:

- ``gen_ai.operation.name = execute_tool`` (or a span named ``execute_tool …``) is a tool
  call: ``gen_ai.tool.name``, ``gen_ai.tool.call.id`` (else the span id),
  ``gen_ai.tool.call.arguments`` and ``gen_ai.tool.call.result``. Span status ``ERROR``
  (``2`` or ``STATUS_CODE_ERROR``) is a failed call, its ``status.message`` (or
  ``error.type``) the error; an ended span with any other status succeeded.
- ``chat`` / ``text_completion`` / ``generate_content`` spans are model turns: new user
  messages of ``gen_ai.input.messages`` (each turn repeats the history; only the ones not
  seen yet count) and the ``gen_ai.output.messages`` text as the assistant's reply. The older
  ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` attributes (OpenLLMetry) are read too. A
  model span with status ``ERROR`` is an API error.
- ``invoke_agent`` spans give the agent's name, their input and output messages when the
  model spans carry none, and, with status ``ERROR``, the run's abnormal end.

What a tool did is judged by :mod:`earnest.effects` like any other reader's calls (file edits
through :func:`~earnest.trajectory.readers.edits.structured_edits`). Anything malformed is
a warning naming the line and the place (``resourceSpans[0].scopeSpans[1].spans[3]``).

Example:
    >>> import json, tempfile, pathlib
    >>> def a(k, v): return {"key": k, "value": {"stringValue": v}}
    >>> spans = [
    ...   {"traceId": "t1", "spanId": "s1", "name": "chat m", "startTimeUnixNano": "1",
    ...    "endTimeUnixNano": "2", "attributes": [a("gen_ai.operation.name", "chat"),
    ...    a("gen_ai.input.messages", json.dumps([{"role": "user",
    ...      "parts": [{"type": "text", "content": "Remove tmp.txt"}]}]))]},
    ...   {"traceId": "t1", "spanId": "s2", "name": "execute_tool bash",
    ...    "startTimeUnixNano": "3", "endTimeUnixNano": "4", "status": {"code": 2,
    ...    "message": "exit 1"}, "attributes": [a("gen_ai.operation.name", "execute_tool"),
    ...    a("gen_ai.tool.name", "bash"), a("gen_ai.tool.call.arguments",
    ...    '{"command": "rm tmp.txt"}')]},
    ...   {"traceId": "t1", "spanId": "s3", "name": "chat m", "startTimeUnixNano": "5",
    ...    "endTimeUnixNano": "6", "attributes": [a("gen_ai.operation.name", "chat"),
    ...    a("gen_ai.output.messages", json.dumps([{"role": "assistant",
    ...      "parts": [{"type": "text", "content": "Done."}]}]))]}]
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "traces.jsonl"
    >>> _ = p.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.user_request, [(c.name, c.outcome, c.error) for c in t.tool_calls], t.final_message
    ('Remove tmp.txt', [('bash', 'error', 'exit 1')], 'Done.')
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from earnest.safejson import loads as safe_loads
from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.documents import load_document
from earnest.trajectory.readers.edits import structured_edits
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import parse_arguments, user_text_kind

FORMAT = "otlp-json"

MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_ERROR_CODES = (2, "2", "STATUS_CODE_ERROR")
_KEPT = frozenset(
    {"gen_ai.agent.name", "gen_ai.conversation.id", "gen_ai.input.messages",
     "gen_ai.output.messages", "gen_ai.request.model", "gen_ai.tool.call.arguments",
     "gen_ai.tool.call.id", "gen_ai.tool.call.result", "gen_ai.tool.name", "error.type"}
)  # fmt: skip
"""The attributes a trajectory uses; the rest of a span (tokens, provider...) is not kept."""
_LEGACY = ("gen_ai.prompt.", "gen_ai.completion.")


@dataclass(slots=True)
class _Span:
    """The parts of one span a trajectory needs (the raw span is not kept)."""

    order: int
    start: int
    end: int
    kind: str  # "tool", "model", "agent"
    attributes: dict[str, Any]
    name: str
    span_id: str
    error: str | None


@dataclass(slots=True)
class _Trace:
    spans: list[_Span] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)


def attribute_value(value: Any) -> Any:
    """An OTLP JSON ``AnyValue`` as a Python value (``intValue`` may be a string)."""
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "boolValue" in value:
        return value["boolValue"]
    if "intValue" in value:
        raw = value["intValue"]
        try:
            return int(raw)
        except (TypeError, ValueError):
            return None
    if "doubleValue" in value:
        raw = value["doubleValue"]
        return raw if isinstance(raw, int | float) else None
    if "arrayValue" in value:
        items = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else []
        return [attribute_value(v) for v in items or [] if isinstance(v, dict)]
    if "kvlistValue" in value:
        kv = value["kvlistValue"]
        return attributes(kv.get("values") if isinstance(kv, dict) else None)
    return None


def attributes(items: Any) -> dict[str, Any]:
    """An OTLP ``[{key, value}]`` list as a dict (malformed entries are passed over)."""
    out: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = attribute_value(item.get("value"))
    return out


def _nanos(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _kind(name: str, attrs: dict[str, Any]) -> str | None:
    operation = attrs.get("gen_ai.operation.name")
    if not isinstance(operation, str):
        operation = name.split(" ", 1)[0]
    if operation == "execute_tool":
        return "tool"
    if operation in MODEL_OPERATIONS:
        return "model"
    if operation in ("invoke_agent", "create_agent"):
        return "agent" if operation == "invoke_agent" else None
    if any(k.startswith(_LEGACY) for k in attrs):
        return "model"  # OpenLLMetry names model spans by provider ("openai.chat")
    return None


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per trace id, in the order the traces first appear."""
    name = str(path)
    traces: dict[str, _Trace] = {}
    counter = [0]
    for line, request, where in _requests(path, report):
        _collect(request, traces, counter, report, name, line, where)
    for trace_id, trace in traces.items():
        yield _build(trace_id, trace, name, options)


def _requests(path: Path, report: ReadReport) -> Iterator[tuple[int | None, dict[str, Any], str]]:
    """``(line, ExportTraceServiceRequest, place prefix)``: one per JSONL line, or the document."""
    name = str(path)
    # A file exporter's JSONL has one request per line (often far over 64 KiB); a
    # pretty-printed document spans many: the first non-blank line parses whole only in JSONL.
    with open(path, "rb") as handle:
        first_line = b""
        for raw in handle:
            first_line = raw.strip()
            if first_line:
                break
    try:
        jsonl = isinstance(safe_loads(first_line), dict)
    except ValueError:
        jsonl = False
    if jsonl:
        for number, obj in iter_json_lines(path, report):
            if isinstance(obj.get("resourceSpans"), list):
                yield number, obj, ""
            else:
                report.skip(name, number, "not an OTLP trace export: no resourceSpans list")
        return
    data = load_document(path, report)
    if isinstance(data, dict) and isinstance(data.get("resourceSpans"), list):
        yield None, data, ""
    elif data is not None:
        report.warn(name, None, "not an OTLP trace export: no top-level resourceSpans list")


def _collect(
    request: dict[str, Any],
    traces: dict[str, _Trace],
    counter: list[int],
    report: ReadReport,
    name: str,
    line: int | None,
    prefix: str,
) -> None:
    for r, resource_spans in enumerate(request["resourceSpans"]):
        place = f"{prefix}resourceSpans[{r}]"
        if not isinstance(resource_spans, dict):
            report.skip(name, line, f"{place}: not an object")
            continue
        resource = resource_spans.get("resource")
        resource_attrs = attributes(
            resource.get("attributes") if isinstance(resource, dict) else None
        )
        scopes = resource_spans.get("scopeSpans", resource_spans.get("instrumentationLibrarySpans"))
        if not isinstance(scopes, list):
            report.skip(name, line, f"{place}.scopeSpans: missing or not a list")
            continue
        for s, scope in enumerate(scopes):
            spans = scope.get("spans") if isinstance(scope, dict) else None
            if not isinstance(spans, list):
                report.skip(name, line, f"{place}.scopeSpans[{s}].spans: missing or not a list")
                continue
            for n, span in enumerate(spans):
                where = f"{place}.scopeSpans[{s}].spans[{n}]"
                parsed = _span(span, counter, report, name, line, where)
                if parsed is None:
                    continue
                trace_id, item = parsed
                trace = traces.setdefault(trace_id, _Trace())
                trace.resource = trace.resource or resource_attrs
                if item is not None:
                    trace.spans.append(item)


def _span(
    span: Any, counter: list[int], report: ReadReport, name: str, line: int | None, where: str
) -> tuple[str, _Span | None] | None:
    if not isinstance(span, dict):
        report.skip(name, line, f"{where}: not an object")
        return None
    trace_id = span.get("traceId")
    if not isinstance(trace_id, str) or not trace_id:
        report.skip(name, line, f"{where}: no traceId")
        return None
    if "attributes" in span and not isinstance(span["attributes"], list):
        report.skip(name, line, f"{where}.attributes: not a list of {{key, value}}")
        return None
    attrs = attributes(span.get("attributes"))
    raw_name = span.get("name")
    span_name: str = raw_name if isinstance(raw_name, str) else ""
    kind = _kind(span_name, attrs)
    if kind is None:
        return trace_id, None  # an HTTP client span, a framework's step: no part of the record
    attrs = {k: v for k, v in attrs.items() if k in _KEPT or k.startswith(_LEGACY)}
    start = _nanos(span.get("startTimeUnixNano"))
    end = _nanos(span.get("endTimeUnixNano"))
    if start is None:
        report.warn(name, line, f"{where}: no startTimeUnixNano; kept in file order")
    counter[0] += 1
    status = span.get("status")
    error = None
    if isinstance(status, dict) and status.get("code") in _ERROR_CODES:
        message = status.get("message")
        error_type = attrs.get("error.type")
        error = (
            message
            if isinstance(message, str) and message
            else str(error_type)
            if error_type
            else "span status ERROR"
        )
    raw_id = span.get("spanId")
    span_id: str = raw_id if isinstance(raw_id, str) and raw_id else f"span-{counter[0]}"
    start_at = start if start is not None else 0
    item = _Span(
        counter[0], start_at, end if end is not None else start_at, kind, attrs, span_name,
        span_id, error,
    )  # fmt: skip
    return trace_id, item


def _messages(attrs: dict[str, Any], key: str, legacy: str) -> list[tuple[str, str]]:
    """``(role, text)`` of ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (a JSON
    string or a structured value), or of OpenLLMetry's ``gen_ai.prompt.N.role/content``."""
    raw = attrs.get(key)
    if isinstance(raw, str):
        try:
            raw = safe_loads(raw)
        except ValueError:
            raw = [{"role": "assistant" if "output" in key else "user", "content": raw}]
    out: list[tuple[str, str]] = []
    if isinstance(raw, list):
        for message in raw:
            if isinstance(message, dict):
                out.append((str(message.get("role") or ""), _message_text(message)))
        return out
    index = 0
    while f"{legacy}.{index}.content" in attrs or f"{legacy}.{index}.role" in attrs:
        content = attrs.get(f"{legacy}.{index}.content")
        role = attrs.get(f"{legacy}.{index}.role")
        out.append((str(role or ""), content if isinstance(content, str) else ""))
        index += 1
    return out


def _message_text(message: dict[str, Any]) -> str:
    """The text parts of one conventions message (``parts: [{type: text, content}]``)."""
    parts = message.get("parts")
    if isinstance(parts, list):
        texts = [
            str(p.get("content") if p.get("content") is not None else p.get("text") or "")
            for p in parts
            if isinstance(p, dict) and p.get("type") == "text"
        ]
        return "\n".join(t for t in texts if t)
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _result_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _build(trace_id: str, trace: _Trace, name: str, options: dict[str, Any]) -> Trajectory:
    spans = sorted(trace.spans, key=lambda s: (s.start, s.order))
    conversation = next(
        (s.attributes["gen_ai.conversation.id"] for s in spans
         if isinstance(s.attributes.get("gen_ai.conversation.id"), str)),
        None,
    )  # fmt: skip
    builder = TrajectoryBuilder(id=conversation or trace_id, source=name, format=FORMAT, **options)
    builder.metadata["trace_id"] = trace_id
    service = trace.resource.get("service.name")
    if isinstance(service, str):
        builder.metadata["service_name"] = service
    # Ends are placed among starts: a tool's result arrives when its span ends.
    timeline: list[tuple[int, int, int, _Span]] = []
    for s in spans:
        timeline.append((s.start, 0, s.order, s))
        timeline.append((s.end, 1, s.order, s))
    timeline.sort(key=lambda t: (t[0], t[1], t[2]))
    seen_users = 0
    last_text = ""
    agent_error: str | None = None
    model_output = any(
        s.kind == "model" and _messages(s.attributes, "gen_ai.output.messages", "gen_ai.completion")
        for s in spans
    )
    for _, phase, _, s in timeline:
        attrs = s.attributes
        if s.kind == "tool":
            tool = attrs.get("gen_ai.tool.name")
            if not isinstance(tool, str) or not tool:
                tool = s.name.split(" ", 1)[1] if " " in s.name else "unknown"
            call_id = attrs.get("gen_ai.tool.call.id")
            call_id = call_id if isinstance(call_id, str) and call_id else s.span_id
            if phase == 0:
                args = parse_arguments(attrs.get("gen_ai.tool.call.arguments"))
                builder.tool_call(call_id, tool, args, edits=structured_edits(tool, args))
            else:
                builder.tool_result(
                    call_id,
                    is_error=s.error is not None,
                    output=_result_text(attrs.get("gen_ai.tool.call.result")),
                    error=s.error,
                )
            continue
        if s.kind == "agent":
            agent = attrs.get("gen_ai.agent.name")
            if isinstance(agent, str) and phase == 0:
                builder.metadata.setdefault("agent", agent)
            if s.error is not None and phase == 1:
                agent_error = s.error
        if s.kind == "model" and phase == 0:
            builder.new_turn()
            model = attrs.get("gen_ai.request.model")
            if isinstance(model, str):
                builder.metadata.setdefault("model", model)
        if s.kind == "model" or (s.kind == "agent" and not model_output):
            if phase == 0:
                users = [
                    text
                    for role, text in _messages(attrs, "gen_ai.input.messages", "gen_ai.prompt")
                    if role == "user" and text.strip()  # not a user turn of tool responses only
                ]
                for text in users[seen_users:]:
                    builder.message("user", text, kind=user_text_kind(text))
                seen_users = max(seen_users, len(users))
            else:
                outputs = _messages(attrs, "gen_ai.output.messages", "gen_ai.completion")
                for role, text in outputs:
                    if role in ("assistant", "") and text.strip() and text != last_text:
                        builder.message("assistant", text)
                        last_text = text
                if s.kind == "model" and s.error is not None:
                    builder.signal("api_error", s.error)
    if agent_error is not None:
        builder.terminate("api_error", agent_error)
    return builder.build()


__all__ = ["FORMAT", "MODEL_OPERATIONS", "attribute_value", "attributes", "read"]
