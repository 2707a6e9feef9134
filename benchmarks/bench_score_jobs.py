"""``earnest score``'s default ``--jobs`` beside ``--jobs 1``: never slower, never costlier.

Issue 27 (1): a default must never cost more than the simple path. One run builds the reply
mix of ``bench_score.py`` (its ``build``: ~2 KB replies in every envelope earnest reads, a
third failing) at each size asked, writes it as one replies file, and times whole
``earnest score FILE --suite examples/suite --format jsonl -o OUT`` processes: the default
(no ``--jobs``), ``--jobs 1`` and ``--jobs N`` for every core count asked (default: this
machine's cores). Wall clock and CPU (user + system of the process tree), median of ``--runs``
rounds after one warm-up; each round runs every variant once, so a change in the machine's
load falls on all alike.

    python benchmarks/bench_score_jobs.py [--replies 2000,20000] [--runs 3] [--jobs 2]

Prints, per size, each variant's wall and CPU beside ``--jobs 1``'s, which ``--jobs`` the
default chose (``earnest.parallel.score_jobs``, the rule docs/formats.md states), and the
target: default wall <= 1.05x and CPU <= 1.05x ``--jobs 1``'s (5% for the noise of a shared
machine; the default is ``--jobs 1`` itself unless parallel pays).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

# The reply mix and the process runner are bench_score_peers.py's (bench_score puts src/ on
# the path).
from bench_score import build
from bench_score_peers import Peer, earnest_command, earnest_passes, run_once, write_replies

from earnest.parallel import default_jobs, score_jobs

TOLERANCE = 1.05
"""Default over ``--jobs 1``, wall and CPU: at most this (shared-machine noise)."""


def variants(replies: Path, extra: list[int]) -> list[Peer]:
    """The default, ``--jobs 1`` and ``--jobs N`` for each N in ``extra``."""

    def peer(name: str, jobs: int | None) -> Peer:
        return Peer(
            name, lambda out: earnest_command(replies, out, jobs), earnest_passes, ".jsonl", (0, 1)
        )

    found = [peer("default", None), peer("--jobs 1", 1)]
    found += [peer(f"--jobs {n}", n) for n in extra if n > 1]
    return found


def time_size(n: int, runs: int, extra: list[int], work: Path) -> list[str]:
    """One size's table: each variant's median wall and CPU beside ``--jobs 1``'s."""
    mix, _ = build(n)
    replies = work / f"replies-{n}.jsonl"
    write_replies(mix, replies)
    size = replies.stat().st_size
    found = variants(replies, extra)
    walls: dict[str, list[float]] = {p.name: [] for p in found}
    cpus: dict[str, list[float]] = {p.name: [] for p in found}
    for round_ in range(runs + 1):
        for p in found:
            out = work / f"out-{p.name.replace(' ', '')}.jsonl"
            wall, cpu = run_once(p, out, [])
            if len(earnest_passes(out)) != n:
                raise RuntimeError(f"{p.name} did not score all {n} replies")
            if round_:
                walls[p.name].append(wall)
                cpus[p.name].append(cpu)
    base_wall = statistics.median(walls["--jobs 1"])
    base_cpu = statistics.median(cpus["--jobs 1"])
    chose = score_jobs(size)
    lines = [
        f"{n:,} replies ({size / 1e6:.1f} MB): the default chose --jobs {chose}",
        f"  {'variant':<12}{'wall s':>9}{'x jobs 1':>10}{'cpu s':>9}{'x jobs 1':>10}",
    ]
    for p in found:
        wall, cpu = statistics.median(walls[p.name]), statistics.median(cpus[p.name])
        lines.append(
            f"  {p.name:<12}{wall:>9.2f}{wall / base_wall:>9.2f}x{cpu:>9.2f}{cpu / base_cpu:>9.2f}x"
        )
    wall_ratio = statistics.median(walls["default"]) / base_wall
    cpu_ratio = statistics.median(cpus["default"]) / base_cpu
    met = wall_ratio <= TOLERANCE and cpu_ratio <= TOLERANCE
    lines.append(
        f"  target: default <= {TOLERANCE:.2f}x --jobs 1 in wall and CPU: "
        f"wall {wall_ratio:.2f}x, cpu {cpu_ratio:.2f}x: {'met' if met else 'NOT met'}"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--replies", default="2000,20000", help="sizes, comma-separated")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--jobs", default=str(default_jobs()), help="other --jobs to time, comma-separated"
    )
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.replies.split(",") if s.strip()]
    extra = [int(s) for s in args.jobs.split(",") if s.strip()]
    load = os.getloadavg()
    print(
        f"earnest score: default --jobs vs --jobs 1, whole processes, median of {args.runs} "
        f"runs after one warm-up; {default_jobs()} cores, load {load[0]:.1f} (1 min) "
        f"{load[1]:.1f} (5 min)"
    )
    with tempfile.TemporaryDirectory(prefix="earnest-jobs-") as tmp:
        for n in sizes:
            for line in time_size(n, max(1, args.runs), extra, Path(tmp)):
                print(line, flush=True)
    print(f"load at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
