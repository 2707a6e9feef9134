"""Scoring throughput: replies judged per second on one core, beside a plain regex baseline.

The mix is the one issue 10 names (built by ``benchmarks/replymix.py``): 8 fixtures of the
example suite (real scenarios, options, recorded excuses and must_cite strings), 2,000 replies of ~2 KB written the way models answer
(prose, markdown, citations by id, title or alias, a ``CHOICE:`` line, some with ``<think>``
reasoning) and delivered in every envelope earnest reads: plain text, markdown, Claude Code
``--output-format json`` and ``stream-json``, OpenAI chat completions, the Responses API and the
Anthropic messages API. A third of them fail (wrong option, hybrid or fallback, no citation,
no decision). Every reply is scored with :func:`earnest.pressure.verdict.judge` (unwrapping,
reasoning split, decision parsing, citations, must_cite, excuse matching on failures); in the
same run a bare ``re.search`` for ``CHOICE: X`` runs over the same raw strings.

    python benchmarks/bench_score.py [--replies N] [--runs R]

Prints the median of ``R`` (>= 5) runs of each, in CPU time (``wall/s``: wall-clock, for
reference on a busy machine). Target: >= 20,000 replies/s on the mix.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

# The mix lives beside this file (shared with bench_score_peers.py); importing it also puts
# the checkout's src/ on the path.
from replymix import FIXTURES, FORMS, build

from earnest.pressure.models import Fixture, Rule
from earnest.pressure.verdict import judge

TARGET = 20_000


def median_of(runs: int, fn: Callable[[], object]) -> tuple[float, float]:
    """Median CPU time (the figure that counts: the machine may be busy with other work) and
    median wall-clock time of ``runs`` calls of ``fn``."""
    cpu, wall = [], []
    for _ in range(runs):
        start, start_wall = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - start)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), statistics.median(wall)


def bench(
    mix: Sequence[tuple[Fixture, str]], rules: dict[str, Rule], runs: int
) -> tuple[float, float, float]:
    """Median CPU seconds of scoring ``mix`` and of the regex baseline, and scoring's wall seconds."""
    pattern = re.compile(r"CHOICE:\s*([A-D])")

    def scored() -> None:
        for fx, reply in mix:
            judge(fx, rules, reply)

    def baseline() -> None:
        for _, reply in mix:
            pattern.search(reply)

    scored()  # warm the per-fixture caches, as a run of many replies does
    (cpu, wall), (base, _) = median_of(runs, scored), median_of(runs, baseline)
    return cpu, base, wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--replies", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    runs = max(5, args.runs)
    mix, rules = build(args.replies)
    verdicts = Counter(judge(fx, rules, r).verdict for fx, r in mix)
    avg = sum(len(r) for _, r in mix) / len(mix)
    failed = sum(v for k, v in verdicts.items() if k != "pass") / len(mix)
    print(
        f"earnest score benchmark: {len(mix)} replies of {avg:.0f} chars, {FIXTURES} fixtures, "
        f"{len(FORMS)} envelopes, {failed:.0%} failures; median of {runs} runs"
    )
    print("verdict mix: " + json.dumps(dict(sorted(verdicts.items()))))
    print(
        f"{'set':<18}{'replies/s':>12}{'us/reply':>10}{'re.search/s':>14}{'slowdown':>10}"
        f"{'wall/s':>10}"
    )
    rows: list[tuple[str, Sequence[tuple[Fixture, str]]]] = [("mix", mix)]
    for form in FORMS:
        rows.append((form, [m for i, m in enumerate(mix) if FORMS[i % len(FORMS)] == form]))
    rate = 0.0
    for name, replies in rows:
        t_score, t_base, t_wall = bench(replies, rules, runs)
        r, base = len(replies) / t_score, len(replies) / t_base
        if name == "mix":
            rate = r
        print(
            f"{name:<18}{r:>12,.0f}{1e6 / r:>10.1f}{base:>14,.0f}{t_score / t_base:>9.0f}x"
            f"{len(replies) / t_wall:>10,.0f}"
        )
    verdict = "met" if rate >= TARGET else "NOT met"
    print(f"target >= {TARGET:,} replies/s on the mix: {verdict} ({rate:,.0f}/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
