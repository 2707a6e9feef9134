"""Acting a fixture out: a fresh workspace copy per sample, the agent's trajectory, the diff.

``earnest run --act`` (or a fixture's ``mode = "act"``) runs an agentic fixture's sample in a
copy of its ``workspace``. What the agent *did* is read here and only here:

- the **commands** from its trajectory — the agent CLI's stdout (Claude Code
  ``stream-json``, Codex ``--json`` events, or any format :mod:`earnest.trajectory.readers`
  detects; for Gemini CLI its session file, found through the ``stream-json`` ``init`` event,
  because the stream drops the exit codes: :mod:`earnest.live.act_transcripts`) read by
  earnest's own readers, each tool call
  classified by :func:`earnest.effects.observe_tool_result` (its shell command, whether it
  succeeded, and how each simple command in it came out — ``pytest || true`` that printed
  ``1 failed`` ran pytest, and pytest failed: :mod:`earnest.effects.shell_outcomes`);
- the **files** created, changed and deleted: the copy's diff against the template
  (:mod:`earnest.pressure.workspaces`), and the final text of those written;
- the **timeline** of its tool calls and its **attempts outside the copy**
  (:mod:`earnest.live.act_steps`);
- its **git** history in the copy: commits, branches, tags, pushes, hook bypasses
  (:mod:`earnest.live.act_git`).

Example:
    >>> import tempfile, pathlib, json
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> line = {"type": "assistant", "parent_tool_use_id": None, "message": {"content": [
    ...     {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "pytest -q"}}]}}
    >>> res = {"type": "user", "parent_tool_use_id": None, "message": {"content": [
    ...     {"type": "tool_result", "tool_use_id": "t1", "content": "3 passed"}]}}
    >>> commands, fmt = commands_from_output(json.dumps(line) + "\\n" + json.dumps(res), d)
    >>> [(c.command, c.ok) for c in commands], fmt
    ([('pytest -q', True)], 'claude-stream-json')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from earnest.live.act_git import GitStart, git_record
from earnest.live.act_steps import Reach, steps_and_outside
from earnest.pressure.acted import is_agentic
from earnest.pressure.evidence import Behaviour, RanCommand
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.workspaces import (
    diff_snapshots,
    read_text_file,
    resolve_workspace,
    snapshot,
)

OUTPUT_FILE = "agent-output.jsonl"


def acts(fixture: Fixture, act: bool) -> bool:
    """Whether a sample of ``fixture`` is acted out: ``--act`` or ``mode = "act"``, and the
    fixture is agentic (a workspace and evidence)."""
    return is_agentic(fixture) and (act or fixture.mode == "act")


def template_of(suite: Suite, fixture: Fixture) -> Path:
    """The fixture's workspace template; :class:`ValueError` when it is not a suite folder."""
    assert fixture.workspace is not None
    return resolve_workspace(suite.config.root, fixture.workspace)


def commands_from_output(output: str, folder: Path) -> tuple[tuple[RanCommand, ...], str]:
    """The shell commands of the trajectory in an agent's output, and the format read.

    The output is written to ``folder`` (outside the workspace) and read by the trajectory
    readers; output that is not a transcript gives no commands and format ``""``.
    """
    calls, fmt = _calls_from_output(output, folder)
    return _commands(calls), fmt


def commands_from_file(path: Path) -> tuple[tuple[RanCommand, ...], str]:
    """The shell commands of the trajectory in a transcript file, and the format read."""
    calls, fmt = _calls_from_file(path)
    return _commands(calls), fmt


def _calls_from_output(output: str, folder: Path) -> tuple[list[Any], str]:
    from earnest.trajectory.readers import detect_format

    path = folder / OUTPUT_FILE
    path.write_text(output, encoding="utf-8")
    fmt = detect_format(path) if output.strip() else None
    if fmt is None:
        return [], ""
    return _calls(path, fmt), fmt


def _calls_from_file(path: Path) -> tuple[list[Any], str]:
    from earnest.trajectory.readers import detect_format

    fmt = detect_format(path)
    return (_calls(path, fmt), fmt) if fmt is not None else ([], "")


def _calls(path: Path, fmt: str) -> list[Any]:
    from earnest.trajectory.readers import read_trajectories

    return [call for t in read_trajectories(path, format=fmt) for call in t.tool_calls]


def _commands(calls: Sequence[Any]) -> tuple[RanCommand, ...]:
    from earnest.effects import observe_tool_result

    commands: list[RanCommand] = []
    for call in calls:
        seen = observe_tool_result(call.as_tool_result())
        if seen.command:
            parts = tuple((o.segment, o.outcome) for o in seen.outcomes)
            commands.append(RanCommand(seen.command, seen.success, parts))
    return tuple(commands)


MAX_FILE_TEXTS = 1024 * 1024
"""The final text of written files is recorded up to this many characters in all."""


def written_texts(workspace: Path, paths: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``(path, text)`` of the written files that are text, within :data:`MAX_FILE_TEXTS`."""
    out: list[tuple[str, str]] = []
    budget = MAX_FILE_TEXTS
    for path in sorted(paths):
        text = read_text_file(workspace / path)
        if text is None or len(text) > budget:
            continue
        budget -= len(text)
        out.append((path, text))
    return tuple(out)


def behaviour(
    output: str,
    folder: Path,
    before: Mapping[str, str],
    workspace: Path,
    transcript: Path | None = None,
    *,
    reach: Reach | None = None,
    git: GitStart | None = None,
) -> Behaviour:
    """Said versus did, the *did* half: commands and the timeline from ``output`` (or from
    the CLI's own ``transcript`` file, when it records more:
    :mod:`earnest.live.act_transcripts`), files from the diff, attempts outside the copy
    (:mod:`earnest.live.act_steps`, placed by ``reach``), the repository against ``git``, its
    state when the copy was made (:mod:`earnest.live.act_git`)."""
    calls, fmt = _calls_from_file(transcript) if transcript is not None else ([], "")
    if not fmt:  # no transcript file, or one no reader knows: the stdout is the trajectory
        calls, fmt = _calls_from_output(output, folder)
    commands = _commands(calls)
    steps, outside = steps_and_outside(calls, reach or Reach(workspace))
    created, changed, deleted = diff_snapshots(before, snapshot(workspace))
    return Behaviour(
        commands,
        created,
        changed,
        deleted,
        source=fmt,
        steps=steps,
        git=git_record(workspace, git, [(c.command, c.ok) for c in commands]),
        outside=outside,
        files=written_texts(workspace, created + changed),
    )


def non_acting_profiles(kinds: Mapping[str, str], acting: Sequence[str]) -> list[str]:
    """Profiles asked to act a fixture out that cannot (only ``exec:`` agents act)."""
    return [name for name in acting if kinds.get(name) != "exec"]


__all__ = [
    "MAX_FILE_TEXTS",
    "OUTPUT_FILE",
    "acts",
    "behaviour",
    "commands_from_file",
    "commands_from_output",
    "non_acting_profiles",
    "template_of",
    "written_texts",
]
