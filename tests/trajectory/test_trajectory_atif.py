"""ATIF (Harbor's Agent Trajectory Interchange Format).

No public ATIF file was collected; these documents follow the ATIF v1.4 RFC's shapes.
"""

from __future__ import annotations

import json
from pathlib import Path

from earnest.trajectory import read_trajectories

DOC = {
    "schema_version": "ATIF-v1.4",
    "session_id": "sess-9",
    "agent": {"name": "terminus", "version": "1.0", "model_name": "m"},
    "steps": [
        {"step_id": 1, "source": "system", "message": "You are an agent."},
        {"step_id": 2, "source": "user", "message": "Create hello.txt and test it."},
        {"step_id": 3, "source": "agent", "message": "Creating the file.",
         "tool_calls": [
             {"tool_call_id": "c1", "function_name": "write_file",
              "arguments": {"path": "hello.txt", "content": "hi"}},
             {"tool_call_id": "c2", "function_name": "bash", "arguments": {"command": "cat hello.txt"}},
         ],
         "observation": {"results": [{"source_call_id": "c1", "content": "ok"}]}},
        {"step_id": 4, "source": "agent", "message": [{"type": "text", "text": "Done: hello.txt exists."}]},
    ],
    "subagent_trajectories": [
        {"steps": [{"step_id": 1, "source": "agent", "message": "sub",
                    "tool_calls": [{"tool_call_id": "s1", "function_name": "bash",
                                    "arguments": "{\"command\": \"ls\"}"}]}]}
    ],
    "final_metrics": {"total_steps": 4},
}  # fmt: skip


def test_atif_document(tmp_path: Path) -> None:
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps(DOC, indent=2))
    (t,) = read_trajectories(path)
    assert t.format == "atif" and t.id == "sess-9"
    write, cat, sub = t.tool_calls
    assert write.outcome == "success" and cat.outcome == "unknown"  # no observation for c2
    assert sub.is_sidechain and sub.arguments == {"command": "ls"}
    assert [(e.path, e.kind) for e in t.file_edits] == [("hello.txt", "create")]
    assert t.user_request == "Create hello.txt and test it."
    assert t.final_message == "Done: hello.txt exists." and t.claimed_completion
    assert t.metadata["agent"]["name"] == "terminus"
