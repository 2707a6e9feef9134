"""Run logs written by the real frameworks, for ``earnest trajectory score`` to read.

Each function runs one framework for real, offline, against :class:`FakeModel` on 127.0.0.1,
with two tools: ``write_file`` (writes in the workspace; a path outside it raises) and ``boom``
(raises), both failing through the framework's own error path. Two scripts (:data:`SCRIPTS`):
``write-after-failed-tool`` calls ``boom``, then ``write_file``, then says it is done;
``claim-after-failed-write`` calls ``write_file`` on ``/etc/hello.py`` (it fails) and says it
is done all the same. What each returns is the log as the framework writes it:

- :func:`pydantic_ai_messages`: Pydantic AI's ``result.all_messages_json()``;
- :func:`openai_agents_trace`: the OpenAI Agents SDK's trace, one ``export()`` of the trace
  and of each span per line, written by a tracing processor (``add_trace_processor``);
- :func:`pydantic_ai_otlp`: Pydantic AI's OpenTelemetry GenAI spans (its ``Instrumentation`` capability),
  encoded as OTLP JSON, one ``ExportTraceServiceRequest`` per line as a collector's file
  exporter writes them.

``python tests/integrations/runlogs.py OUT_DIR`` writes the samples in tests/data/trajectory/
(see the SOURCE.md there).
"""

from __future__ import annotations

import base64
import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import agentkit
from agentkit import Call, FakeModel, Turn, Turns

REQUEST = "Create hello.py that prints hello."
DONE = "Done: I created hello.py."


HELLO = "print('hello')\n"
SCRIPTS: dict[str, list[Turn]] = {
    "write-after-failed-tool": [
        Turn(calls=(Call("boom", {"path": "hello.py"}),)),
        Turn(calls=(Call("write_file", {"path": "hello.py", "content": HELLO}),)),
        Turn(text=DONE),
    ],
    "claim-after-failed-write": [
        Turn(calls=(Call("write_file", {"path": "/etc/hello.py", "content": HELLO}),)),
        Turn(text=DONE),
    ],
}


def script(name: str) -> Turns:
    return Turns(SCRIPTS[name], fallback=DONE)


def _pydantic_agent(ws: Path, url: str, **kwargs: Any) -> Any:
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace."""
        try:
            return agentkit.write_file(ws, path, content)
        except ValueError as exc:  # Pydantic AI's own error path for a tool that fails
            raise ModelRetry(str(exc)) from exc

    def boom(path: str) -> str:
        """Write a file (this one always fails)."""
        try:
            return agentkit.boom(ws, path)
        except RuntimeError as exc:
            raise ModelRetry(str(exc)) from exc

    model = OpenAIChatModel("gpt-fake", provider=OpenAIProvider(base_url=f"{url}/v1",
                                                                api_key="sk-fake"))  # fmt: skip
    return Agent(model, tools=[write_file, boom], instructions="Do the task.", **kwargs)


def pydantic_ai_messages(ws: Path, name: str) -> bytes:
    with FakeModel("chat", script(name)) as model:
        result = _pydantic_agent(ws, model.url).run_sync(REQUEST)
    data: bytes = result.all_messages_json()
    return data


def openai_agents_trace(ws: Path, name: str, max_turns: int | None = None) -> str:
    from agents import (
        Agent,
        OpenAIChatCompletionsModel,
        Runner,
        add_trace_processor,
        function_tool,
        set_trace_processors,
        set_tracing_disabled,
    )
    from agents.exceptions import MaxTurnsExceeded
    from agents.tracing import Span, Trace, TracingProcessor
    from openai import AsyncOpenAI

    lines: list[str] = []

    class JsonlProcessor(TracingProcessor):
        def on_trace_start(self, trace: Trace) -> None:
            pass

        def on_trace_end(self, trace: Trace) -> None:
            if (exported := trace.export()) is not None:
                lines.append(json.dumps(exported))

        def on_span_start(self, span: Span[Any]) -> None:
            pass

        def on_span_end(self, span: Span[Any]) -> None:
            if (exported := span.export()) is not None:
                lines.append(json.dumps(exported))

        def shutdown(self) -> None:
            pass

        def force_flush(self) -> None:
            pass

    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace."""
        return agentkit.write_file(ws, path, content)

    @function_tool
    def boom(path: str) -> str:
        """Write a file (this one always fails)."""
        return agentkit.boom(ws, path)

    set_tracing_disabled(False)
    set_trace_processors([])  # no export to the vendor's backend: only the file
    add_trace_processor(JsonlProcessor())
    try:
        with FakeModel("chat", script(name)) as model:
            client = AsyncOpenAI(base_url=f"{model.url}/v1", api_key="sk-fake", max_retries=0)
            llm = OpenAIChatCompletionsModel(model="gpt-fake", openai_client=client)
            agent = Agent(name="worker", instructions="Do the task.", model=llm,
                          tools=[write_file, boom])  # fmt: skip
            if max_turns is None:
                Runner.run_sync(agent, REQUEST)
            else:
                with contextlib.suppress(MaxTurnsExceeded):
                    Runner.run_sync(agent, REQUEST, max_turns=max_turns)
    finally:
        set_trace_processors([])
        set_tracing_disabled(True)
    return "".join(line + "\n" for line in lines)


