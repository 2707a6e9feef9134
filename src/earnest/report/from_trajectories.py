"""Build the trajectory part of a report: a battery scored as ``earnest trajectory score`` does.

Each trajectory is scored by :func:`earnest.trajectory.score_trajectory` (dimension scores and
the outcome, from the effect gate replayed over it); the battery's numbers — dimension means
with t-intervals, the completion-without-effect rate with its Wilson interval, counts per
outcome and format — are copied from :meth:`earnest.trajectory.Battery.summary`. What the
viewer shows of each run (request, tool calls, messages, final message) is bounded.

Example:
    >>> section, read = trajectory_section(["examples/trajectories"])  # doctest: +SKIP
    >>> section.cwe_count, len(section.trajectories)  # doctest: +SKIP
    (2, 12)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from earnest.errors import InputError
from earnest.report.model import (
    DimensionStat,
    DimensionView,
    ToolCallView,
    TrajectorySection,
    TrajectoryView,
)
from earnest.trajectory import (
    Battery,
    ReadReport,
    Trajectory,
    TrajectoryResult,
    iter_paths,
    read_trajectories,
    score_trajectory,
    scorers_for,
)
from earnest.trajectory.model import ToolCall

MAX_TEXT = 6000
MAX_MESSAGES = 400
MAX_CALLS = 400
_TARGET_KEYS = ("file_path", "path", "notebook_path", "command", "cmd", "pattern", "url", "query")


def _clip(text: str, limit: int = MAX_TEXT) -> str:
    return (
        text if len(text) <= limit else text[:limit] + f"\n[… {len(text) - limit} more characters]"
    )


def _target(arguments: Mapping[str, Any]) -> str:
    for k in _TARGET_KEYS:
        v = arguments.get(k)
        if isinstance(v, str) and v.strip():
            return _clip(" ".join(v.split()), 160)
    return ""


def call_view(c: ToolCall) -> ToolCallView:
    try:
        args = json.dumps(dict(c.arguments), ensure_ascii=False, indent=1, default=str)
    except (TypeError, ValueError):
        args = str(dict(c.arguments))
    outcome = c.outcome + (f" (exit {c.exit_code})" if c.exit_code not in (None, 0) else "")
    if c.error:
        outcome += f": {c.error}"
    return ToolCallView(
        name=c.name + (" (subagent)" if c.is_sidechain else ""),
        outcome=outcome,
        target=_target(c.arguments),
        input=_clip(args, 2000),
        output=_clip(c.output_excerpt, 4000),
    )


def trajectory_view(key: str, t: Trajectory, r: TrajectoryResult) -> TrajectoryView:
    detail = f" ({r.termination_detail})" if r.termination_detail else ""
    calls = t.tool_calls[:MAX_CALLS]
    messages = tuple(
        (m.role + (" (subagent)" if m.is_sidechain else ""), _clip(m.text))
        for m in t.messages[:MAX_MESSAGES]
        if m.text.strip()
    )
    return TrajectoryView(
        key=key,
        id=t.id,
        source=t.source,
        format=t.format,
        outcome=r.outcome,
        reason=r.reason,
        termination=r.termination + detail,
        request=_clip(t.user_request or ""),
        final_message=_clip(t.final_message or ""),
        tool_calls=tuple(call_view(c) for c in calls),
        messages=messages,
        scores=tuple(
            DimensionView(d.value, s.score, s.confidence, s.reason)
            for d, s in r.scores.dimensions.items()
        ),
        aggregate=r.aggregate if r.scores.dimensions else None,
        effect_without_request=r.effect_without_request,
        unverified_claims=tuple(f"{c.claim}: {c.why}" for c in (r.claims or ()) if not c.verified),
    )


def _stat(name: str, d: Mapping[str, Any]) -> DimensionStat:
    return DimensionStat(
        dimension=name,
        n=int(d.get("n", 0)),
        mean=d.get("mean"),
        interval=(d.get("ci_low"), d.get("ci_high")),
        weighted_mean=d.get("weighted_mean"),
    )


def trajectory_section(
    paths: Sequence[str | Path],
    *,
    dimensions: Sequence[str] = ("default",),
    max_downgrades: int = 2,
    input_format: str | None = None,
    strict_claims: bool = True,
) -> tuple[TrajectorySection, ReadReport]:
    """Read and score every trajectory under ``paths``; raises :class:`InputError` when none
    is readable or a dimension is unknown."""
    try:
        scorers = scorers_for(dimensions)
    except ValueError as exc:
        raise InputError(None, "--dimensions", str(exc)) from None
    files = list(iter_paths([Path(p) for p in paths]))
    report = ReadReport()
    battery = Battery()
    views: list[TrajectoryView] = []
    for path in files:
        for t in read_trajectories(path, report=report, format=input_format):
            result = score_trajectory(
                t, scorers, max_downgrades=max_downgrades, strict_claims=strict_claims
            )
            battery.add(result)
            views.append(trajectory_view(f"t{len(views) + 1}", t, result))
    if not views:
        where = ", ".join(str(p) for p in paths)
        raise InputError(where, None, "no readable trajectory found")
    s = battery.summary()
    cwe = s["completion_without_effect"]
    notes = []
    if report.skipped_lines:
        where = ", ".join(f"{f} ({n})" for f, n in report.skipped_by_file.most_common())
        notes.append(
            f"{report.skipped_lines} malformed or unknown line(s) skipped while reading: {where}"
        )
    if report.files_skipped:
        notes.append(
            f"{report.files_skipped} file(s) were not transcripts: "
            + ", ".join(report.unread_files)
        )
    section = TrajectorySection(
        trajectories=tuple(views),
        dimensions=tuple(_stat(k, v) for k, v in s["dimensions"].items()),
        cwe_count=int(cwe["count"]),
        cwe_rate=cwe["rate"],
        cwe_interval=(cwe["ci_low"], cwe["ci_high"]),
        claimed=int(cwe["claimed_completions"]),
        outcomes=dict(s["outcomes"]),
        formats={k: dict(v) for k, v in s["formats"].items()},
        aggregate=_stat("aggregate", s["aggregate"]) if s["aggregate"]["n"] else None,
        notes=tuple(notes),
        sources=tuple(str(p) for p in paths),
    )
    return section, report


__all__ = ["call_view", "trajectory_section", "trajectory_view"]
