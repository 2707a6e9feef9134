"""Live-run throughput and harness overhead, against a local OpenAI-compatible server.

1. Throughput: 1,000 samples against a server with a fixed 200 ms latency at concurrency 32
   should take within 10% of the ideal 1000 × 0.2 / 32 s.
2. Overhead: the same 1,000 samples against a 0 ms server, the full harness (render, call,
   judge, store each sample in SQLite, progress) versus a direct SDK loop (AsyncOpenAI with the
   same concurrency and the same prompts) in the same run: (harness − direct) / samples should be
   under 2 ms, wall clock and client CPU alike. The baseline loop makes the same SDK call the
   provider makes (``client.post`` to ``/chat/completions``, parsed as ``ChatCompletion``), so
   the difference is the harness alone; a loop over ``chat.completions.create`` is printed too,
   for reference (it spends more client CPU than the provider does).

3. A small run beside the SDK alone (issue 27): ``--calls`` (160) samples against the 200 ms
   server at concurrency 32, the whole run (planning included: suite, prompts, provider client,
   run store) against the SDK alone (its client made, the same prompts sent, each reply's text
   read), both in the same rounds, medians: target <= 1.05x.

The server runs in its own process (``tests/live/live_servers.py``) so it does not share the
harness's interpreter. Run: ``python benchmarks/bench_live.py [--samples 1000] [--calls 160]``
(``--only-small`` runs part 3 alone).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "live"), str(ROOT / "tests")]

from live_suite import write_suite  # noqa: E402

from earnest.live.session import Overrides, RunPlan, execute, plan_new  # noqa: E402
from earnest.live.store import RunStore  # noqa: E402

CONCURRENCY = 32
LATENCY = 0.2
FIXTURES = 50
REPLY = "Rule 1 settles it: fix the cause.\n\nCHOICE: A"


class Server:
    def __init__(self, latency: float) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "tests" / "live" / "live_servers.py"),
                "--latency",
                str(latency),
                "--reply",
                REPLY,
            ],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT / "tests")},  # its serverkit
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        self.port = int(line.split()[1])
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def plan(suite: Path, base_url: str, epochs: int) -> RunPlan:
    return plan_new(
        suite,
        Overrides(
            profiles=("bench=openai:bench-model",),
            base_url=base_url,
            samples=epochs,
            arms="rule",
            concurrency=CONCURRENCY,
            timeout=30,
        ),
    )


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def harness(suite: Path, base_url: str, epochs: int, db: Path) -> tuple[float, float, float, int]:
    """(wall incl. planning, wall of the run, client CPU, samples stored)."""
    started = time.perf_counter()
    cpu0 = time.process_time()
    p = plan(suite, base_url, epochs)
    with RunStore(db) as st:
        run_wall, _, result = timed(lambda: execute(p, st))
        stored = st.count(result.run_id)
    return time.perf_counter() - started, run_wall, time.process_time() - cpu0, stored


def direct(p: RunPlan, base_url: str, *, create: bool = False) -> tuple[float, float]:
    """The baseline: the SDK alone, same prompts, same concurrency. (wall, client CPU)."""
    import openai
    from openai.types.chat import ChatCompletion

    prompts = [(x.rendered.system, x.rendered.user) for x in p.pending]

    async def main() -> None:
        client = openai.AsyncOpenAI(api_key="x", base_url=base_url, max_retries=0)
        sem = asyncio.Semaphore(CONCURRENCY)

        async def one(system: str, user: str) -> str:
            messages: list[Any] = [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ]
            async with sem:
                if create:
                    r = await client.chat.completions.create(
                        model="bench-model", messages=messages, timeout=30
                    )
                else:
                    r = await client.post(
                        "/chat/completions",
                        cast_to=ChatCompletion,
                        body={"model": "bench-model", "messages": messages},
                        options={"timeout": 30},
                    )
                return r.choices[0].message.content or ""

        await asyncio.gather(*(one(s, u) for s, u in prompts))
        await client.close()

    wall, cpu, _ = timed(lambda: asyncio.run(main()))
    return wall, cpu


SMALL_TARGET = 1.05


def small_run(tmpdir: Path, calls: int, rounds: int) -> None:
    """Part 3: the whole small run against the SDK alone, same server, same rounds."""
    import statistics

    suite = write_suite(tmpdir / "small-suite", CONCURRENCY)  # 160 calls: 5 epochs of 32
    epochs = max(1, calls // CONCURRENCY)
    n = epochs * CONCURRENCY
    slow = Server(LATENCY)
    walls: dict[str, list[float]] = {"earnest": [], "sdk": []}
    cpus: dict[str, list[float]] = {"earnest": [], "sdk": []}
    try:
        for i in range(rounds + 1):  # the first round warms imports and caches
            total, _, cpu, stored = harness(suite, slow.base_url, epochs, tmpdir / f"small{i}.db")
            assert stored == n, (stored, n)
            p = plan(suite, slow.base_url, epochs)
            sdk_wall, sdk_cpu = direct(p, slow.base_url)
            if i:
                walls["earnest"].append(total)
                walls["sdk"].append(sdk_wall)
                cpus["earnest"].append(cpu)
                cpus["sdk"].append(sdk_cpu)
    finally:
        slow.close()
    ours, sdk = statistics.median(walls["earnest"]), statistics.median(walls["sdk"])
    ours_cpu, sdk_cpu = statistics.median(cpus["earnest"]), statistics.median(cpus["sdk"])
    ratio = ours / sdk
    print(
        f"small run: {n} samples, {LATENCY * 1000:.0f} ms server, concurrency {CONCURRENCY}, "
        f"median of {rounds}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    print(
        f"  earnest (plan + run + store) {ours:.2f} s; the SDK alone {sdk:.2f} s -> {ratio:.2f}x "
        f"({'met' if ratio <= SMALL_TARGET else 'NOT met'}: <= {SMALL_TARGET:.2f}x)"
    )
    print(
        f"  client CPU: earnest {ours_cpu:.2f} s, the SDK alone {sdk_cpu:.2f} s "
        f"({ours_cpu / sdk_cpu:.2f}x); ideal wall {n / CONCURRENCY * LATENCY:.2f} s"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="overhead rounds; the best is kept")
    ap.add_argument(
        "--throughput-repeat", type=int, default=2, help="throughput rounds (best kept)"
    )
    ap.add_argument("--calls", type=int, default=160, help="samples of the small run (part 3)")
    ap.add_argument("--small-rounds", type=int, default=3, help="rounds of the small run")
    ap.add_argument("--only-small", action="store_true", help="run part 3 alone")
    args = ap.parse_args(argv)
    if args.only_small:
        with tempfile.TemporaryDirectory() as tmp:
            small_run(Path(tmp), args.calls, args.small_rounds)
        return 0
    epochs = max(1, args.samples // FIXTURES)
    n = epochs * FIXTURES
    with tempfile.TemporaryDirectory() as tmp:
        tmpdir = Path(tmp)
        suite = write_suite(tmpdir / "suite", FIXTURES)

        slow = Server(LATENCY)
        try:
            rounds = [
                harness(suite, slow.base_url, epochs, tmpdir / f"slow{i}.db")
                for i in range(args.throughput_repeat)
            ]
            total, run_wall, _, stored = min(rounds, key=lambda r: r[1])
            sdk_wall, _ = direct(plan(suite, slow.base_url, epochs), slow.base_url)
        finally:
            slow.close()
        ideal = n * LATENCY / CONCURRENCY
        floor = -(-n // CONCURRENCY) * LATENCY  # whole rounds of 32
        print(
            f"throughput: {stored} samples, {LATENCY * 1000:.0f} ms server, concurrency {CONCURRENCY}"
        )
        print(f"  ideal {ideal:.2f} s (whole-round floor {floor:.2f} s)")
        print(
            f"  actual {run_wall:.2f} s run ({total:.2f} s with planning): "
            f"{100 * (run_wall / ideal - 1):+.1f}% vs ideal -> "
            f"{'within' if run_wall <= ideal * 1.10 else 'OUTSIDE'} 10%"
            f" (best of {args.throughput_repeat})"
        )
        print(
            f"  the SDK alone against the same server: {sdk_wall:.2f} s "
            f"({100 * (sdk_wall / ideal - 1):+.1f}% vs ideal)"
        )

        fast = Server(0.0)
        try:
            best: dict[str, float] = {}
            for i in range(args.repeat):
                p = plan(suite, fast.base_url, epochs)
                d_wall, d_cpu = direct(p, fast.base_url)
                c_wall, c_cpu = direct(p, fast.base_url, create=True)
                h_total, h_run, h_cpu, _ = harness(
                    suite, fast.base_url, epochs, tmpdir / f"fast{i}.db"
                )
                for k, v in {
                    "direct_wall": d_wall,
                    "direct_cpu": d_cpu,
                    "create_wall": c_wall,
                    "create_cpu": c_cpu,
                    "harness_total": h_total,
                    "harness_run": h_run,
                    "harness_cpu": h_cpu,
                }.items():
                    best[k] = min(best.get(k, float("inf")), v)
        finally:
            fast.close()
        per = lambda a, b: 1000 * (best[a] - best[b]) / n  # noqa: E731
        print(
            f"overhead: {n} samples, 0 ms server, concurrency {CONCURRENCY}, best of {args.repeat}"
        )
        print(
            f"  direct SDK loop {best['direct_wall']:.2f} s wall, {best['direct_cpu']:.2f} s CPU; "
            f"harness {best['harness_run']:.2f} s run ({best['harness_total']:.2f} s with planning), "
            f"{best['harness_cpu']:.2f} s CPU"
        )
        print(
            f"  (reference: a chat.completions.create loop {best['create_wall']:.2f} s wall, "
            f"{best['create_cpu']:.2f} s CPU)"
        )
        wall_over = per("harness_run", "direct_wall")
        total_over = per("harness_total", "direct_wall")
        cpu_over = per("harness_cpu", "direct_cpu")
        print(
            f"  overhead per sample: {wall_over:.3f} ms wall (run), {total_over:.3f} ms wall "
            f"(with planning), {cpu_over:.3f} ms CPU -> "
            f"{'under' if max(wall_over, total_over, cpu_over) < 2 else 'OVER'} 2 ms"
        )
        small_run(tmpdir, args.calls, args.small_rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
