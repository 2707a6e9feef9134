"""Render trajectory scores and gate replays: terminal tables, JSON, JSONL, JUnit XML.

The JSON shapes are documented in ``docs/formats.md`` ("Trajectory scores", "Gate replay").

Example:
    >>> from earnest.trajectory import Battery
    >>> score_json(Battery())["battery"]["trajectories"]
    0
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from earnest.report.console import name_cap
from earnest.report.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit
from earnest.trajectory.battery import Battery, TrajectoryResult
from earnest.trajectory.replay import ReplayTally, TrajectoryReplay
from earnest.trajectory.scorers import TrajectoryDimension

_OUTCOME_STYLE = {
    "backed": "green",
    "completion_without_effect": "bold red",
    "no_claim": "yellow",
    "abnormal": "magenta",
}
_OUTCOME_LABEL = {
    "backed": "backed",
    "completion_without_effect": "WITHOUT EFFECT",
    "no_claim": "no claim",
    "abnormal": "abnormal",
}
_CLAIM_STYLE = {"passed": "green", "downgraded": "bold red", "exhausted": "yellow"}
_SHORT = {
    "planning": "plan",
    "tool_grounding": "tool",
    "recovery": "reco",
    "refusal": "refu",
    "effect_grounding": "effe",
}


# -- score ---------------------------------------------------------------------------------


def score_json(battery: Battery) -> dict[str, Any]:
    """``{"battery": {...}, "trajectories": [...]}``."""
    return {
        "battery": battery.summary(),
        "trajectories": [r.to_dict() for r in battery.results],
    }


def write_score_json(
    handle: IO[str], summary: dict[str, Any], elements: IO[str], count: int
) -> None:
    """Write ``json.dumps(score_json(...), indent=2) + "\\n"`` from the battery ``summary`` and
    the ``count`` trajectory ``elements`` already rendered (by
    :func:`earnest.trajectory.parallel.json_element`, joined by ``,\\n``) in a spool file:
    the same bytes, without holding the trajectories in memory."""
    battery = json.dumps(summary, indent=2, ensure_ascii=False).replace("\n", "\n  ")
    if not count:
        handle.write(f'{{\n  "battery": {battery},\n  "trajectories": []\n}}\n')
        return
    handle.write(f'{{\n  "battery": {battery},\n  "trajectories": [\n')
    shutil.copyfileobj(elements, handle)
    handle.write("\n  ]\n}\n")


def score_jsonl(battery: Battery) -> Iterator[str]:
    """One JSON object per trajectory, in reading order."""
    for r in battery.results:
        yield json.dumps(r.to_dict(), ensure_ascii=False)


def score_junit(battery: Battery, suite_name: str = "earnest trajectory score") -> str:
    """One test case per trajectory: a completion without effect fails with the gate's
    reason; an abnormal termination is skipped (it claimed nothing)."""
    cases = []
    for r in battery.results:
        props = [
            ("source", r.source),
            ("format", r.format),
            ("outcome", r.outcome),
            ("termination", r.termination),
            ("tool_calls", str(r.tool_calls)),
        ]
        props += [(d.value, f"{s.score:.2f}") for d, s in r.scores.dimensions.items()]
        failure = None
        skipped = None
        if r.completion_without_effect:
            claim = r.replay.final_claim
            body = [f"reason: {r.reason}"]
            if r.replay.final_claim is not None and r.replay.runs:
                request = r.replay.runs[-1].request
                if request:
                    body.append(f"request: {_clip(request, 500)}")
            if claim is not None:
                body.append(f"final message: {claim.content}")
            failure = JUnitFailure("completion-without-effect", r.reason, "\n".join(body))
        elif r.terminated_abnormally:
            skipped = r.reason
        cases.append(
            JUnitCase(
                name=f"{_name(r.source)} {r.trajectory_id}",
                classname=f"earnest.trajectory.{r.format}",
                failure=failure,
                skipped=skipped,
                properties=tuple(props),
            )
        )
    summary = battery.summary()
    cwe = summary["completion_without_effect"]
    totals = (
        ("trajectories", str(summary["trajectories"])),
        ("completion_without_effect", str(cwe["count"])),
        ("completion_without_effect_rate", _pct(cwe["rate"])),
    )
    return render_junit([JUnitSuite(suite_name, tuple(cases), properties=totals)])


def render_score_table(battery: Battery, console: Console) -> None:
    """One row per trajectory, then the battery summary."""
    results = battery.results
    dims = _dimensions(results)
    table = Table(title="Trajectories", title_justify="left", show_edge=False, pad_edge=False)
    # Rich drops right-hand columns that do not fit: the name column gives way instead.
    others = 17 + 8 + 7 * (len(dims) + 1)
    name_width = max(12, min(name_cap(console, 46), console.width - others))
    # A long name wraps onto more lines (fold): it is never cut, so it can be found and copied.
    table.add_column("trajectory", overflow="fold", max_width=name_width)
    table.add_column("outcome", no_wrap=True, min_width=14)
    table.add_column("calls", justify="right", no_wrap=True, min_width=5)
    for d in dims:
        table.add_column(_SHORT[d.value], justify="right", no_wrap=True, min_width=4)
    table.add_column("aggr", justify="right", no_wrap=True, min_width=4)
    for r in results:
        table.add_row(
            _label(r),
            Text(r.termination if r.outcome == "abnormal" else _OUTCOME_LABEL[r.outcome],
                 style=_OUTCOME_STYLE[r.outcome]),
            str(r.tool_calls),
            *(
                f"{r.scores.dimensions[d].score:.2f}" if d in r.scores.dimensions else "-"
                for d in dims
            ),
            f"{r.aggregate:.2f}" if r.scores.dimensions else "-",
        )  # fmt: skip
    console.print(table)
    if dims:
        console.print(Text(dimension_legend(d.value for d in dims), style="dim"))
    if any(r.terminated_abnormally for r in results):
        console.print(
            Text(
                "outcome: a termination reason (api_error, max_turns, usage_limit, interrupted, "
                "truncated, unknown) marks a run that ended abnormally: never done",
                style="dim",
            )
        )
    cwe_rows = [r for r in results if r.completion_without_effect]
    if cwe_rows:
        console.print(Text("Completions without effect", style="bold"))
        for r in cwe_rows:
            claim = r.replay.final_claim
            console.print(Text(f"  {_label(r)} ({r.format})", style="bold"))
            if claim is not None:
                console.print(Text(f"    {claim.reason_key}; {claim.tool_calls} tool call(s)"))
                if claim.content:
                    console.print(Text(f"    final message: {_clip(claim.content, 160)}"))
    render_battery_summary(battery, console)


def render_battery_summary(battery: Battery, console: Console) -> None:
    summary = battery.summary()
    n = summary["trajectories"]
    dims = Table(title="Battery", title_justify="left", show_edge=False)
    dims.add_column("dimension")
    dims.add_column("n", justify="right")
    dims.add_column("mean", justify="right")
    dims.add_column("95% interval", justify="right")
    dims.add_column("confidence-weighted", justify="right")
    for name, row in summary["dimensions"].items():
        dims.add_row(
            name,
            str(row["n"]),
            _fmt(row["mean"]),
            _interval(row["ci_low"], row["ci_high"]),
            _fmt(row["weighted_mean"]),
        )
    agg = summary["aggregate"]
    if agg["n"]:
        dims.add_row(
            Text("aggregate", style="bold"),
            str(agg["n"]),
            _fmt(agg["mean"]),
            _interval(agg["ci_low"], agg["ci_high"]),
            "",
        )
    console.print(dims)
    outcomes = ", ".join(f"{k} {v}" for k, v in summary["outcomes"].items())
    formats = ", ".join(f"{k} {v['trajectories']}" for k, v in summary["formats"].items())
    gate = summary["gate"]
    console.print(Text(f"outcomes: {outcomes}"))
    console.print(Text(f"formats: {formats}"))
    console.print(
        Text(
            f"gate replay: {gate['claims']} claimed completion(s), {gate['downgraded']} "
            f"downgraded, budget ran out {gate['exhausted']} time(s)"
        )
    )
    cwe = summary["completion_without_effect"]
    if n:
        line = (
            f"completion without effect: {cwe['count']}/{n} trajectories "
            f"({_pct(cwe['rate'])}, 95% interval {_pct(cwe['ci_low'])}-{_pct(cwe['ci_high'])}); "
            f"{cwe['claimed_completions']} of the {n} ended claiming completion"
        )
    else:
        line = "no trajectories scored"
    console.print(Text(line, style="bold red" if cwe["count"] else "bold green"))


# -- replay-gate ---------------------------------------------------------------------------


def replay_json(tally: ReplayTally, replays: Sequence[TrajectoryReplay]) -> dict[str, Any]:
    """``{"summary": {...}, "trajectories": [...]}``."""
    return {"summary": tally.to_dict(), "trajectories": [r.to_dict() for r in replays]}


def render_replay_table(
    tally: ReplayTally, replays: Sequence[TrajectoryReplay], console: Console
) -> None:
    """One row per trajectory with claims, then the totals and the reasons."""
    table = Table(title="Gate replay", title_justify="left", show_edge=False, pad_edge=False)
    headers = ("runs", "claims", "passed", "downgraded", "exhausted")
    # Rich drops right-hand columns that do not fit: the name column gives way instead.
    name_width = max(
        12, min(name_cap(console, 50), console.width - sum(len(h) + 3 for h in headers) - 21)
    )
    table.add_column("trajectory", overflow="fold", max_width=name_width)  # wraps, never cut
    for h in headers:
        table.add_column(h, justify="right", no_wrap=True, min_width=len(h))
    table.add_column("final claim", no_wrap=True, min_width=17)
    for r in replays:
        final = r.final_claim
        suffix = (
            r.trajectory_id[len(Path(r.source).stem) :]
            if r.trajectory_id.startswith(Path(r.source).stem + "#")
            else ""
        )
        table.add_row(
            _name(r.source) + suffix,
            str(len(r.runs)),
            str(len(r.claims)),
            str(r.count("passed")),
            Text(str(r.count("downgraded")), style="red" if r.count("downgraded") else ""),
            Text(str(r.count("exhausted")), style="yellow" if r.count("exhausted") else ""),
            Text(final.outcome, style=_CLAIM_STYLE[final.outcome])
            if final is not None
            else Text(
                "no claim" if r.termination == "normal" else f"none: {r.termination}",
                style="dim",
            ),
        )  # fmt: skip
    console.print(table)
    s = tally.to_dict()
    console.print(
        Text(
            f"{s['trajectories']} trajectories, {s['runs']} runs, {s['claims']} claimed "
            f"completions: {s['passed']} passed, {s['downgraded']} downgraded, budget ran out "
            f"{s['exhausted']} time(s) (in {s['runs_exhausted']} run(s), max_downgrades "
            f"{s['max_downgrades']})",
            style="bold",
        )
    )
    ends = ", ".join(f"{k} {v}" for k, v in s["run_ends"].items())
    console.print(Text(f"run ends: {ends}"))
    for place, counts in s["by_place"].items():
        console.print(
            Text(
                f"claims at {place.replace('_', ' ')}: {counts['passed']} passed, "
                f"{counts['downgraded']} downgraded, {counts['exhausted']} exhausted"
            )
        )
    if s["reasons"]:
        console.print(Text("why (downgraded or exhausted claims):", style="bold"))
        for reason, count in s["reasons"].items():
            console.print(Text(f"  {count:4}  {reason}"))
    console.print(
        Text(
            f"completion without effect at the end of the trajectory: "
            f"{s['final_completion_without_effect']}/{s['trajectories']}"
        )
    )
    console.print(Text(f"note: {s['note']}", style="dim"))


# -- helpers -------------------------------------------------------------------------------


def _dimensions(results: Sequence[TrajectoryResult]) -> list[TrajectoryDimension]:
    seen: dict[TrajectoryDimension, None] = {}
    for r in results:
        for d in r.scores.dimensions:
            seen.setdefault(d, None)
    return [d for d in TrajectoryDimension if d in seen]


def _name(source: str) -> str:
    return Path(source).name


def _label(r: TrajectoryResult) -> str:
    """The file name, plus ``#...`` for one of several trajectories in a file."""
    stem = Path(r.source).stem
    ident = r.trajectory_id
    suffix = ident[len(stem) :] if ident.startswith(stem + "#") else ""
    return _name(r.source) + suffix


def dimension_legend(names: Iterable[str]) -> str:
    """The key to the table's abbreviated dimension columns.

    Example:
        >>> dimension_legend(["planning", "effect_grounding"])
        'plan = planning, effe = effect_grounding, aggr = aggregate'
    """
    return ", ".join([*(f"{_SHORT[n]} = {n}" for n in names), "aggr = aggregate"])


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"{low:.2f}-{high:.2f}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = [
    "dimension_legend",
    "render_battery_summary",
    "render_replay_table",
    "render_score_table",
    "replay_json",
    "score_json",
    "score_jsonl",
    "score_junit",
]
