"""OTLP JSON trace exports of agent spans (OpenTelemetry GenAI conventions) as trajectories.

The data in tests/data/otel was written by the real OpenTelemetry SDK's OTLP encoder (see
its generate.py and SOURCE.md); the reader is exercised through `earnest trajectory score`
in a real subprocess as well as in process.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_earnest
from earnest.trajectory import ReadReport, detect_format, read_trajectories

DATA = Path(__file__).parent.parent / "data" / "otel"
JSONL = DATA / "agent-runs.otlp.jsonl"
PROTOJSON = DATA / "agent-run.protojson.json"
COPILOT = DATA / "copilot-style.otlp.json"


def _read(path: Path) -> tuple[list, ReadReport]:  # type: ignore[type-arg]
    report = ReadReport()
    return list(read_trajectories(path, report=report)), report


def test_every_shape_is_detected() -> None:
    assert detect_format(JSONL) == "otlp-json"
    assert detect_format(PROTOJSON) == "otlp-json"
    assert detect_format(COPILOT) == "otlp-json"


def test_collector_file_export_one_trajectory_per_trace() -> None:
    trajectories, report = _read(JSONL)
    assert report.warnings == []
    assert [t.id for t in trajectories] == ["conv-1", "conv-2"]
    backed, failed = trajectories
    assert backed.user_request == "Add a CHANGELOG entry for the 2.1 release."
    assert [(c.name, c.outcome) for c in backed.tool_calls] == [
        ("read_file", "success"),
        ("write_file", "success"),
    ]
    assert backed.tool_calls[1].arguments["path"] == "CHANGELOG.md"
    assert backed.tool_calls[1].output_excerpt == "wrote 22 bytes to CHANGELOG.md"
    # The write is a file edit by earnest.effects' registry, not by a table of this reader.
    assert [(e.path, e.kind) for e in backed.file_edits] == [("CHANGELOG.md", "create")]
    assert backed.final_message == "Done: CHANGELOG.md now has a 2.1 entry."
    assert backed.termination.reason == "normal"
    assert backed.metadata["agent"] == "repo-helper"
    assert backed.metadata["service_name"] == "demo-agent"
    call = failed.tool_calls[0]
    assert (call.name, call.outcome, call.error) == ("run_shell", "error", "exit status 1")
    assert call.arguments == {"command": "rm -rf build"}
    assert failed.file_edits == ()
    assert failed.final_message == "I have deleted the build/ folder."


def test_protobuf_json_mapping_reads_the_same_run() -> None:
    (from_proto,), report = _read(PROTOJSON)
    assert report.warnings == []
    (_, from_collector), _ = _read(JSONL)
    assert [c.as_tool_result() for c in from_proto.tool_calls] == [
        c.as_tool_result() for c in from_collector.tool_calls
    ]
    assert from_proto.final_message == from_collector.final_message
    assert from_proto.user_request == from_collector.user_request


def test_tool_name_from_span_name_and_status_code_names() -> None:
    (t,), report = _read(COPILOT)
    assert report.warnings == []
    assert [(c.name, c.outcome, c.error) for c in t.tool_calls] == [
        ("str_replace", "error", "old_str not found in utils.py"),
        ("read_file", "success", None),
    ]
    # No chat spans: the invoke_agent span carries the request and the answer.
    assert t.user_request == "Rename the helper in utils.py"
    assert t.final_message == "Renamed it."


def test_score_cli_outcomes_from_span_status(tmp_path: Path) -> None:
    result = run_earnest("trajectory", "score", "--format", "jsonl", str(JSONL))
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["trajectory_id"], r["outcome"]) for r in rows] == [
        ("conv-1", "backed"),
        ("conv-2", "completion_without_effect"),
    ]
    assert rows[1]["dimensions"]["tool_grounding"]["criteria"][0]["met"] is False
    assert "(otlp-json 2)" in result.stderr


def test_a_failed_agent_span_is_an_abnormal_end(tmp_path: Path) -> None:
    doc = json.loads(COPILOT.read_text())
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["status"] = {
        "code": 2,
        "message": "rate limited",
    }
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    (t,), _ = _read(path)
    assert (t.termination.reason, t.termination.detail) == ("api_error", "rate limited")


def test_malformed_spans_are_named_and_the_rest_read(tmp_path: Path) -> None:
    doc = json.loads(COPILOT.read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans.insert(1, "not a span")
    spans[2]["attributes"] = {"gen_ai.operation.name": "execute_tool"}
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    (t,), report = _read(path)
    messages = [w.message for w in report.warnings]
    assert messages == [
        "resourceSpans[0].scopeSpans[0].spans[1]: not an object",
        "resourceSpans[0].scopeSpans[0].spans[2].attributes: not a list of {key, value}",
    ]
    assert [c.name for c in t.tool_calls] == ["read_file"]


def test_bad_export_is_exit_2_naming_file_and_place(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text('{"resourceSpans": [{"scopeSpans": {"spans": []}}]}\n{"resourceSpans": "x"}\n')
    result = run_earnest("trajectory", "score", "--input-format", "otlp-json", str(path))
    assert result.returncode == 2
    assert f"{path}:1: resourceSpans[0].scopeSpans: missing or not a list" in result.stderr
    assert f"{path}:2: not an OTLP trace export: no resourceSpans list" in result.stderr
    assert "no readable trajectory found" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_document_without_resource_spans_is_named(tmp_path: Path) -> None:
    path = tmp_path / "export.json"
    path.write_text('{\n  "resourceSpans": {"spans": []}\n}\n')
    result = run_earnest("trajectory", "score", "--input-format", "otlp-json", str(path))
    assert result.returncode == 2
    assert f"{path}: not an OTLP trace export: no top-level resourceSpans list" in result.stderr
    assert "Traceback" not in result.stderr


def test_long_collector_lines_and_a_trace_split_over_lines(tmp_path: Path) -> None:
    # A collector line is one export request: often far over the 64 KiB detection head, and
    # one trace's spans may arrive in several requests (lines), out of order.
    lines = JSONL.read_text().splitlines()
    first = json.loads(lines[0])
    spans = first["resourceSpans"][0]["scopeSpans"][0]["spans"]
    big = {"key": "app.note", "value": {"stringValue": "x" * 100_000}}
    spans[0]["attributes"].append(big)
    late, early = dict(first), json.loads(lines[0])
    late_spans = spans[: len(spans) // 2]
    early_spans = early["resourceSpans"][0]["scopeSpans"][0]["spans"][len(spans) // 2 :]
    late["resourceSpans"] = [{**first["resourceSpans"][0], "scopeSpans": [{"spans": late_spans}]}]
    early["resourceSpans"][0]["scopeSpans"][0]["spans"] = early_spans
    path = tmp_path / "export.jsonl"
    path.write_text(json.dumps(late) + "\n" + json.dumps(early) + "\n" + lines[1] + "\n")
    assert path.stat().st_size > 100_000
    assert detect_format(path) == "otlp-json"
    trajectories, report = _read(path)
    assert report.warnings == []
    (whole, other), _ = _read(JSONL)
    assert [t.id for t in trajectories] == ["conv-1", "conv-2"]
    assert [c.as_tool_result() for c in trajectories[0].tool_calls] == [
        c.as_tool_result() for c in whole.tool_calls
    ]
    assert trajectories[0].final_message == whole.final_message
    assert trajectories[1].tool_calls == other.tool_calls
