"""File edits come from earnest.effects' registry and argument parsing, not a table of their own."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import TRANSCRIPTS
from earnest.effects import DEFAULT_REGISTRY
from earnest.trajectory import ReadReport, iter_paths, read_trajectories
from earnest.trajectory.readers.claude_code import edits_for
from earnest.trajectory.readers.edits import FILE_TOOL_KINDS, structured_edits


@pytest.mark.parametrize(
    ("name", "args", "edits"),
    [
        # what the readers' own table used to say, unchanged
        ("Write", {"file_path": "a.py"}, [("a.py", "create")]),
        ("Edit", {"file_path": "a.py"}, [("a.py", "modify")]),
        ("MultiEdit", {"file_path": "a.py"}, [("a.py", "modify")]),
        ("NotebookEdit", {"notebook_path": "n.ipynb"}, [("n.ipynb", "modify")]),
        ("write", {"file_path": "a.py"}, [("a.py", "create")]),
        ("write_file", {"file_path": "a.py"}, [("a.py", "create")]),
        ("replace", {"file_path": "a.py"}, [("a.py", "modify")]),
        ("write_to_file", {"TargetFile": '"C:\\\\w\\\\a.py"'}, [("C:\\w\\a.py", "create")]),
        ("str_replace_editor", {"command": "create", "path": "/w/a.py"}, [("/w/a.py", "create")]),
        ("str_replace_editor", {"command": "str_replace", "path": "/w/a.py"}, [("/w/a.py", "modify")]),
        ("str_replace_editor", {"command": "view", "path": "/w/a.py"}, []),
        ("delete_file", {"path": "old.py"}, [("old.py", "delete")]),
        ("Bash", {"command": "echo hi > a"}, []),  # shell: the effect classifier's inference
        ("Read", {"file_path": "a.py"}, []),
        ("Write", {}, []),
        ("Write", ["not", "a", "mapping"], []),
        # newly right because the shared registry knows more stacks
        ("mcp__filesystem__write_file", {"path": "a.py"}, [("a.py", "create")]),
        ("mcp__filesystem__move_file", {"source": "a", "destination": "b"}, [("b", "create"), ("a", "delete")]),
        ("replace_file_content", {"TargetFile": "a.py"}, [("a.py", "modify")]),
        ("search_replace", {"file_path": "a.py"}, [("a.py", "modify")]),
        ("file_editor", {"command": "create", "path": "/w/a.py"}, [("/w/a.py", "create")]),
        ("str_replace_based_edit_tool", {"command": "insert", "path": "a.py"}, [("a.py", "modify")]),
        ("apply_patch", {"input": "*** Begin Patch\n*** Update File: a.py\n*** Delete File: b.py\n"},
         [("a.py", "modify"), ("b.py", "delete")]),
        # arguments recorded as a JSON string
        ("Write", '{"file_path": "s.py"}', [("s.py", "create")]),
    ],
)  # fmt: skip
def test_structured_edits(name: str, args: Any, edits: list[tuple[str, str]]) -> None:
    assert structured_edits(name, args) == edits


def test_claude_code_edits_use_the_same_judgement() -> None:
    assert edits_for("Write", {"file_path": "a.py"}) == structured_edits(
        "Write", {"file_path": "a.py"}
    )


def test_every_file_edit_read_from_real_transcripts_is_a_file_tool_or_a_source_record() -> None:
    seen = 0
    for path in iter_paths([TRANSCRIPTS]):
        for t in read_trajectories(path, report=ReadReport()):
            names = {c.id: c.name for c in t.tool_calls}
            for edit in t.file_edits:
                name = names[edit.tool_call_id]
                kind = DEFAULT_REGISTRY.kind_of(name)
                # SWE-agent's legacy commands carry their path in the observation instead.
                assert kind in FILE_TOOL_KINDS or t.format == "swe-agent", (path, name)
                seen += 1
    assert seen > 100
