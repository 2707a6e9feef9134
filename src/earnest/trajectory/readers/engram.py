"""Engram-normalised Claude Code sessions: one content block per line.

``{timestamp, role: user|assistant|tool, content: {type: text|thinking|tool_use|
tool_result, text?, tool_name?, tool_id?, input?, output?, is_error?}}``. Consecutive
assistant lines form one turn. (Engram's companion ``operations.json`` is derived and
disagrees with the transcript on errors; it is not read.)

Example:
    >>> import tempfile, pathlib, json
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "transcript.jsonl"
    >>> lines = [{"role": "user", "content": {"type": "text", "text": "clone it"}},
    ...   {"role": "assistant", "content": {"type": "tool_use", "tool_name": "Bash",
    ...    "tool_id": "t", "input": {"command": "git clone x"}}},
    ...   {"role": "tool", "content": {"type": "tool_result", "tool_id": "t",
    ...    "output": "Exit code 128", "is_error": True}}]
    >>> _ = p.write_text("".join(json.dumps(x) + "\\n" for x in lines))
    >>> from earnest.trajectory.report import ReadReport
    >>> t = next(read(p, ReadReport()))
    >>> t.tool_calls[0].outcome, t.tool_calls[0].exit_code
    ('error', 128)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.builder import TrajectoryBuilder
from earnest.trajectory.readers.claude_code import edits_for
from earnest.trajectory.readers.lines import iter_json_lines
from earnest.trajectory.report import ReadReport
from earnest.trajectory.text import as_dict, as_str, content_text, user_text_kind

FORMAT = "engram"
_EXIT_CODE = re.compile(r"Exit code (-?\d+)")


def read(path: Path, report: ReadReport, **options: Any) -> Iterator[Trajectory]:
    """One trajectory per Engram transcript."""
    builder = TrajectoryBuilder(
        id=path.name.removesuffix("-transcript.jsonl").removesuffix(".jsonl"),
        source=str(path),
        format=FORMAT,
        **options,
    )
    name = str(path)
    in_turn = False
    for number, line in iter_json_lines(path, report):
        role = line.get("role")
        block = line.get("content")
        if not isinstance(block, dict):
            report.skip(name, number, "content is not a block object")
            continue
        kind = block.get("type")
        stamp = as_str(line.get("timestamp"))
        if role == "assistant":
            if not in_turn:
                builder.new_turn()
                in_turn = True
            if kind == "text":
                builder.message("assistant", content_text(block.get("text")), timestamp=stamp)
            elif kind == "tool_use":
                tool = str(block.get("tool_name") or "unknown")
                args = as_dict(block.get("input"))
                builder.tool_call(block.get("tool_id"), tool, args, edits=edits_for(tool, args))
            elif kind != "thinking":
                report.unknown(name, number, f"assistant block type {kind!r}")
        elif role == "tool" or kind == "tool_result":
            in_turn = False
            output = content_text(block.get("output"))
            match = _EXIT_CODE.match(output)
            found = builder.tool_result(
                str(block.get("tool_id")),
                is_error=bool(block.get("is_error")),
                output=output,
                exit_code=int(match.group(1)) if match else None,
            )
            if not found:
                report.skip(name, number, "tool_result with no matching tool_use")
        elif role == "user":
            in_turn = False
            text = content_text(block.get("text"))
            builder.message("user", text, kind=user_text_kind(text), timestamp=stamp)
        else:
            report.skip(name, number, f"unknown role {role!r}")
    yield builder.build()


__all__ = ["FORMAT", "read"]
