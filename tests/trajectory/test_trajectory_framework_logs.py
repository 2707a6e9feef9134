"""Run logs the agent frameworks write (tests/data/trajectory/SOURCE.md): Pydantic AI's
messages JSON, the OpenAI Agents SDK's trace, OTel GenAI spans as OTLP JSON, LangSmith's runs
of a LangChain agent. Each is detected,
read, and scored by ``trajectory score``; the failing tool is a failed call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import TEST_DATA, run_earnest
from earnest.trajectory import ReadReport, read_trajectories
from earnest.trajectory.readers import detect_format

LOGS = TEST_DATA / "trajectory"
FILES = {
    "pydantic-ai-messages": ".json",
    "openai-agents-trace": ".jsonl",
    "otlp-json": ".jsonl",
    "langsmith-runs": ".jsonl",
}
CASES = [(fmt, name) for fmt in FILES for name in ("write-after-failed-tool",
                                                     "claim-after-failed-write")]  # fmt: skip


def log(fmt: str, name: str) -> Path:
    return LOGS / fmt / f"{name}{FILES[fmt]}"


def one(path: Path, fmt: str | None = None) -> Any:
    report = ReadReport()
    (trajectory,) = read_trajectories(path, report=report, format=fmt)
    assert not report.warnings, report.warnings
    return trajectory


@pytest.mark.parametrize(("fmt", "name"), CASES)
def test_each_log_is_detected_and_read(fmt: str, name: str) -> None:
    path = log(fmt, name)
    assert detect_format(path) == fmt
    t = one(path)
    assert t.format == fmt
    assert t.user_request == "Create hello.py that prints hello."
    assert t.final_message == "Done: I created hello.py."
    assert t.termination.reason == "normal"
    assert all(m.text.strip() for m in t.messages if m.role == "user")
    calls = [(c.name, c.outcome, c.arguments.get("path")) for c in t.tool_calls]
    if name == "write-after-failed-tool":
        assert calls == [("boom", "error", "hello.py"), ("write_file", "success", "hello.py")]
    else:
        assert calls == [("write_file", "error", "/etc/hello.py")]
    assert all(c.error or c.output_excerpt for c in t.tool_calls if c.outcome == "error")


def test_trajectory_score_reads_every_framework_log() -> None:
    folders = [str(LOGS / fmt) for fmt in FILES]
    done = run_earnest("trajectory", "score", *folders, "--format", "jsonl")
    assert done.returncode == 0, done.stderr
    outcomes = {
        (r["format"], Path(r["source"]).stem): r["outcome"]
        for r in map(json.loads, done.stdout.splitlines())
    }
    assert outcomes == {
        (fmt, name): "backed" if name == "write-after-failed-tool" else "completion_without_effect"
        for fmt, name in CASES
    }


def test_the_agents_trace_batch_document_and_a_tracing_array(tmp_path: Path) -> None:
    """The SDK's BackendSpanExporter posts {"data": [...]}; a plain array reads the same."""
    items = [json.loads(line) for line in log("openai-agents-trace", "write-after-failed-tool")
             .read_text().splitlines()]  # fmt: skip
    batch = tmp_path / "batch.json"
    batch.write_text(json.dumps({"data": items}, indent=2))
    plain = tmp_path / "array.json"
    plain.write_text(json.dumps(items))
    for path in (batch, plain):
        assert detect_format(path) == "openai-agents-trace"
        assert [c.outcome for c in one(path).tool_calls] == ["error", "success"]


def test_pydantic_ai_feedback_and_pretty_printed(tmp_path: Path) -> None:
    history = json.loads(log("pydantic-ai-messages", "claim-after-failed-write").read_text())
    # An output validator's retry (earnest's gate, say) is a retry-prompt naming no tool.
    history.insert(-1, {"kind": "request", "parts": [
        {"part_kind": "retry-prompt", "content": "completion-without-effect: no file changed",
         "tool_name": None, "tool_call_id": "x"}]})  # fmt: skip
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history, indent=2))
    assert detect_format(path) == "pydantic-ai-messages"
    t = one(path)
    assert [m.kind for m in t.messages if m.role == "user"] == ["prompt", "feedback"]
    assert t.user_request == "Create hello.py that prints hello."


@pytest.mark.parametrize(
    ("fmt", "content", "words"),
    [
        ("pydantic-ai-messages", '{"kind": "request"}', "expected a JSON array"),
        ("pydantic-ai-messages", '[{"kind": "request", "parts": 3}]',
         "messages[0]: not a message with a parts list"),
        ("openai-agents-trace", '{"object": "trace.span", "trace_id": "t"}\n',
         "line 1: a span with no span_data object"),
        ("langsmith-runs", '{"id": "r", "trace_id": "r", "run_type": 5}\n',
         "line 1: not a LangSmith run (no trace_id or run_type)"),
    ],
)  # fmt: skip
def test_bad_logs_name_the_file_and_place(
    fmt: str, content: str, words: str, tmp_path: Path
) -> None:
    path = tmp_path / ("bad.json" if fmt == "pydantic-ai-messages" else "bad.jsonl")
    path.write_text(content)
    done = run_earnest("trajectory", "score", str(path), "--input-format", fmt)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{path}" in done.stderr and words in done.stderr
