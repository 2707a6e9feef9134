"""Acting a fixture out: a fresh workspace copy per sample, the agent's trajectory, the diff.

``earnest run --act`` (or a fixture's ``mode = "act"``) runs an agentic fixture's sample in a
copy of its ``workspace``. What the agent *did* is read here and only here:

- the **commands** from its trajectory — the agent CLI's stdout (Claude Code
  ``stream-json``, Codex ``--json`` events, or any format :mod:`earnest.trajectory.readers`
  detects; for Gemini CLI its session file, found through the ``stream-json`` ``init`` event,
  because the stream drops the exit codes: :mod:`earnest.live.act_transcripts`) read by
  earnest's own readers, each tool call
  classified by :func:`earnest.effects.observe_tool_result` (its shell command and whether it
  succeeded);
- the **files** created, changed and deleted: the copy's diff against the template
  (:mod:`earnest.pressure.workspaces`).

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

from earnest.pressure.acted import is_agentic
from earnest.pressure.evidence import Behaviour, RanCommand
from earnest.pressure.models import Fixture, Suite
from earnest.pressure.workspaces import diff_snapshots, resolve_workspace, snapshot

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
    from earnest.trajectory.readers import detect_format

    path = folder / OUTPUT_FILE
    path.write_text(output, encoding="utf-8")
    fmt = detect_format(path) if output.strip() else None
    if fmt is None:
        return (), ""
    return _commands(path, fmt), fmt


def commands_from_file(path: Path) -> tuple[tuple[RanCommand, ...], str]:
    """The shell commands of the trajectory in a transcript file, and the format read."""
    from earnest.trajectory.readers import detect_format

    fmt = detect_format(path)
    return (_commands(path, fmt), fmt) if fmt is not None else ((), "")


def _commands(path: Path, fmt: str) -> tuple[RanCommand, ...]:
    from earnest.effects import observe_tool_result
    from earnest.trajectory.readers import read_trajectories

    commands: list[RanCommand] = []
    for trajectory in read_trajectories(path, format=fmt):
        for call in trajectory.tool_calls:
            seen = observe_tool_result(call.as_tool_result())
            if seen.command:
                commands.append(RanCommand(seen.command, seen.success))
    return tuple(commands)


def behaviour(
    output: str,
    folder: Path,
    before: Mapping[str, str],
    workspace: Path,
    transcript: Path | None = None,
) -> Behaviour:
    """Said versus did, the *did* half: commands from ``output`` (or from the CLI's own
    ``transcript`` file, when it records more: :mod:`earnest.live.act_transcripts`), files
    from the diff."""
    commands, fmt = commands_from_file(transcript) if transcript is not None else ((), "")
    if not fmt:  # no transcript file, or one no reader knows: the stdout is the trajectory
        commands, fmt = commands_from_output(output, folder)
    created, changed, deleted = diff_snapshots(before, snapshot(workspace))
    return Behaviour(commands, created, changed, deleted, source=fmt)


def non_acting_profiles(kinds: Mapping[str, str], acting: Sequence[str]) -> list[str]:
    """Profiles asked to act a fixture out that cannot (only ``exec:`` agents act)."""
    return [name for name in acting if kinds.get(name) != "exec"]


__all__ = [
    "OUTPUT_FILE",
    "acts",
    "behaviour",
    "commands_from_file",
    "commands_from_output",
    "non_acting_profiles",
    "template_of",
]
