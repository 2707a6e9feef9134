"""Benchmark the effect gate's hot paths, each beside a baseline measured in the same run.

- ``EffectGate.apply`` with a 1,000-entry ledger (target: under 50 µs), in the shapes a loop
  meets: a run with a test check; 1,000 file deltas on files that exist (no baseline, and with a
  git baseline); and the worst case, 1,000 deltas whose files are all gone, cold (first apply
  after a record) and warm (cached until the next record).
- ``classify_tool_result`` throughput over a mix of tool results (writes, edits, reads, shell
  commands with chains, redirections and substitutions).

Baselines: 1,000 dict lookups (the least a per-apply scan of the ledger would cost) and one
``os.stat`` for apply; ``json.dumps`` of each tool result for classification.

Run:  python benchmarks/bench_effects.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from earnest.effects import (
    EffectGate,
    EffectGateConfig,
    EvaluationDecision,
    EvaluationResult,
    classify_tool_result,
    shell,
)

N = 1_000
TARGET_US = 50.0


def best_us(fn: Callable[[], object], *, number: int, repeat: int = 7) -> float:
    """Best-of-``repeat`` mean time per call, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter_ns()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter_ns() - start) / number / 1_000)
    return best


def make_workspace(root: Path, n: int) -> None:
    for i in range(n):
        (root / f"pkg{i % 20}").mkdir(exist_ok=True)
        (root / f"pkg{i % 20}" / f"mod{i}.py").write_text(f"x = {i}\n")


def write_results(root: Path, n: int) -> list[dict[str, Any]]:
    return [
        {"tool_name": "Edit", "args": {"file_path": str(root / f"pkg{i % 20}" / f"mod{i}.py")}}
        for i in range(n)
    ]


def gate_for(root: Path, results: list[dict[str, Any]], *, baseline: bool = False) -> EffectGate:
    gate = EffectGate(EffectGateConfig(enabled=True), workspace=root, env={})
    gate.reset(baseline=baseline)
    gate.record(results, turn_index=1)
    return gate


