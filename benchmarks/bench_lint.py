"""Lint speed: 1,000 fixtures in a temporary suite, against plain json.loads of the same files.

Target: lint of 1,000 fixtures in under a second. Run: ``python benchmarks/bench_lint.py``
(optionally ``--fixtures N --repeat R``). Prints the best of R runs for each step:

- baseline: read and ``json.loads`` every fixture file (the floor any loader pays);
- load:     ``load_suite`` (config, doctrine, agent docs, every fixture built leniently);
- lint:     ``lint_suite`` on the loaded suite (every check, every heuristic);
- coverage: ``coverage_report`` on the loaded suite.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from earnest.pressure import PRESSURES, coverage_report, lint_suite, load_suite

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "suite"


def make_suite(root: Path, n: int) -> list[Path]:
    """Copy the example suite's doctrine and agents; write ``n`` fixtures varied from its own."""
    (root / "agents").mkdir(parents=True)
    (root / "pressure").mkdir()
    (root / "doctrine.md").write_text((EXAMPLE / "doctrine.md").read_text("utf-8"), "utf-8")
    for doc in (EXAMPLE / "agents").glob("*.md"):
        (root / "agents" / doc.name).write_text(doc.read_text("utf-8"), "utf-8")
    (root / "earnest.toml").write_text(
        '[suite]\ndoctrine = "doctrine.md"\nagents = ["agents/*.md"]\n'
        f'claims_heading = "Working Rules"\nfixtures = "pressure"\nmin_fixtures = {n}\n'
        '[suite.debt]\n"7" = "x"\n"10" = "x"\n',
        "utf-8",
    )
    seeds = [
        json.loads(p.read_text("utf-8")) for p in sorted((EXAMPLE / "pressure").glob("*.json"))
    ]
    rng = random.Random(0)
    paths = []
    for i in range(n):
        fx: dict[str, Any] = json.loads(json.dumps(seeds[i % len(seeds)]))
        fx["id"] = f"{fx['id']}-{i:04d}"
        fx["scenario"] = f"Ticket OPS-{1000 + i}: {fx['scenario']}"
        fx["pressures"] = rng.sample(PRESSURES, rng.randint(3, 5))
        if i % 50 == 0:  # a few defects, so lint has something to report
            fx["rationalizations"][0]["counter"] = ""
        path = root / "pressure" / f"{fx['id']}.json"
        path.write_text(json.dumps(fx, indent=2, ensure_ascii=False), "utf-8")
        paths.append(path)
    return paths


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fixtures", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = make_suite(root, args.fixtures)
        t_base, _ = best(lambda: [json.loads(p.read_text("utf-8")) for p in paths], args.repeat)
        t_load, suite = best(lambda: load_suite(root), args.repeat)
        t_lint, diags = best(lambda: lint_suite(suite), args.repeat)
        t_cov, _ = best(lambda: coverage_report(suite), args.repeat)
    n = args.fixtures
    print(f"fixtures: {n}  (best of {args.repeat}; {len(diags)} diagnostics reported)")
    print(f"baseline json.loads of the files: {t_base * 1000:8.1f} ms")
    print(
        f"load_suite:                       {t_load * 1000:8.1f} ms  ({t_load / t_base:.1f}x baseline)"
    )
    print(
        f"lint_suite:                       {t_lint * 1000:8.1f} ms  ({t_lint / t_base:.1f}x baseline)"
    )
    print(
        f"coverage_report:                  {t_cov * 1000:8.1f} ms  ({t_cov / t_base:.2f}x baseline)"
    )
    total = t_load + t_lint
    verdict = "meets" if total < 1.0 else "MISSES"
    print(f"load + lint: {total * 1000:.1f} ms for {n} fixtures: {verdict} the 1 s target")


if __name__ == "__main__":
    main()
