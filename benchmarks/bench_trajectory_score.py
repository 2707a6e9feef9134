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
  reader keeps (a bounded excerpt each), not with bytes; scoring adds per-run state only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_trajectory import MB, best_time, cycled_inputs, full_read, peaks, plain_loop  # noqa: E402

from earnest.trajectory import (  # noqa: E402
    Battery,
    DimensionScorer,
    ReadReport,
    all_scorers,
    default_scorers,
    read_trajectories,
    score_trajectory,
)


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
        print(f"input: {size:.1f} MB from {real} real Claude Code lines, cycled")
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


if __name__ == "__main__":
    main()