def pydantic_ai_otlp(ws: Path, name: str) -> str:
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from pydantic_ai.capabilities.instrumentation import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, include_content=True)
    with FakeModel("chat", script(name)) as model:
        agent = _pydantic_agent(ws, model.url, capabilities=[Instrumentation(settings=settings)])
        agent.run_sync(REQUEST)
    provider.shutdown()
    request = MessageToDict(encode_spans(exporter.get_finished_spans()))
    # OTLP/JSON writes trace and span ids as hex, where protobuf's JSON mapping gives base64.
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(request) + "\n"


LOGS: dict[str, tuple[Callable[[Path, str], bytes | str], str]] = {
    "pydantic-ai-messages": (pydantic_ai_messages, ".json"),
    "openai-agents-trace": (openai_agents_trace, ".jsonl"),
    "otlp-json": (pydantic_ai_otlp, ".jsonl"),
}
"""Format → (the function that writes its log, the file's suffix)."""


def write_log(fmt: str, name: str, folder: Path) -> Path:
    """Run ``name``'s script through ``fmt``'s framework; its log in ``folder``/``fmt``/."""
    import tempfile

    make, suffix = LOGS[fmt]
    with tempfile.TemporaryDirectory() as ws:
        data = make(Path(ws), name)
    target = folder / fmt / f"{name}{suffix}"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data if isinstance(data, bytes) else data.encode())
    return target


def main(out: Path) -> None:
    for fmt in LOGS:
        for name in SCRIPTS:
            write_log(fmt, name, out)


if __name__ == "__main__":
    sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parent.parent)]
    main(Path(sys.argv[1]))


def langchain_langsmith_runs(ws: Path, name: str) -> str:
    """LangChain v1 ``create_agent`` traced by LangSmith's own client (``LangChainTracer``) to a
    fake LangSmith API on 127.0.0.1: each run as the client sent it (``POST /runs``, then the
    ``PATCH /runs/{id}`` that ends it, merged), one run per line in the order they started."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from langchain.agents import create_agent
    from langchain_core.tools import ToolException, tool
    from langchain_core.tracers.langchain import LangChainTracer
    from langchain_openai import ChatOpenAI
    from langsmith import Client

    runs: dict[str, dict[str, Any]] = {}
    lock = threading.Lock()

    class Api(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _answer(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path.startswith("/runs") and body:
                run = json.loads(body)
                with lock:
                    runs.setdefault(str(run["id"]), {}).update(run)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        do_POST = do_PATCH = do_GET = _answer

    @tool
    def write_file(path: str, content: str) -> str:
        """Write content to a file in the workspace."""
        try:
            return agentkit.write_file(ws, path, content)
        except ValueError as exc:  # LangChain's own error path for a tool that fails
            raise ToolException(str(exc)) from exc

    @tool
    def boom(path: str) -> str:
        """Write a file (this one always fails)."""
        try:
            return agentkit.boom(ws, path)
        except RuntimeError as exc:
            raise ToolException(str(exc)) from exc

    server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = Client(api_url=f"http://127.0.0.1:{server.server_address[1]}",
                        api_key="fake", auto_batch_tracing=False)  # fmt: skip
        tracer = LangChainTracer(client=client, project_name="earnest-runlogs")
        with FakeModel("chat", script(name)) as model:
            llm = ChatOpenAI(model="gpt-fake", base_url=f"{model.url}/v1", api_key="sk-fake",
                             max_retries=0)  # fmt: skip
            write_file.handle_tool_error = boom.handle_tool_error = True
            agent = create_agent(llm, tools=[write_file, boom])
            agent.invoke({"messages": [{"role": "user", "content": REQUEST}]},
                         config={"callbacks": [tracer]})  # fmt: skip
            tracer.wait_for_futures()
    finally:
        server.shutdown()
    ordered = sorted(runs.values(), key=lambda r: str(r.get("dotted_order") or ""))
    return "".join(json.dumps(run) + "\n" for run in ordered)


LOGS["langsmith-runs"] = (langchain_langsmith_runs, ".jsonl")
