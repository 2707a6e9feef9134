"""Read + score throughput on Claude Code JSONL, beside a plain ``json.loads`` loop.

Run: ``python benchmarks/bench_trajectory_score.py [--mb 40] [--jobs 1,2] [--files N]
[--parallel-only]``

The input is built as in ``bench_trajectory.py``: every parseable line of the shared Claude
Code transcripts, cycled to the size asked, with ids and timestamps renamed per cycle. Figures printed, all from
the same run:

* ``json.loads`` per line (the baseline), the plain read (``read_trajectories``), read +
  ``score_trajectory`` with the default scorers (the outcome's gate replay included), and
  read + every scorer (effect grounding too), in MB/s, with the ratio to the baseline
  (target: read + score >= 50 MB/s on one core);
* tracemalloc peak of read + score for two file sizes: it grows with the tool calls the
  reader keeps (a bounded excerpt each), not with bytes; scoring adds per-run state only;
* ``--jobs N`` (``earnest.trajectory.parallel.score_files``, what ``trajectory score`` runs)
  over a folder of 1 MB files: the one-process rate measured in this run, the N-process
  rate and its ratio to N x the one-process rate (target >= 0.8 on N free cores), for each
  N of ``--jobs``; the CPU seconds of each (workers included: N processes spending no more
  CPU than one means the pool, the pickling of results and the parent's merging cost
  nothing, so a ratio under 0.8 is the machine's, not the code's), and what a pure CPU loop
  gets from the same pool right then (the ceiling on a shared machine); and the peak RSS of
  ``earnest trajectory score --format jsonl -j N`` over 1x / 4x / 16x as many files, the
  parent's and the largest worker's (target: flat; results are streamed, the battery holds
  counts).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_trajectory import (  # noqa: E402
    MB,
    best_time,
    build,
    cycled_inputs,
    full_read,
    peaks,
    plain_loop,
    real_lines,
)

from earnest import fastjson  # noqa: E402
from earnest.parallel import default_jobs, ordered_map  # noqa: E402
from earnest.trajectory import (  # noqa: E402
    Battery,
    DimensionScorer,
    ReadReport,
    all_scorers,
    default_scorers,
    read_trajectories,
    score_trajectory,
)
from earnest.trajectory.parallel import ScoreConfig, batches, score_files  # noqa: E402


def _read_and_score(path: Path, scorers: Sequence[DimensionScorer]) -> int:
    battery = Battery()
    for t in read_trajectories(path, report=ReadReport()):
        battery.add(score_trajectory(t, scorers))
    return sum(len(r.replay.claims) for r in battery.results)


def read_and_score(path: Path) -> int:
    return _read_and_score(path, default_scorers())


def read_and_score_all(path: Path) -> int:
    return _read_and_score(path, all_scorers())


def main() -> None:
    options = _options()
    job_counts = [int(part) for part in options.jobs.split(",") if part.strip()]
    if options.parallel_only:
        parallel(options.files or 40, job_counts)
        return
    with cycled_inputs(__doc__ or "", timestamps=True) as (real, small, big):
        size = big.stat().st_size / MB
        print(
            f"input: {size:.1f} MB from {real} real Claude Code lines, cycled; readers parse "
            f"with {fastjson.PARSER} (EARNEST_JSON=stdlib for the standard library)"
        )
        loop_s, parsed = best_time(plain_loop, big)
        read_s, calls = best_time(full_read, big)
        score_s, claims = best_time(read_and_score, big)
        all_s, _ = best_time(read_and_score_all, big)
        print(f"json.loads per line      : {size / loop_s:7.1f} MB/s  ({parsed} lines)")
        print(
            f"read_trajectories        : {size / read_s:7.1f} MB/s  ({calls} tool calls)"
            f"  ratio to json.loads {loop_s / read_s:5.2f}"
        )
        print(
            f"read + score (default)   : {size / score_s:7.1f} MB/s  ({claims} claims replayed)"
            f"  ratio to json.loads {loop_s / score_s:5.2f}"
        )
        print(
            f"read + score (all five)  : {size / all_s:7.1f} MB/s"
            f"  ratio to json.loads {loop_s / all_s:5.2f}  (target: read + score >= 50 MB/s)"
        )
        print("memory, read + score     : " + peaks(read_and_score, (small, big), "claims"))
        print("memory, read only        : " + peaks(full_read, (small, big)))
    parallel(options.files or max(8, int(size)), job_counts)


def _folder(root: Path, files: int) -> Path:
    lines = real_lines()
    folder = root / f"f{files}"
    folder.mkdir(parents=True)
    for k in range(files):
        build(folder / f"t{k:04}.jsonl", lines, MB, timestamps=True)
    return folder


def _cpu_seconds() -> float:
    """User + system CPU of this process and of its reaped children (the pool's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _score_folder(folder: Path, jobs: int) -> tuple[float, float, int]:
    """Wall and CPU seconds of scoring ``folder`` once with ``jobs`` processes, and the
    trajectories scored. ``score_files`` shuts its pool down when it is drained, so the
    workers' CPU is counted in the run that used them."""
    files = sorted(folder.iterdir())
    config = ScoreConfig(("default",), 2, None, "jsonl")
    cpu, start = _cpu_seconds(), time.perf_counter()
    count = sum(len(b.texts) for b in score_files(files, config, jobs))
    return time.perf_counter() - start, _cpu_seconds() - cpu, count


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _burn_time(jobs: int) -> float:
    start = time.perf_counter()
    list(ordered_map(_burn, [1_000_000] * 16, jobs))
    return time.perf_counter() - start


# VmHWM, not ru_maxrss: ru_maxrss survives exec, so a child started from this (large)
# benchmark process would report at least this process's size.
_RSS = (
    "import re, resource, sys; from earnest.cli import run; code = run(sys.argv[1:]); "
    "status = open('/proc/self/status').read(); "
    "hwm = re.search(r'VmHWM:\\s*(\\d+)', status); "
    "print(int(hwm.group(1)) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
    "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
    "sys.exit(code)"
)


def _peak_rss_kb(folder: Path, out: Path, jobs: int) -> tuple[int, int]:
    """Peak RSS (KiB) of ``earnest trajectory score --format jsonl -j JOBS`` over ``folder``:
    the parent's, and the largest worker's (0 with one process)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    args = ["trajectory", "score", str(folder), "--format", "jsonl", "-j", str(jobs)]
    proc = subprocess.run(
        [sys.executable, "-c", _RSS, *args, "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    parent, worker = proc.stderr.strip().splitlines()[-1].split()
    return int(parent), int(worker)


ROUNDS = 5


def parallel(files: int, job_counts: Sequence[int]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = _folder(Path(tmp), files)
        size = files  # 1 MB each
        groups = len(list(batches(sorted(folder.iterdir()))))
        print(
            f"--jobs over {files} files of 1 MB ({groups} batches); this process may use "
            f"{default_jobs()} cores; load average {os.getloadavg()[0]:.1f} before"
        )
        # Interleaved rounds (1 process, then N, then the CPU loop with 1 and N), so a
        # neighbour's load falls on both sides of each ratio; medians over the rounds.
        counts = sorted(set(job_counts) | {1})
        walls: dict[int, list[float]] = {n: [] for n in counts}
        cpus: dict[int, list[float]] = {n: [] for n in counts}
        burns: dict[int, list[float]] = {n: [] for n in counts}
        scored = set()
        for _ in range(ROUNDS):
            for jobs in counts:
                wall, cpu, count = _score_folder(folder, jobs)
                walls[jobs].append(wall)
                cpus[jobs].append(cpu)
                scored.add(count)
                burns[jobs].append(_burn_time(jobs))
        assert len(scored) == 1, scored
        one = size / statistics.median(walls[1])
        one_cpu = statistics.median(cpus[1])
        print(
            f"--jobs 1 (baseline)      : {one:7.1f} MB/s  ({scored.pop()} trajectories; "
            f"{one_cpu:5.2f} s CPU; {size / one_cpu:5.1f} MB per CPU second)"
        )
        for jobs in counts[1:]:
            ratios = [walls[1][r] / (jobs * walls[jobs][r]) for r in range(ROUNDS)]
            ceilings = [burns[1][r] / (jobs * burns[jobs][r]) for r in range(ROUNDS)]
            many = size / statistics.median(walls[jobs])
            many_cpu = statistics.median(cpus[jobs])
            ratio, ceiling = statistics.median(ratios), statistics.median(ceilings)
            # CPU against one process: 1.00 means the workers, the pickling of the results
            # and the parent's merging add no work, so the ratio is bounded only by the cores
            # the machine gives, which the CPU loop measures.
            print(
                f"--jobs {jobs:<2}                : {many:7.1f} MB/s  ratio to {jobs} x --jobs 1 "
                f"{ratio:5.2f}  (target >= 0.8 on {jobs} free cores); CPU {many_cpu:5.2f} s "
                f"= {many_cpu / one_cpu:4.2f}x one process's"
            )
            print(
                f"CPU loop, same rounds    : ratio {ceiling:4.2f} (what {jobs} processes got "
                f"from this machine: the ceiling); scoring reached "
                f"{statistics.median(r / c for r, c in zip(ratios, ceilings, strict=True)):4.2f}"
                f" of it; load average now {os.getloadavg()[0]:.1f}"
            )
        base = max(2, files // 8)
        for jobs in counts:
            figures = []
            for factor in (1, 4, 16):
                target = _folder(Path(tmp) / f"x{factor}", base * factor)
                parent, worker = _peak_rss_kb(target, Path(tmp) / f"out{factor}.jsonl", jobs)
                each = f" (largest worker {worker / 1024:5.1f})" if worker else ""
                figures.append(f"{factor:2}x ({base * factor} MB) -> {parent / 1024:5.1f} MB{each}")
                shutil.rmtree(target)
            print(f"peak RSS, score -j {jobs:<2}   : " + "; ".join(figures))


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--jobs", default=f"1,{max(2, default_jobs())}", help="e.g. 1,2,4")
    parser.add_argument("--files", type=int, default=0, help="--jobs input: N files of 1 MB")
    parser.add_argument("--parallel-only", action="store_true", help="only the --jobs figures")
    args, _ = parser.parse_known_args()
    return args


if __name__ == "__main__":
    main()
