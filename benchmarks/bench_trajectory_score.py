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

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_trajectory import best_time, full_read, peak, plain_loop, real_lines  # noqa: E402

from earnest.trajectory import (  # noqa: E402
    Battery,
    ReadReport,
    all_scorers,
    default_scorers,
    read_trajectories,
    score_trajectory,
)


def build(path: Path, lines: list[bytes], target: int) -> int:
    """Cycle ``lines`` into ``path`` until it holds ``target`` bytes; returns cycles.

    Ids and timestamps are tagged per cycle, so each cycle is new history: the replay would
    pass over a verbatim copy (same timestamps) as a resumed session's re-written history.
    """
    cycle = 0
    written = 0
    with open(path, "wb") as handle:
        while written < target:
            tag = b"c%d_" % cycle
            for raw in lines:
                line = (
                    raw.replace(b'"msg_', b'"msg_' + tag)
                    .replace(b"toolu_", b"toolu_" + tag)
                    .replace(b'"timestamp":"', b'"timestamp":"' + tag)
                )
                handle.write(line)
                written += len(line)
                if written >= target:
                    break
            cycle += 1
    return cycle


def read_and_score(path: Path) -> int:
    battery = Battery()
    scorers = default_scorers()
    for t in read_trajectories(path, report=ReadReport()):
        battery.add(score_trajectory(t, scorers))
    return sum(len(r.replay.claims) for r in battery.results)


def read_and_score_all(path: Path) -> int:
    battery = Battery()
    scorers = all_scorers()
    for t in read_trajectories(path, report=ReadReport()):
        battery.add(score_trajectory(t, scorers))
    return sum(len(r.replay.claims) for r in battery.results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, default=40, help="size of the larger file (MB)")
    args = parser.parse_args()
    lines = real_lines()
    mb = 1024 * 1024
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.jsonl"
        small = Path(tmp) / "small.jsonl"
        build(big, lines, args.mb * mb)
        build(small, lines, max(args.mb // 4, 1) * mb)
        size = big.stat().st_size / mb
        print(f"input: {size:.1f} MB from {len(lines)} real Claude Code lines, cycled")
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
        figures = []
        for path in (small, big):
            used, count = peak(read_and_score, path)
            figures.append(
                f"{path.stat().st_size / mb:5.1f} MB file -> peak {used / mb:6.1f} MB "
                f"({count} claims)"
            )
        print("memory, read + score     : " + "; ".join(figures))
        figures = []
        for path in (small, big):
            used, count = peak(full_read, path)
            figures.append(f"{path.stat().st_size / mb:5.1f} MB file -> peak {used / mb:6.1f} MB")
        print("memory, read only        : " + "; ".join(figures))


if __name__ == "__main__":
    main()
