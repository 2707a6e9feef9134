"""`earnest check` against `earnest lint` on a suite with N diagnostics (default 100,000).

Before issue 11, check laid its findings out through rich: 100k diagnostics took minutes
against ~1.5 s for lint. Run: ``python benchmarks/bench_check.py [--diagnostics N --repeat R]``.
Prints the median of R runs of each command as a real subprocess, and check's ratio to lint
(the baseline measured in the same run).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from suitekit import fixture_data, write_suite  # noqa: E402


def _time(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "earnest", *args], capture_output=True, text=True, env=env
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 1:
        raise SystemExit(f"unexpected exit {proc.returncode}: {proc.stderr[-500:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--diagnostics", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1")
    with tempfile.TemporaryDirectory() as tmp:
        bad = [f"p{i}" for i in range(opts.diagnostics)]
        fx = fixture_data(pressures=["time", "authority", "exhaustion", *bad])
        root = write_suite(Path(tmp) / "suite", [fx])
        lint = [_time(["lint", "--suite", str(root)], env) for _ in range(opts.repeat)]
        check = [_time(["check", "--suite", str(root)], env) for _ in range(opts.repeat)]
    lm, cm = statistics.median(lint), statistics.median(check)
    print(f"diagnostics: {opts.diagnostics}  (median of {opts.repeat})")
    print(f"baseline earnest lint:  {lm * 1000:8.1f} ms")
    print(f"earnest check:          {cm * 1000:8.1f} ms  ({cm / lm:.2f}x lint)")


if __name__ == "__main__":
    main()
