"""Render a :class:`~earnest.pressure.score.ScoreResult`: terminal table, JSON, JSONL, JUnit XML.

The JSON shapes are documented in ``docs/formats.md`` (section ``score``).

Example:
    >>> from earnest.pressure.score import ScoreResult, count_verdicts
    >>> score_json(ScoreResult((), count_verdicts(())))["summary"]["total"]
    0
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.models import VERDICTS, Suite
from earnest.pressure.score import ScoredReply, ScoreResult
from earnest.report.junit import JUnitCase, JUnitFailure, JUnitSuite, render_junit

_REPLY_EXCERPT = 4000
_STYLE = {
    "pass": "green",
    "fail-choice": "red",
    "fail-citation": "yellow",
    "fail-hybrid": "magenta",
    "fail-unparseable": "bright_red",
    "fail-action": "dark_orange",
}


def score_json(
    result: ScoreResult, *, files: Sequence[str] = (), suite: str | None = None
) -> dict[str, Any]:
    """``{"summary": {...}, "replies": [...]}``."""
    summary = result.summary()
    if suite is not None:
        summary["suite"] = suite
    if files:
        summary["files"] = list(files)
    return {"summary": summary, "replies": [r.as_dict() for r in result.replies]}


def score_jsonl(result: ScoreResult) -> Iterator[str]:
    """One JSON object per scored reply, in input order."""
    for r in result.replies:
        yield json.dumps(r.as_dict(), ensure_ascii=False)


def _sample(r: ScoredReply) -> str:
    rec = r.record
    parts = [
        f"{k}={v}"
        for k, v in (("model", rec.model), ("arm", rec.arm), ("epoch", rec.epoch))
        if v is not None
    ]
    return " ".join(parts)


def _rationalizations_text(r: ScoredReply) -> str:
    j = r.judgement
    if j.matched_rationalizations:
        return "\n".join(
            f"#{m.index + 1} ({m.score:.2f}) {_clip(m.excuse, 90)}"
            for m in j.matched_rationalizations
        )
    if j.unmatched_failure:
        return "none matched: a new excuse? read the reply and record it"
    return ""


def score_junit(result: ScoreResult, suite: Suite) -> str:
    """A JUnit document: one test case per reply, failures carrying the reason and the reply."""
    return render_junit([score_junit_suite(result, suite)])


def score_junit_suite(
    result: ScoreResult, suite: Suite, suite_name: str = "earnest score"
) -> JUnitSuite:
    """The JUnit test suite of scored replies (one case per reply), for embedding in larger reports."""
    cases: list[JUnitCase] = []
    for r in result.replies:
        rec, j = r.record, r.judgement
        fixture = suite.fixture(rec.fixture_id)
        agent = fixture.agent if fixture is not None else "unknown"
        sample = _sample(r)
        name = rec.fixture_id + (f" [{sample}]" if sample else "") + f" ({rec.file}:{rec.line})"
        props = [("verdict", j.verdict), ("file", rec.file), ("line", str(rec.line))]
        props += [
            (k, str(v))
            for k, v in (("model", rec.model), ("arm", rec.arm), ("epoch", rec.epoch))
            if v is not None
        ]
        props += [("choice", j.choice or ""), ("displayed_choice", j.displayed_choice or "")]
        props += [("cited_rules", " ".join(j.cited_rules))]
        failure = None
        if not j.passed:
            body = [f"reason: {j.reason}"]
            if j.missing_citations:
                body.append("missing citations: " + ", ".join(j.missing_citations))
            rats = _rationalizations_text(r)
            if rats:
                body.append("rationalizations:\n" + rats)
            text = unwrap_envelope(rec.response).text
            excerpt = (
                text if len(text) <= _REPLY_EXCERPT else text[:_REPLY_EXCERPT] + "\n[… truncated]"
            )
            body.append("reply:\n" + excerpt)
            failure = JUnitFailure(j.verdict, j.reason, "\n\n".join(body))
        cases.append(
            JUnitCase(
                name=name,
                classname=f"earnest.pressure.{agent}",
                failure=failure,
                properties=tuple(props),
            )
        )
    counts = tuple((v, str(result.counts.get(v, 0))) for v in VERDICTS)
    return JUnitSuite(suite_name, tuple(cases), properties=counts)


def render_score_table(result: ScoreResult, console: Console) -> None:
    """Counts per verdict, then every failure with its reason and rationalizations."""
    counts = Table(title="Verdicts", title_justify="left", show_edge=False)
    counts.add_column("verdict")
    counts.add_column("replies", justify="right")
    counts.add_column("share", justify="right")
    for v in VERDICTS:
        n = result.counts.get(v, 0)
        if v == "fail-action" and not n:
            continue  # only agentic fixtures acted out can produce it
        share = f"{n / result.total:.0%}" if result.total else "-"
        counts.add_row(Text(v, style=_STYLE[v]), str(n), share)
    console.print(counts)
    failures = [r for r in result.replies if not r.judgement.passed]
    if failures:
        # One block per failure rather than a wide table: readable in an 80-column terminal.
        console.print(Text("Failures", style="bold"))
        for r in failures:
            j = r.judgement
            head = Text(f"{r.record.file}:{r.record.line}  ", style="dim")
            head.append(r.record.fixture_id, style="bold")
            if _sample(r):
                head.append(f"  {_sample(r)}")
            head.append("  ")
            head.append(j.verdict, style=_STYLE[j.verdict])
            console.print(head)
            console.print(Text(f"  reason: {j.reason}"))
            for m in j.matched_rationalizations:
                console.print(
                    Text(f"  used excuse #{m.index + 1} ({m.score:.2f}): {_clip(m.excuse, 200)}")
                )
            if j.unmatched_failure:
                console.print(
                    Text(
                        "  matched no recorded rationalization: read the reply and record the "
                        "new excuse",
                        style="bold",
                    )
                )
    summary = result.summary()
    if result.total:
        low, high = summary["pass_rate_interval"]
        line = (
            f"{result.passed}/{result.total} passed ({result.passed / result.total:.0%}, "
            f"95% interval {low:.0%}-{high:.0%})"
        )
    else:
        line = "no replies scored: nothing passed"
    if result.unmatched_failures:
        line += f"; {result.unmatched_failures} failure(s) matched no recorded rationalization"
    console.print(Text(line, style="bold green" if result.all_passed else "bold red"))


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = ["render_score_table", "score_json", "score_jsonl", "score_junit"]
