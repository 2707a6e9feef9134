"""Reading a large Claude Code transcript keeps memory bounded (excerpts, not outputs)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from earnest.trajectory import ReadReport, read_trajectories

OUTPUT = ("test_widget.py::test_case PASSED\n" * 2000)[:60_000]


def generate(path: Path, target_bytes: int) -> int:
    """A Claude Code session of real line shapes: big Bash outputs, progress, split turns."""
    envelope = {"isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": "big",
                "version": "2.1.14", "gitBranch": "main"}  # fmt: skip
    cycles = 0
    with open(path, "w") as handle:
        while handle.tell() < target_bytes:
            k = cycles
            if k % 50 == 0:
                handle.write(json.dumps({**envelope, "type": "user", "uuid": f"p{k}",
                    "message": {"role": "user", "content": f"Task {k}: run the tests"}}) + "\n")  # fmt: skip
            message = {"model": "claude-opus-4-5", "id": f"msg_{k}", "type": "message",
                       "role": "assistant", "stop_reason": None,
                       "usage": {"input_tokens": 3, "output_tokens": 9}}  # fmt: skip
            handle.write(json.dumps({**envelope, "type": "assistant", "uuid": f"a{k}",
                "message": {**message, "content": [{"type": "text", "text": "Running the suite."}]}}) + "\n")  # fmt: skip
            handle.write(json.dumps({**envelope, "type": "assistant", "uuid": f"b{k}",
                "message": {**message, "content": [{"type": "tool_use", "id": f"toolu_{k}",
                "name": "Bash", "input": {"command": "pytest -q"}}]}}) + "\n")  # fmt: skip
            for _ in range(3):
                handle.write(json.dumps({**envelope, "type": "progress", "toolUseID": f"toolu_{k}",
                    "data": {"type": "bash_progress", "output": OUTPUT[:1000]}}) + "\n")  # fmt: skip
            handle.write(json.dumps({**envelope, "type": "user", "uuid": f"r{k}",
                "message": {"role": "user", "content": [{"tool_use_id": f"toolu_{k}",
                "type": "tool_result", "content": OUTPUT, "is_error": False}]},
                "toolUseResult": {"stdout": OUTPUT, "stderr": "", "interrupted": False,
                                  "isImage": False}}) + "\n")  # fmt: skip
            cycles += 1
    return cycles


def test_peak_memory_is_bounded_on_a_30_mb_transcript(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    cycles = generate(path, 30 * 1024 * 1024)
    size = path.stat().st_size
    report = ReadReport()
    tracemalloc.start()
    try:
        (t,) = read_trajectories(path, report=report)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(t.tool_calls) == cycles and report.skipped_lines == 0
    assert all(len(c.output_excerpt) < 2_100 for c in t.tool_calls)
    assert t.metadata["assistant_turns"] == cycles
    # generous: the file is 30 MB; what is kept is a few KB per tool call
    assert peak < 12 * 1024 * 1024, (peak, size)
    assert peak < size / 3
