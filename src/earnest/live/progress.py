"""Live progress on stderr: a rich display on a terminal, plain periodic lines otherwise.

Shows done/total, counts per verdict and void, rate, ETA and cost so far.

Example:
    >>> import io
    >>> p = Progress(io.StringIO(), tty=False, interval=0)
    >>> p.on_start(4, [])
    >>> p.line().startswith("0/4 done")
    True
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import IO, Any

from earnest.live.cost import format_usd
from earnest.live.providers.base import ProviderError
from earnest.live.store import SampleId, SampleRecord
from earnest.pressure.models import VERDICTS


class Progress:
    """An :class:`earnest.live.runner.Observer` that reports to ``stream``."""

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        tty: bool | None = None,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.interval = interval
        self.clock = clock
        self.total = 0
        self.done = 0
        self.done_before = 0
        self.counts: Counter[str] = Counter()
        self.void = 0
        self.cost = 0.0
        self.started = clock()
        self.last_line = float("-inf")
        self._live: Any = None

    def on_start(self, total: int, done: Sequence[SampleRecord]) -> None:
        self.total = total
        self.done = self.done_before = len(done)
        for r in done:
            self._count(r)
        self.started = self.clock()
        if self.tty:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self.stream, stderr=True)
            self._live = Live(self._renderable(), console=console, refresh_per_second=4)
            self._live.start()
        else:
            self._emit()

    def _count(self, r: SampleRecord) -> None:
        if r.void:
            self.void += 1
        elif r.verdict:
            self.counts[r.verdict] += 1
        self.cost += r.cost or 0.0

    def on_sample(self, record: SampleRecord) -> None:
        self.done += 1
        self._count(record)
        if self._live is not None:
            self._live.update(self._renderable())
        elif self.clock() - self.last_line >= self.interval:
            self._emit()

    def on_retry(self, key: SampleId, attempt: int, error: ProviderError, wait: float) -> None:
        f, p, a, e = key
        msg = f"retry {attempt} of {f} [{p}/{a}/epoch {e}] in {wait:.1f}s: {error}"
        if self._live is not None:
            self._live.console.print(msg, markup=False, highlight=False)
        else:
            print(msg, file=self.stream, flush=True)

    def on_note(self, text: str) -> None:
        """A line about the run that is no sample (a provider batch submitted, polled)."""
        if self._live is not None:
            self._live.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def on_finish(self, status: str) -> None:
        if self._live is not None:
            self._live.update(self._renderable())
            self._live.stop()
            self._live = None
        else:
            self._emit()
        print(f"run {status}: {self.line()}", file=self.stream, flush=True)

    def _emit(self) -> None:
        self.last_line = self.clock()
        print(self.line(), file=self.stream, flush=True)

    def line(self) -> str:
        elapsed = max(self.clock() - self.started, 1e-9)
        new = self.done - self.done_before
        rate = new / elapsed
        remaining = max(self.total - self.done, 0)
        eta = (
            f"{remaining / rate:.0f}s"
            if rate > 0 and remaining
            else ("0s" if not remaining else "?")
        )
        verdicts = " ".join(f"{v} {self.counts[v]}" for v in VERDICTS if self.counts[v])
        parts = [
            f"{self.done}/{self.total} done",
            verdicts or "no verdicts yet",
            f"void {self.void}",
            f"{rate:.1f}/s",
            f"ETA {eta}",
            f"cost {format_usd(self.cost)}",
        ]
        return " · ".join(parts)

    def _renderable(self) -> Any:
        from rich.progress_bar import ProgressBar
        from rich.table import Table

        grid = Table.grid(padding=(0, 1))
        grid.add_row(
            ProgressBar(total=max(self.total, 1), completed=self.done, width=30), self.line()
        )
        return grid


__all__ = ["Progress"]
