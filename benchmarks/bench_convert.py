"""``earnest trajectory convert`` with redaction beside without: wall time and peak memory.

Issue 27 (3): redaction must run in the same streaming pass as the write, with flat memory.
The inputs are ``bench_trajectory.py``'s (real Claude Code line shapes cycled to the size
asked: one long session, so one multi-megabyte output line); each is converted by whole
processes, redacted (the default) and with ``--no-redact``, in rounds that run every variant
once after one warm-up (a change in the machine's load falls on all alike). Peak memory is the
process's maximum resident set (``wait4``).

    python benchmarks/bench_convert.py [--mb 5,50] [--runs 3] [--against OLD/src]

Prints, per size, the median wall time, CPU time (user + system: what the process itself
spent, steadier than wall time on a shared machine) and peak memory of each variant, redacted
over unredacted, and with ``--against`` (an older checkout's ``src/``) the same for that tree, run in
the same rounds. What to read: the redacted peak should grow with the input no more than the
unredacted one does (the reader's model of the session grows with it; the redaction holds one
segment), and ``tests/trajectory/test_redact_stream.py`` holds the writer's own peak flat.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_trajectory import build, real_lines


def run_once(argv: list[str], src: Path | None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak resident MB of one process."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode written once
    if src is not None:
        env["PYTHONPATH"] = str(src)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "earnest", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise RuntimeError(f"{argv} exited {process.returncode}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # KB on Linux


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--mb", default="5,50", help="input sizes in MB, comma-separated")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--against", type=Path, metavar="SRC", help="another earnest src/ tree")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.mb.split(",") if s.strip()]
    trees: list[tuple[str, Path | None]] = [("this", None)]
    if args.against is not None:
        trees.append(("against", args.against))
    load = os.getloadavg()[0]
    print(
        f"earnest trajectory convert, redacted vs --no-redact: whole processes, median of "
        f"{args.runs} rounds after one warm-up; {os.cpu_count()} cores, load {load:.1f}"
    )
    print(
        f"{'input':>8} {'tree':<8}{'redacted s':>11}{'CPU s':>7}{'MB':>6}{'unredacted s':>14}"
        f"{'CPU s':>7}{'MB':>6}{'wall x':>8}{'CPU x':>7}{'peak x':>8}"
    )
    lines = real_lines()
    with tempfile.TemporaryDirectory(prefix="earnest-convert-") as tmp:
        work = Path(tmp)
        for mb in sizes:
            source = work / f"session-{mb}.jsonl"
            build(source, lines, mb * 1_000_000)
            out = work / "out.jsonl"
            variants = {
                (name, redacted): (
                    ["trajectory", "convert", str(source), "-o", str(out)]
                    + ([] if redacted else ["--no-redact"]),
                    tree,
                )
                for name, tree in trees
                for redacted in (True, False)
            }
            walls: dict[tuple[str, bool], list[float]] = {key: [] for key in variants}
            peaks: dict[tuple[str, bool], list[float]] = {key: [] for key in variants}
            cpus: dict[tuple[str, bool], list[float]] = {key: [] for key in variants}
            for round_ in range(max(1, args.runs) + 1):
                for key, (command, tree) in variants.items():
                    wall, cpu, peak = run_once(command, tree)
                    if round_:
                        walls[key].append(wall)
                        cpus[key].append(cpu)
                        peaks[key].append(peak)
            for name, _ in trees:
                red_w = statistics.median(walls[(name, True)])
                red_m = statistics.median(peaks[(name, True)])
                raw_w = statistics.median(walls[(name, False)])
                raw_m = statistics.median(peaks[(name, False)])
                red_c = statistics.median(cpus[(name, True)])
                raw_c = statistics.median(cpus[(name, False)])
                print(
                    f"{mb:>5} MB {name:<8}{red_w:>11.2f}{red_c:>7.2f}{red_m:>6.0f}{raw_w:>14.2f}"
                    f"{raw_c:>7.2f}{raw_m:>6.0f}{red_w / raw_w:>7.2f}x{red_c / raw_c:>6.2f}x"
                    f"{red_m / raw_m:>7.2f}x",
                    flush=True,
                )
    print(f"load at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
