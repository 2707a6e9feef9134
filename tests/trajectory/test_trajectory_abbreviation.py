"""Abbreviating bulky tool-call arguments changes no classification, edit or score.

For every real transcript under the shared data, the trajectories read with the bound
(``ABBREVIATE_ARGUMENTS`` on, the default) and without it must give the same effect
evidence for every tool call, the same file edits and the same dimension scores.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import TRANSCRIPTS, require_shared
from earnest.effects import classify_tool_result
from earnest.effects.artifacts import patch_paths
from earnest.trajectory import ReadReport, read_trajectories, text
from earnest.trajectory.readers import iter_paths
from earnest.trajectory.scorers import all_scorers, score_dimensions
from earnest.trajectory.text import abbreviate, bound_arguments


def _facts(path: Path) -> list[Any]:
    out: list[Any] = []
    scorers = all_scorers()
    for t in read_trajectories(path, report=ReadReport()):
        evidence = [repr(classify_tool_result(c.as_tool_result())) for c in t.tool_calls]
        scores = score_dimensions(t, scorers)
        out.append((t.id, evidence, t.file_edits, repr(scores)))
    return out


def _all_files() -> Iterator[Path]:
    yield from iter_paths([TRANSCRIPTS])


@pytest.fixture
def unbounded() -> Iterator[None]:
    saved = text.ABBREVIATE_ARGUMENTS
    text.ABBREVIATE_ARGUMENTS = False
    try:
        yield
    finally:
        text.ABBREVIATE_ARGUMENTS = saved


def test_abbreviation_changes_no_evidence_edit_or_score_on_real_transcripts() -> None:
    require_shared()  # a clone has no shared data: skip, as the other real-transcript tests do
    files = [p for p in _all_files() if p.is_file()]
    assert len(files) > 10
    bounded = {p: _facts(p) for p in files}
    saved = text.ABBREVIATE_ARGUMENTS
    text.ABBREVIATE_ARGUMENTS = False
    try:
        reference = {p: _facts(p) for p in files}
    finally:
        text.ABBREVIATE_ARGUMENTS = saved
    calls = sum(len(e) for facts in reference.values() for _, e, _, _ in facts)
    assert calls > 100
    for p in files:
        assert bounded[p] == reference[p], p


def test_abbreviation_actually_shrinks_bulky_arguments(unbounded: None) -> None:
    body = "line\n" * 5000
    whole = bound_arguments({"file_path": "a.py", "content": body, "command": "x" * 10_000})
    assert whole["content"] == body
    text.ABBREVIATE_ARGUMENTS = True
    short = bound_arguments({"file_path": "a.py", "content": body, "command": "x" * 10_000})
    assert len(short["content"]) < 400
    assert short["content"].endswith(f"[... abbreviated: {len(body)} chars in all]")
    assert short["command"] == "x" * 10_000  # shell commands are parsed in full
    assert short["file_path"] == "a.py"


def test_abbreviate_keeps_every_patch_header() -> None:
    hunk = "".join(f"+new line {i}\n" for i in range(300))
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n" + hunk
        + "*** Delete File: old.py\n*** Add File: b.py\n" + hunk + "*** End Patch\n"
        + "--- a/c.py\n+++ b/c.py\n" + hunk + "--- a/d.py\n+++ /dev/null\n"
    )  # fmt: skip
    short = abbreviate(patch)
    assert len(short) < len(patch) // 10
    assert patch_paths(short) == patch_paths(patch)
    assert patch_paths(short) == (("src/a.py", "b.py", "c.py"), ("old.py", "d.py"))
