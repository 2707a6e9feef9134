"""Render an aggregated ``earnest score`` summary (:class:`~earnest.pressure.tally.VerdictTally`).

Example:
    >>> from earnest.pressure.tally import VerdictTally
    >>> print(rendered(lambda c: render_verdict_summary(VerdictTally(), c)).splitlines()[-1])
    no replies scored: nothing passed
"""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from earnest.pressure.models import VERDICTS
from earnest.pressure.tally import VerdictTally


def render_verdict_summary(tally: VerdictTally, console: Console) -> None:
    """Counts per verdict and the pass rate with its 95% interval."""
    table = Table(title="Verdicts", title_justify="left", show_edge=False)
    table.add_column("verdict")
    table.add_column("replies", justify="right")
    table.add_column("share", justify="right")
    total = tally.total
    for v in VERDICTS:
        n = tally.counts.get(v, 0)
        table.add_row(v, str(n), f"{n / total:.0%}" if total else "-")
    console.print(table)
    summary = tally.summary()
    if total:
        low, high = summary["pass_rate_interval"]
        line = (
            f"{tally.passed}/{total} passed ({tally.passed / total:.0%}, "
            f"95% interval {low:.0%}-{high:.0%})"
        )
    else:
        line = "no replies scored: nothing passed"
    if tally.unmatched_failures:
        line += f"; {tally.unmatched_failures} failure(s) matched no recorded rationalization"
    console.print(Text(line, style="bold green" if tally.all_passed else "bold red"))


def rendered(render: Callable[[Console], None]) -> str:
    """What ``render`` prints, as plain text 140 columns wide."""
    buffer = io.StringIO()
    render(Console(file=buffer, width=140, no_color=True, highlight=False))
    return buffer.getvalue()


__all__ = ["render_verdict_summary", "rendered"]
