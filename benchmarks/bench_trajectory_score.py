"""Read + score throughput on Claude Code JSONL, beside a plain ``json.loads`` loop.

Run: ``python benchmarks/bench_trajectory_score.py [--mb 40]``

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
  rate and its ratio to N x the one-process rate (target >= 0.8 on N free cores); and the
  peak RSS of ``earnest trajectory score --format jsonl`` over 1x / 4x / 16x as many files
  (target: flat; results are streamed, the battery holds counts).
"""

from __future__ import annotations

import os
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
from earnest.trajectory.parallel import ScoreConfig, score_files  # noqa: E402


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
    parallel(max(8, int(size)))


def _folder(root: Path, files: int) -> Path:
    lines = real_lines()
    folder = root / f"f{files}"
    folder.mkdir(parents=True)
    for k in range(files):
        build(folder / f"t{k:04}.jsonl", lines, MB, timestamps=True)
    return folder


def _score_folder(folder: Path, jobs: int) -> tuple[float, int]:
    files = sorted(folder.iterdir())
    config = ScoreConfig(("default",), 2, None, "jsonl")
    times = []
    count = 0
    for _ in range(3):
        start = time.perf_counter()
        count = sum(len(b.texts) for b in score_files(files, config, jobs))
        times.append(time.perf_counter() - start)
    return statistics.median(times), count


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _burn_time(jobs: int) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        list(ordered_map(_burn, [1_000_000] * 16, jobs))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


_RSS = (
    "import resource, sys; from earnest.cli import run; code = run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
    "sys.exit(code)"
)


def _peak_rss_kb(folder: Path, out: Path) -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    args = ["trajectory", "score", str(folder), "--format", "jsonl", "-j", "1", "-o", str(out)]
    proc = subprocess.run(
        [sys.executable, "-c", _RSS, *args], capture_output=True, text=True, env=env, check=True
    )
    return int(proc.stderr.strip().splitlines()[-1])


def parallel(files: int) -> None:
    jobs = default_jobs()
    with tempfile.TemporaryDirectory() as tmp:
        folder = _folder(Path(tmp), files)
        size = files  # 1 MB each
        one_s, count = _score_folder(folder, 1)
        many_s, again = _score_folder(folder, jobs)
        assert count == again
        one, many = size / one_s, size / many_s
        print(f"--jobs 1 (baseline)      : {one:7.1f} MB/s  ({files} files, {count} trajectories)")
        print(
            f"--jobs {jobs:<2}                : {many:7.1f} MB/s  ratio to {jobs} x --jobs 1 "
            f"{many / (jobs * one):5.2f}  (target >= 0.8 on {jobs} free cores; "
            f"load average now {os.getloadavg()[0]:.1f})"
        )
        # What this machine gives N processes right now: a pure CPU loop, same pool.
        burn_one = _burn_time(1)
        burn_many = _burn_time(jobs)
        print(
            f"CPU loop, same pool      : {jobs} processes do {burn_one / burn_many:4.2f}x the work of "
            f"one (the ceiling for the ratio above is {burn_one / burn_many / jobs:4.2f})"
        )
        base = max(2, files // 8)
        figures = []
        for factor in (1, 4, 16):
            target = _folder(Path(tmp) / f"x{factor}", base * factor)
            rss = _peak_rss_kb(target, Path(tmp) / f"out{factor}.jsonl")
            figures.append(f"{factor:2}x ({base * factor} MB) -> {rss / 1024:6.1f} MB")
            shutil.rmtree(target)
        print("peak RSS, score --jobs 1 : " + "; ".join(figures))


if __name__ == "__main__":
    main()
