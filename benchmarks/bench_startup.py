"""Start-up: each cheap ``earnest`` command on a tiny input beside ``python -c pass``.

Issue 27 (5): any command on a tiny input must answer in < 0.3 s. A command's wall time on a
tiny input is almost all start-up (the interpreter, then imports), so this times whole
processes, in rounds that run every command once after one untimed round (bytecode and file
caches warm, as for a user's second run; bytecode is written even where
``PYTHONDONTWRITEBYTECODE`` is set, as an installed package has it): a change in the machine's load falls on all alike.

    python benchmarks/bench_startup.py [--runs 7] [--against OLD/src]

Prints each command's median wall and CPU time, its excess over ``python -c pass`` (what
earnest itself costs), the same figures for another source tree when ``--against`` names one
(an older checkout's ``src/``, run in the same rounds) and the target (< 300 ms). The load is printed too: on a busy machine every figure
includes waiting for a core (compare the excess, and ``python -c pass`` against a quiet run).
``tests/cli/test_cli_startup.py`` holds the modules each command may not import; this holds
the times.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "examples" / "trajectories" / "mclaude-91b751c5-d980--hi-QA.jsonl"
SUITE = ROOT / "examples" / "suite"
REPLIES = SUITE / "recorded" / "replies.jsonl"
TARGET = 0.300


def commands(out: Path) -> dict[str, list[str]]:
    """Each timed command (name: argv after the interpreter)."""
    earnest = ["-m", "earnest"]
    return {
        "python -c pass": ["-c", "pass"],
        "earnest --help": [*earnest, "--help"],
        "earnest version": [*earnest, "version"],
        "earnest trajectory score TINY": [*earnest, "trajectory", "score", str(TINY)],
        "earnest trajectory score TINY --format jsonl": [
            *earnest,
            "trajectory",
            "score",
            str(TINY),
            "--format",
            "jsonl",
        ],
        "earnest trajectory convert TINY": [
            *earnest,
            "trajectory",
            "convert",
            str(TINY),
            "-o",
            str(out / "tiny.jsonl"),
        ],
        "earnest score 27 replies --format jsonl": [
            *earnest,
            "score",
            str(REPLIES),
            "--suite",
            str(SUITE),
            "--format",
            "jsonl",
        ],
    }


def time_once(argv: list[str], src: Path | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one process; ``src``: earnest's source tree to
    run instead of the installed one (``--against``)."""
    env = dict(os.environ)
    # A user's install has bytecode: the warm-up round writes it, whatever this shell says.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env=env,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument(
        "--against",
        type=Path,
        metavar="SRC",
        help="another earnest source tree (its src/ folder, e.g. an older checkout's) to time "
        "in the same rounds, printed beside this one",
    )
    args = ap.parse_args(argv)
    runs = max(3, args.runs)
    trees: list[Path | None] = [None] if args.against is None else [None, args.against]
    before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="earnest-startup-") as tmp:
        timed = commands(Path(tmp))
        walls: dict[tuple[str, int], list[float]] = {}
        cpus: dict[tuple[str, int], list[float]] = {}
        for round_ in range(runs + 1):
            for name, command in timed.items():
                for i, tree in enumerate(trees):
                    wall, cpu = time_once(command, tree)
                    if round_:
                        walls.setdefault((name, i), []).append(wall)
                        cpus.setdefault((name, i), []).append(cpu)
    after = os.getloadavg()[0]
    print(
        f"earnest start-up, whole processes on tiny inputs: median of {runs} rounds after one "
        f"warm-up; {os.cpu_count()} cores, load {before:.1f} before, {after:.1f} after"
    )
    head = f"{'command':<46}{'wall ms':>9}{'cpu ms':>8}{'over pass':>11}"
    if args.against is not None:
        head += f"{'against':>9}{'cpu':>7}"
    print(f"{head}  target < {TARGET * 1000:.0f} ms (wall)")
    base = statistics.median(walls[("python -c pass", 0)])
    for name in timed:
        wall = statistics.median(walls[(name, 0)])
        cpu = statistics.median(cpus[(name, 0)])
        line = f"{name:<46}{wall * 1000:>9.0f}{cpu * 1000:>8.0f}{(wall - base) * 1000:>11.0f}"
        if args.against is not None:
            other = statistics.median(walls[(name, 1)])
            other_cpu = statistics.median(cpus[(name, 1)])
            line += f"{other * 1000:>9.0f}{other_cpu * 1000:>7.0f}"
        verdict = "" if name == "python -c pass" else ("met" if wall < TARGET else "NOT met")
        print(f"{line}  {verdict}")
    if after > (os.cpu_count() or 1) or before > (os.cpu_count() or 1):
        print(
            "the machine was busy: wall times include waiting for a core; CPU time (user + "
            "system) is the steadier figure"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
