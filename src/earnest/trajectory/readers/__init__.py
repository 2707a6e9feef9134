"""Transcript readers: one module per source format, all producing :class:`Trajectory`.

:func:`read_trajectories` detects a file's format and streams its trajectories;
:func:`iter_paths` expands directories; every problem goes to a :class:`ReadReport`
instead of an exception.

Example:
    >>> sorted(READERS)[:3]
    ['antigravity', 'atif', 'claude-code']
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from earnest.errors import InputError
from earnest.trajectory.model import Trajectory
from earnest.trajectory.readers.detect import detect_format
from earnest.trajectory.report import ReadReport

TYPE_CHECKING = False  # not typing's: importing typing costs every stop ~3 ms
if TYPE_CHECKING:
    from typing import Any

    from earnest.trajectory.readers.claude_code import (
        ClaudeCodeSession,
        read_claude_code_from,
        read_claude_run,
    )

ReaderFunction = Callable[..., Iterator[Trajectory]]

READERS: dict[str, str] = {
    "antigravity": "antigravity",
    "atif": "atif",
    "claude-code": "claude_code",
    "claude-json": "claude_json",
    "claude-managed-agents": "managed_agents",
    "claude-stream-json": "claude_stream",
    "codex-exec": "codex_exec",
    "copilot-cli-events": "copilot_events",
    "codex-rollout": "codex_rollout",
    "cursor-hook-events": "cursor_hooks",
    "earnest": "earnest_jsonl",
    "engram": "engram",
    "gemini-cli-session": "gemini_session",
    "gemini-cli-stream": "gemini_stream",
    "inspect": "inspect_log",
    "langsmith-runs": "langsmith_runs",
    "mini-swe-agent": "mini_swe_agent",
    "openai-agents-trace": "openai_agents_trace",
    "openai-chat": "openai_chat",
    "opencode": "opencode_db",
    "openhands": "openhands",
    "otlp-json": "otlp_json",
    "pi-session": "pi_session",
    "pydantic-ai-messages": "pydantic_ai_messages",
    "qwen-code-chat": "qwen_chat",
    "swe-agent": "swe_agent",
    "tau-bench": "tau_bench",
    "tau2-bench": "tau2_bench",
}
"""Format name → module in this package (imported on first use)."""

TRANSCRIPT_SUFFIXES = (".jsonl", ".json", ".traj", ".ndjson", ".eval")
"""Files a directory walk considers; others (``*.diff``, ``*.md``...) are not transcripts."""


def reader_for(format: str) -> ReaderFunction:
    """The ``read(path, report, **options)`` function of a format."""
    if format not in READERS:
        raise KeyError(f"unknown trajectory format {format!r}")
    module = importlib.import_module(f"earnest.trajectory.readers.{READERS[format]}")
    function: ReaderFunction = module.read
    return function


def iter_paths(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Files to read: files as given, directories searched recursively (sorted). An opencode
    JSON ``storage`` folder (:func:`~earnest.trajectory.readers.opencode_storage.is_opencode_storage`)
    is one path to read, given or found, never its record files one by one.

    Raises :class:`InputError` for a path that does not exist.
    """
    from earnest.trajectory.readers.opencode_storage import is_opencode_storage

    for raw in paths:
        path = Path(raw)
        if path.is_dir() and is_opencode_storage(path):
            yield path
        elif path.is_dir():
            stores: list[Path] = []
            for child in sorted(path.rglob("*")):
                if any(store in child.parents for store in stores):
                    continue
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if hidden:
                    continue
                if child.is_dir() and is_opencode_storage(child):
                    stores.append(child)
                    yield child
                elif child.is_file() and child.name.endswith(TRANSCRIPT_SUFFIXES):
                    yield child
        elif path.is_file():
            yield path
        else:
            raise InputError(path, None, "no such file or directory")


def read_trajectories(
    path: str | Path,
    *,
    report: ReadReport | None = None,
    format: str | None = None,
    **options: Any,
) -> Iterator[Trajectory]:
    """Stream the trajectories in one file; problems go to ``report``, never raised.

    ``format`` skips detection; ``options`` (``output_chars``, ``message_chars``) bound
    the excerpts kept.
    """
    report = report if report is not None else ReadReport()
    path = Path(path)
    name = str(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        report.skip_file(name, f"cannot read: {exc.strerror or exc}")
        return
    if size == 0:
        report.skip_file(name, "empty file")
        return
    fmt = format or detect_format(path)
    if fmt is None:
        report.skip_file(name, "not a recognised transcript format (binary or unknown)")
        return
    reader = reader_for(fmt)
    report.files_read += 1
    produced = 0
    try:
        for trajectory in reader(path, report, **options):
            produced += 1
            report.trajectories += 1
            report.formats[trajectory.format] += 1
            yield trajectory
    except (OSError, UnicodeDecodeError) as exc:
        report.warn(name, None, f"read failed: {exc}")
    if produced == 0:
        report.warn(name, None, f"no trajectory found (format {fmt})")


_CLAUDE_CODE_NAMES = frozenset({"ClaudeCodeSession", "read_claude_code_from", "read_claude_run"})


def __getattr__(name: str) -> Any:
    """The Claude Code reader's public names, imported on first use: a Codex or Gemini stop
    hook imports this package and must not pay for the Claude Code reader."""
    if name in _CLAUDE_CODE_NAMES:
        from earnest.trajectory.readers import claude_code

        return getattr(claude_code, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "READERS",
    "TRANSCRIPT_SUFFIXES",
    "ClaudeCodeSession",
    "ReadReport",
    "detect_format",
    "iter_paths",
    "read_claude_code_from",
    "read_claude_run",
    "read_trajectories",
    "reader_for",
]
