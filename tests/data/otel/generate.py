"""Regenerate the OTLP trace exports in this folder with the real OpenTelemetry SDK.

The spans are what a GenAI-instrumented agent records under the semantic conventions
(``invoke_agent`` → ``chat`` → ``execute_tool`` → ``chat``; gen_ai.input/output.messages in
the conventions' ``parts`` shape, tool arguments and results, status ERROR on a failed tool).
They are encoded by the SDK's own OTLP encoder (``encode_spans``) into the protobuf
``ExportTraceServiceRequest`` and written in the two JSON shapes found in the wild:

- ``agent-runs.otlp.jsonl``: an OpenTelemetry collector file exporter's lines (OTLP/JSON:
  hex trace and span ids, enums as integers, one request per line);
- ``agent-run.protojson.json``: protobuf's canonical JSON mapping of the same kind of request
  (``MessageToJson``: base64 ids, enum names such as ``STATUS_CODE_ERROR``), pretty-printed.

Run: ``python tests/data/otel/generate.py`` (needs earnest[otel]).
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import SpanKind, Status, StatusCode, set_span_in_context

HERE = Path(__file__).parent
T0 = 1_764_000_000_000_000_000


class Counting(IdGenerator):
    def __init__(self, trace: int) -> None:
        self.trace = trace
        self.span = 0

    def generate_span_id(self) -> int:
        self.span += 1
        return (self.trace << 32) + self.span

    def generate_trace_id(self) -> int:
        return 0x5B8EFFF798038103D269B633813FC60C + self.trace


def messages(*items: tuple[str, str]) -> str:
    return json.dumps([{"role": r, "parts": [{"type": "text", "content": t}]} for r, t in items])


def run(trace: int, prompt: str, tools: list[dict[str, Any]], final: str) -> list[Any]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "demo-agent"}), id_generator=Counting(trace)
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("demo-agent.instrumentation", "0.1.0")
    t = T0 + trace * 10**12
    agent = tracer.start_span(
        "invoke_agent repo-helper",
        kind=SpanKind.INTERNAL,
        start_time=t,
        attributes={
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "repo-helper",
            "gen_ai.conversation.id": f"conv-{trace}",
        },
    )
    ctx = set_span_in_context(agent)
    history: list[tuple[str, str]] = [("user", prompt)]
    clock = t + 1_000_000
    for number, tool in enumerate(tools, 1):
        chat = tracer.start_span(
            "chat gpt-4.1", context=ctx, kind=SpanKind.CLIENT, start_time=clock,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.input.messages": messages(*history),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "tool_call", "id": f"call_{trace}_{number}", "name": tool["name"],
                     "arguments": tool["arguments"]}], "finish_reason": "tool_call"}]),
                "gen_ai.usage.input_tokens": 120 * number,
                "gen_ai.usage.output_tokens": 30,
            },
        )  # fmt: skip
        chat.end(end_time=clock + 400_000_000)
        clock += 500_000_000
        span = tracer.start_span(
            f"execute_tool {tool['name']}", context=ctx, start_time=clock,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool["name"],
                "gen_ai.tool.type": "function",
                "gen_ai.tool.call.id": f"call_{trace}_{number}",
                "gen_ai.tool.call.arguments": json.dumps(tool["arguments"]),
                "gen_ai.tool.call.result": tool["result"],
            },
        )  # fmt: skip
        if tool.get("error"):
            span.set_attribute("error.type", "ToolExecutionError")
            span.set_status(Status(StatusCode.ERROR, tool["error"]))
        span.end(end_time=clock + 200_000_000)
        clock += 300_000_000
        history.append(("tool", tool["result"]))
    last = tracer.start_span(
        "chat gpt-4.1", context=ctx, kind=SpanKind.CLIENT, start_time=clock,
        attributes={
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4.1",
            "gen_ai.input.messages": messages(*history),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                {"type": "text", "content": final}], "finish_reason": "stop"}]),
        },
    )  # fmt: skip
    last.end(end_time=clock + 600_000_000)
    agent.end(end_time=clock + 700_000_000)
    return list(exporter.get_finished_spans())


def hex_ids(value: Any) -> Any:
    """protojson's base64 ids → the OTLP/JSON hex ids a collector writes."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(item, str):
                out[key] = base64.b64decode(item).hex()
            else:
                out[key] = hex_ids(item)
        return out
    if isinstance(value, list):
        return [hex_ids(v) for v in value]
    return value


def main() -> None:
    backed = run(
        1,
        "Add a CHANGELOG entry for the 2.1 release.",
        [
            {"name": "read_file", "arguments": {"path": "CHANGELOG.md"}, "result": "# Changelog\n"},
            {"name": "write_file",
             "arguments": {"path": "CHANGELOG.md", "content": "# Changelog\n\n## 2.1\n"},
             "result": "wrote 22 bytes to CHANGELOG.md"},
        ],
        "Done: CHANGELOG.md now has a 2.1 entry.",
    )  # fmt: skip
    failed = run(
        2,
        "Delete the stale build/ folder.",
        [{"name": "run_shell", "arguments": {"command": "rm -rf build"},
          "result": "rm: cannot remove 'build': Permission denied",
          "error": "exit status 1"}],
        "I have deleted the build/ folder.",
    )  # fmt: skip
    lines = []
    for spans in (backed, failed):
        request = MessageToDict(encode_spans(spans), use_integers_for_enums=True)
        lines.append(json.dumps(hex_ids(request), separators=(",", ":")))
    (HERE / "agent-runs.otlp.jsonl").write_text("\n".join(lines) + "\n")
    doc = MessageToDict(encode_spans(failed))
    (HERE / "agent-run.protojson.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
