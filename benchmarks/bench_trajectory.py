"""Claude Code transcript reader: throughput against a plain ``json.loads`` loop, and memory.

Run: ``python benchmarks/bench_trajectory.py [--mb 40]``

The input is built from real line shapes: every line of the real Claude Code transcripts
curated in ``tests/data/transcripts/claude-code`` that parses,
cycled with message and tool ids renamed per cycle until the file reaches the size asked.
Figures printed:

* throughput of ``read_trajectories`` (full normalized read) and of a plain loop that does
  nothing but ``json.loads`` each line, in the same run, and their ratio (target: the
  reader at >= 0.5 x the loop, and >= 50 MB/s on one core): medians of interleaved rounds
  in CPU time, with orjson (when installed) and with the standard library's parser;
* tracemalloc peak for two file sizes, for the full read (grows with the number of tool
  calls kept, a bounded excerpt each, not with bytes) and for the stop hook's
  ``read_claude_run`` (only the current run: flat). Each kept call holds a <= 2,000-char
  output excerpt and its arguments with bulky values (file contents, ``old_string``,
  patch bodies) abbreviated; on the 40 MB input that took the full read's peak from
  19.6 MB to 16.2 MB (10 MB input: 7.6 -> 7.4 MB), about 2.3 KB per kept call.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from earnest import fastjson  # noqa: E402
from earnest.trajectory import ReadReport, read_claude_run, read_trajectories  # noqa: E402

SOURCES = ROOT / "tests" / "data" / "transcripts" / "claude-code"


def real_lines() -> list[bytes]:
    """Every parseable line of the curated Claude Code transcripts, newline-terminated."""
    lines: list[bytes] = []
    for path in sorted(SOURCES.glob("*.jsonl")):
        for raw in path.read_bytes().splitlines():
            if raw.strip().startswith(b"{"):
                try:
                    json.loads(raw)
                except ValueError:
                    continue
                lines.append(raw + b"\n")
    if not lines:
        raise SystemExit(f"no Claude Code transcripts found under {SOURCES}")
    return lines


def build(path: Path, lines: list[bytes], target: int, *, timestamps: bool = False) -> int:
    """Cycle ``lines`` into ``path`` until it holds ``target`` bytes; returns cycles.

    Message and tool ids are tagged per cycle; with ``timestamps`` the timestamps too, so
    each cycle is new history (the gate replay passes over a verbatim copy, same timestamps,
    as a resumed session's re-written history).
    """
    cycle = 0
    written = 0
    with open(path, "wb") as handle:
        while written < target:
            tag = b"c%d_" % cycle
            for raw in lines:
                line = raw.replace(b'"msg_', b'"msg_' + tag).replace(b"toolu_", b"toolu_" + tag)
                if timestamps:
                    line = line.replace(b'"timestamp":"', b'"timestamp":"' + tag)
                handle.write(line)
                written += len(line)
                if written >= target:
                    break
            cycle += 1
    return cycle


def plain_loop(path: Path) -> int:
    count = 0
    with open(path, "rb") as handle:
        for raw in handle:
            try:
                json.loads(raw)
            except ValueError:
                continue
            count += 1
    return count


def full_read(path: Path) -> int:
    report = ReadReport()
    return sum(len(t.tool_calls) for t in read_trajectories(path, report=report))


def run_read(path: Path) -> int:
    return len(read_claude_run(path).tool_calls)


def best_time(function: Callable[[Path], int], path: Path, repeat: int = 3) -> tuple[float, int]:
    best = float("inf")
    result = 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(path)
        best = min(best, time.perf_counter() - start)
    return best, result


def peak(function: Callable[[Path], int], path: Path) -> tuple[int, int]:
    tracemalloc.start()
    try:
        result = function(path)
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


MB = 1024 * 1024


@contextmanager
def cycled_inputs(doc: str, *, timestamps: bool = False) -> Iterator[tuple[int, Path, Path]]:
    """Parse ``--mb`` (``doc``'s first line is the help), and build a small and a big input
    from the real lines in a temporary folder: (real line count, small, big)."""
    parser = argparse.ArgumentParser(description=doc.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, default=40, help="size of the larger file (MB)")
    args, _ = parser.parse_known_args()  # a caller may add options of its own
    lines = real_lines()
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.jsonl"
        small = Path(tmp) / "small.jsonl"
        build(big, lines, args.mb * MB, timestamps=timestamps)
        build(small, lines, max(args.mb // 4, 1) * MB, timestamps=timestamps)
        yield len(lines), small, big


def peaks(function: Callable[[Path], int], paths: tuple[Path, ...], what: str = "") -> str:
    """``function``'s tracemalloc peak on each file, one figure per file."""
    figures = []
    for path in paths:
        used, count = peak(function, path)
        kept = f" ({count} {what})" if what else ""
        figures.append(f"{path.stat().st_size / MB:5.1f} MB file -> peak {used / MB:6.1f} MB{kept}")
    return "; ".join(figures)


ROUNDS = 7


@contextmanager
def stdlib_json() -> Iterator[None]:
    """The readers parse with the standard library inside (as ``EARNEST_JSON=stdlib``)."""
    chosen = fastjson.parse
    fastjson.parse = fastjson._stdlib
    try:
        yield
    finally:
        fastjson.parse = chosen


def _stdlib_read(path: Path) -> int:
    with stdlib_json():
        return full_read(path)


def reading_ratios(path: Path) -> dict[str, tuple[float, float]]:
    """Median seconds of the plain loop and of each reader variant over interleaved rounds
    (CPU time of this process: a busy neighbour slows a round, not the ratio), and the
    median of the per-round ratios plain / reader."""
    variants: dict[str, Callable[[Path], int]] = {"plain": plain_loop}
    if fastjson.PARSER == "orjson":
        variants["orjson"] = full_read
    variants["json"] = _stdlib_read
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(ROUNDS):
        for name, function in variants.items():
            start = time.process_time()
            function(path)
            times[name].append(time.process_time() - start)
    return {
        name: (
            statistics.median(times[name]),
            statistics.median(p / r for p, r in zip(times["plain"], times[name], strict=True)),
        )
        for name in variants
    }


def main() -> None:
    mb = MB
    with cycled_inputs(__doc__ or "") as (real, small, big):
        size = big.stat().st_size
        print(f"input: {size / mb:.1f} MB from {real} real Claude Code lines, cycled")
        figures = reading_ratios(big)
        loop_s = figures["plain"][0]
        print(f"json.loads per line      : {size / mb / loop_s:7.1f} MB/s  (median CPU time)")
        for name, (read_s, ratio) in figures.items():
            if name == "plain":
                continue
            print(
                f"read_trajectories, {name:6} : {size / mb / read_s:7.1f} MB/s  ratio to the "
                f"json.loads loop {ratio:5.2f}  (target >= 0.5; reader >= 50 MB/s)"
            )
        for label, function in (("full read", full_read), ("read_claude_run", run_read)):
            print(f"memory, {label:15}: " + peaks(function, (small, big), "calls kept"))


if __name__ == "__main__":
    main()