def bench_apply() -> list[tuple[str, float]]:
    done = EvaluationResult(EvaluationDecision.COMPLETE, 0.9)
    rows: list[tuple[str, float]] = []
    tmp = Path(tempfile.mkdtemp(prefix="earnest-bench-"))
    try:
        make_workspace(tmp, N)
        results = write_results(tmp, N)

        mixed = [*results[: N - 1], {"tool_name": "Bash", "args": {"command": "pytest -q"}}]
        gate = gate_for(tmp, mixed)
        rows.append(
            (
                "apply: 999 edits + 1 test run",
                best_us(lambda: gate.apply(done, task_type="edit"), number=2_000),
            )
        )

        gate = gate_for(tmp, results)
        rows.append(
            (
                "apply: 1,000 edits, no baseline (warm)",
                best_us(lambda: gate.apply(done, task_type="edit"), number=2_000),
            )
        )

        def cold_existing() -> None:
            gate.ledger.version += 1  # what a record() does to the cache
            gate.apply(done, task_type="edit")

        rows.append(
            ("apply: 1,000 edits, no baseline (cold)", best_us(cold_existing, number=2_000))
        )

        git = shutil.which("git")
        if git:
            env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
                   "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip
            for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
                subprocess.run([git, *argv], cwd=tmp, check=True, env=env)
            start = time.perf_counter_ns()
            gate = EffectGate(EffectGateConfig(enabled=True), workspace=tmp, env={})
            gate.reset(baseline=True)
            capture_ms = (time.perf_counter_ns() - start) / 1e6
            for r in results[-5:]:
                Path(str(r["args"]["file_path"])).write_text("changed\n")
            gate.record(results, turn_index=1)
            rows.append((f"reset(baseline=True), git, {N} files [ms]", capture_ms * 1_000))

            def cold_git() -> None:
                gate.ledger.version += 1
                gate.apply(done, task_type="edit")

            rows.append(("apply: 1,000 edits, git baseline (cold)", best_us(cold_git, number=500)))
            rows.append(
                (
                    "apply: 1,000 edits, git baseline (warm)",
                    best_us(lambda: gate.apply(done, task_type="edit"), number=2_000),
                )
            )

        gone = [
            {"tool_name": "Write", "args": {"file_path": str(tmp / f"gone{i}.txt")}}
            for i in range(N)
        ]
        gate = EffectGate(
            EffectGateConfig(enabled=True, max_downgrades=10**9), workspace=tmp, env={}
        )
        gate.reset()
        gate.record(gone, turn_index=1)

        def cold_gone() -> None:
            gate.ledger.version += 1
            gate.apply(done, task_type="edit")

        rows.append(
            ("apply: 1,000 writes, files gone (cold, worst)", best_us(cold_gone, number=20))
        )
        rows.append(
            (
                "apply: 1,000 writes, files gone (warm)",
                best_us(lambda: gate.apply(done, task_type="edit"), number=200),
            )
        )

        table = {f"k{i}": i for i in range(N)}
        keys = list(table)
        rows.append(
            ("baseline: 1,000 dict lookups", best_us(lambda: [table[k] for k in keys], number=500))
        )
        probe = str(tmp / "pkg0" / "mod0.py")
        rows.append(("baseline: one os.stat", best_us(lambda: os.stat(probe), number=20_000)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


SAMPLE_RESULTS: list[dict[str, Any]] = [
    {"tool_name": "Write", "args": {"file_path": "src/app.py", "content": "x = 1\n"}},
    {
        "tool_name": "Edit",
        "args": {"file_path": "src/app.py", "old_string": "1", "new_string": "2"},
    },
    {"tool_name": "Read", "args": {"file_path": "README.md"}},
    {"tool_name": "Grep", "args": {"pattern": "TODO"}},
    {
        "tool_name": "Bash",
        "args": {"command": "cd pkg && FOO=1 python -m pytest -q 2>&1 | tail -20"},
    },
    {
        "tool_name": "Bash",
        "args": {"command": "git add -A && git commit -m \"$(cat <<'EOF'\nfix: x\nEOF\n)\""},
    },
    {"tool_name": "Bash", "args": {"command": "cat a.txt > b.txt && sed -i 's/a/b/' c.txt"}},
    {"tool_name": "Bash", "args": {"command": "ls -la && git status && echo pytest"}},
    {"name": "run_shell_command", "arguments": json.dumps({"command": "npm run lint && npm test"})},
    {"tool_name": "str_replace_editor", "args": {"command": "create", "path": "/w/a.py"}},
    {
        "tool_name": "apply_patch",
        "args": {"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch"},
    },
    {
        "tool_name": "Bash",
        "args": {"command": "pytest"},
        "is_error": True,
        "content": "Exit code 1",
    },
]


def bench_classify() -> list[tuple[str, float]]:
    calls = len(SAMPLE_RESULTS)
    clear = shell._analyze_cached.cache_clear

    def classify_all() -> None:
        for r in SAMPLE_RESULTS:
            classify_tool_result(r)

    def classify_all_uncached() -> None:
        for r in SAMPLE_RESULTS:
            clear()  # every shell command parsed from scratch
            classify_tool_result(r)

    def dump_all() -> None:
        for r in SAMPLE_RESULTS:
            json.dumps(r)

    uncached = best_us(classify_all_uncached, number=300) / calls
    cached = best_us(classify_all, number=300) / calls
    baseline = best_us(dump_all, number=300) / calls
    return [
        ("classify_tool_result, per call (uncached)", uncached),
        ("classify_tool_result, per call (repeat commands)", cached),
        ("baseline: json.dumps, per call (same results)", baseline),
    ]


def main() -> int:
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s)")
    apply_rows = bench_apply()
    classify_rows = bench_classify()
    lookups = next(v for k, v in apply_rows if k.startswith("baseline: 1,000 dict"))
    print("\nEffectGate.apply (1,000-entry ledger)")
    for name, us in apply_rows:
        if name.endswith("[ms]"):
            print(f"  {name:<48} {us / 1_000:>10.1f} ms")
            continue
        verdict = ""
        if name.startswith("apply"):
            verdict = "  ok (<50 µs)" if us < TARGET_US else "  over 50 µs"
        print(f"  {name:<48} {us:>10.2f} µs  x{us / lookups:>6.2f} of 1,000 lookups{verdict}")
    print("\nclassify_tool_result")
    per_call, baseline = classify_rows[0][1], classify_rows[-1][1]
    for name, us in classify_rows:
        print(f"  {name:<48} {us:>10.2f} µs  ({1e6 / us:,.0f}/s)")
    print(f"  ratio uncached classify / json.dumps: x{per_call / baseline:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
