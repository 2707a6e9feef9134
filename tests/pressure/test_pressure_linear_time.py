"""Issue 10, item 9: scoring is linear on any input, for every family of patterns that reads a
reply or an agent doc.

Each family gets an adversarial reply of ~10 KB and of ~1 MB (the same unit repeated); the
larger may cost at most 300x the smaller (100x is linear; CI once measured a linear family at
154x on a busy machine, cache misses and allocator growth at 1 MB). A ratio, never a time:
quadratic scans cost ~10,000x here and an n^1.5 one ~1,000x, so the bound still catches both (``Per Rule 1,`` and 50,000 newlines took a minute; 800 KB of
``CHOICE: A`` lines 44 s).
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from earnest.pressure.agents import parse_agent_doc
from earnest.pressure.citations import rule_mentions
from earnest.pressure.fixtures import build_fixture
from earnest.pressure.models import Rule
from earnest.pressure.verdict import judge
from suitekit import fixture_data

SRC = Path(__file__).resolve().parents[2] / "src"
TESTS = Path(__file__).resolve().parents[1]

SMALL, LARGE = 10_000, 1_000_000
MAX_RATIO = 300

RULES = {
    "1": Rule("1", "Finish the whole task"),
    "8": Rule(
        "8", "Never present a work-around when the real fix exists", aliases=("the real-fix rule",)
    ),
    "60": Rule("60", "Keep the changelog current"),
}
FX = build_fixture(
    fixture_data(must_cite=["withFileLock", "concurrency   test"]), Path("FX.json")
).fixture
assert FX is not None


def _event(text: str) -> str:
    return (
        json.dumps(
            {
                "type": "assistant",
                "session_id": "s",
                "parent_tool_use_id": None,
                "message": {"id": "m", "content": [{"type": "text", "text": text}]},
            }
        )
        + "\n"
    )


# (name, unit repeated to fill the reply, head, tail)
FAMILIES: list[tuple[str, str, str, str]] = [
    ("mention then newlines", "\n", "Per Rule 1,", "CHOICE: C"),
    ("mention then spaces and hashes", " # ", "Per Rule", "CHOICE: C"),
    ("rule word runs", "rule ", "", "\nCHOICE: C"),
    ("rule lists", "Rules 1, 8 & 60 through 61, ", "", "\nCHOICE: C"),
    ("many decision lines", "CHOICE: A\n", "", ""),
    ("many decision lines, shifted case", "CHOICE: A\n", "İ", ""),
    ("one long decision list", "A, ", "CHOICE: ", "B"),
    ("one long fallback line", "or, if needed, D ", "CHOICE: C ", ""),
    ("choice repeated on one line", "choice", "x", "\nCHOICE: C"),
    ("decoration run", "*_~`", "", "CHOICE: C"),
    ("decorated lines", "> > - **", "", "\nCHOICE: C\n"),
    ("code fences", "```\nCHOICE: A\n```\n", "", "CHOICE: C"),
    ("tilde fences", "~~~\n", "", "CHOICE: C"),
    ("title words with punctuation runs", "never -- present ... a ", "", "\nCHOICE: C"),
    ("title prefix runs", "never present ", "", "\nCHOICE: C"),
    ("hyphenated title parts", "work-work-", "never present a ", "\nCHOICE: C"),
    ("must_cite whitespace runs", "concurrency    ", "", "\nCHOICE: C"),
    ("think tags", "<think></think>", "", "CHOICE: C"),
    ("unclosed think tags", "<think>", "", "CHOICE: C"),
    ("close tags", "</think>x", "", "CHOICE: C"),
    ("excuse sentences", "The operator explicitly asked for the retry. ", "", "\nCHOICE: A"),
    ("one endless sentence", "operator retry instruction ", "", "\nCHOICE: A"),
    # Shapes the excuse matcher's one-pass scan reads specially (hits glued into one token by
    # apostrophes, blank sentences between hits, wide separators); replies this long are read
    # token by token, the scan only ever runs on replies of ordinary length.
    ("excuse words in one token", "operator'explicitly'asked'retry'", "", "\nCHOICE: A"),
    ("excuse words across blank sentences", "operator. . ; ! explicitly\n\n", "", "\nCHOICE: A"),
    (
        "excuse words between wide separators",
        "“operator” — ‘explicitly’\u3000asked ",
        "",
        "\nCHOICE: A",
    ),
    ("stream events", "", "", ""),  # filled below: a stream-json log of many events
    ("non-ASCII prose", "Größe é ü € — “quoted” ", "", "\nCHOICE: A"),
]


def reply(unit: str, head: str, tail: str, size: int, name: str) -> str:
    if name == "stream events":
        return _event("Rule 8 thinking ") * (size // 160) + _event("CHOICE: C")
    return head + unit * max(1, (size - len(head) - len(tail)) // len(unit)) + tail


def cost(fn: Callable[[], object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def ratio(fn_of: Callable[[int], Callable[[], object]]) -> float:
    small, large = fn_of(SMALL), fn_of(LARGE)
    small()  # warm caches
    # The test process's own heap (pytest, Hypothesis, every module loaded) is frozen out of
    # the cyclic collector while measuring: a full collection rescans it, and a 1 MB reply that
    # allocates 100,000 decision lines triggers a few, which is the test runner's cost, not the
    # scorer's (an ``earnest score`` process has almost no heap of its own).
    # Other processes on a busy machine only ever add cost, so the best of a few attempts is
    # the truest ratio; a quadratic scan (~10,000x here) never comes near the bound in any.
    gc.collect()
    gc.freeze()
    try:
        best = float("inf")
        for _ in range(3):
            best = min(best, cost(large, 3) / max(cost(small, 15), 1e-6))
            if best <= MAX_RATIO:
                break
        return best
    finally:
        gc.unfreeze()


def _judging_ratio(name: str) -> float:
    unit, head, tail = next(f[1:] for f in FAMILIES if f[0] == name)

    def make(size: int) -> Callable[[], object]:
        text = reply(unit, head, tail, size, name)
        return lambda: judge(FX, RULES, text)

    return ratio(make)


def _doc_ratio(unit: str) -> float:
    def make(size: int) -> Callable[[], object]:
        text = unit * (size // len(unit))
        doc = "---\nname: fixer\n---\n# Fixer\n\n## Working Rules\n\n" + text + "\n## Other\n"

        def run() -> None:
            rule_mentions(text)
            parse_agent_doc(
                doc, path=Path("a.md"), claims_heading="Working Rules", known_rules=frozenset({"1"})
            )

        return run

    return ratio(make)


DOC_UNITS = ["Rule 1,\n\n\n", "rule\n", "Rules 1-4 and ", "Working Rules: Rule 8 # # # "]


@pytest.fixture(scope="module")
def ratios() -> dict[str, float]:
    """Every family's ratio, measured in one fresh process: a scorer's heap, not the test
    runner's (thousands of tests leave a heap where a 1 MB reply's allocations cost more)."""
    code = (
        "import json, sys\n"
        f"sys.path[:0] = [{str(SRC)!r}, {str(Path(__file__).parent)!r}, {str(TESTS)!r}]\n"
        "import test_pressure_linear_time as t\n"
        "out = {f[0]: t._judging_ratio(f[0]) for f in t.FAMILIES}\n"
        "out.update({'doc:' + u: t._doc_ratio(u) for u in t.DOC_UNITS})\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=False
    )
    assert proc.returncode == 0, proc.stderr
    got: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return got


@pytest.mark.parametrize("name", [f[0] for f in FAMILIES])
def test_judging_is_linear(name: str, ratios: dict[str, float]) -> None:
    got = ratios[name]
    assert got <= MAX_RATIO, f"{name}: 1 MB cost {got:.0f}x what 10 KB did"


@pytest.mark.parametrize("unit", DOC_UNITS, ids=["mentions", "rule words", "ranges", "claims"])
def test_agent_doc_scans_are_linear(unit: str, ratios: dict[str, float]) -> None:
    got = ratios["doc:" + unit]
    assert got <= MAX_RATIO, f"{unit!r}: 1 MB cost {got:.0f}x what 10 KB did"
