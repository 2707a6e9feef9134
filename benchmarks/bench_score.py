"""Scoring throughput: replies judged per second on one core, beside a plain regex baseline.

The mix is the one issue 10 names: 8 fixtures of the example suite (real scenarios, options,
recorded excuses and must_cite strings), 2,000 replies of ~2 KB written the way models answer
(prose, citations by id, title or alias, a ``CHOICE:`` line, some with ``<think>`` reasoning)
and delivered in every envelope earnest reads: plain text (prose only), markdown (headings,
emphasis, lists, quotes, tables, a fenced block, decorated decision lines), Claude Code
``--output-format json`` (half of them ``--verbose``: one JSON array of every event) and
``stream-json``, OpenAI chat completions, the Responses API and the Anthropic messages API.
Replies inside an envelope are written in markdown, as models write them. A third of them fail
(wrong option, hybrid or fallback, no citation, no decision). Every reply is scored with :func:`earnest.pressure.verdict.judge` (unwrapping,
reasoning split, decision parsing, citations, must_cite, excuse matching on failures); in the
same run a bare ``re.search`` for ``CHOICE: X`` runs over the same raw strings.

    python benchmarks/bench_score.py [--replies N] [--runs R]

Prints the median of ``R`` (>= 5) runs of each, in CPU time (``wall/s``: wall-clock, for
reference on a busy machine). Target: >= 20,000 replies/s on the mix. Then the failure path
(issue 27): each verdict kind of the mix on its own (target >= 10,000/s each) and a
failure-heavy mix (two thirds failing, same envelopes; target >= 15,000/s) beside the
pass-heavy one, each with the bare ``re.search`` of the same run and its rate as a multiple
of the pass-heavy mix's (a busy machine slows every row alike: the multiples still compare).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from earnest.fastjson import PARSER  # noqa: E402
from earnest.pressure.citations import citations_for  # noqa: E402
from earnest.pressure.models import Fixture, Rule  # noqa: E402
from earnest.pressure.suite import load_suite  # noqa: E402
from earnest.pressure.verdict import judge  # noqa: E402

TARGET = 20_000
FIXTURES = 8
SIZE = 2048

# Plain replies are prose only; markdown replies mix in headings, emphasis, lists, quotes and
# tables, a quarter of them open by quoting the answer format in a fenced block, and their
# decision lines are decorated.
PROSE = [
    "I re-read the ticket and the constraints before deciding.",
    "The deadline is real, and so is the cost of shipping the wrong thing.",
    "Nothing in the scenario makes the real fix structurally impossible tonight.",
    "I checked what each option leaves behind in the repository and in production.",
    "Saying so plainly to the person asking is part of the answer.",
    "The follow-up ticket would be easy to write and just as easy to forget.",
    "Under pressure the shortcut looks reasonable; that is exactly when it is not.",
    "A slower, honest answer beats a fast one that hides the problem.",
]
FENCED = "The answer format I was given:\n```text\nCHOICE: <letter>\n```"
MARKDOWN = [
    "**Trade-off:** a slower, honest answer beats a fast one that hides the problem.",
    "- The pressure here is time and a senior person asking.\n- Neither changes what is true.",
    "> The request is understandable, but it is not a reason to skip the rule.",
    "## Analysis\n\nEach option trades risk against time in a different way.",
    "1. Read the failure.\n2. Find the cause.\n3. Fix the cause, then verify.",
    "| option | risk |\n| --- | --- |\n| shortcut | *high* |\n| real fix | low |",
]


def _ending(rng: random.Random, fx: Fixture, rule: Rule, kind: str, markdown: bool) -> str:
    right = fx.correct_choice
    wrong = [c.id for c in fx.choices if c.id != right]
    cite = rng.choice([f"Per Rule {rule.id}", f"Rule {rule.id} applies", rule.title])
    must = " ".join(fx.must_cite)
    line = rng.choice(
        ["**CHOICE: {}**", "### CHOICE: {}", "> CHOICE: `{}`"]
        if markdown
        else ["CHOICE: {}", "CHOICE: {}."]
    )
    if kind == "pass":
        return f"{cite}: {must} is the answer here.\n\n" + line.format(right)
    if kind == "pass-think":
        draft = f"<think>Maybe {wrong[0]}? CHOICE: {wrong[0]}. No: {cite}.</think>\n"
        return draft + f"{cite}. {must}.\n\n" + line.format(right)
    if kind == "fail-choice":
        excuse = rng.choice(fx.rationalizations).excuse
        return f"{excuse}\n\n" + line.format(rng.choice(wrong))
    if kind == "fail-choice-new":
        return "Honestly the calendar wins today; the careful work can wait.\n\n" + line.format(
            rng.choice(wrong)
        )
    if kind == "fail-citation":
        return "This is simply the better engineering choice.\n\n" + line.format(right)
    if kind == "fail-hybrid":
        return f"{cite}, but we need a way out.\n\nCHOICE: {right}, otherwise {wrong[0]}"
    return "I would go with the careful option, and I am confident about it.\n"


def make_text(rng: random.Random, fx: Fixture, rule: Rule, kind: str, markdown: bool) -> str:
    ending = _ending(rng, fx, rule, kind, markdown)
    pieces = [*PROSE, *(c.text for c in fx.choices), fx.scenario.split("\n")[0][:300]]
    if markdown:
        pieces += MARKDOWN
    body: list[str] = [FENCED] if markdown and rng.random() < 0.25 else []
    while sum(len(s) + 1 for s in body) + len(ending) < SIZE:
        body.append(rng.choice(pieces))
    text = "\n".join(body)
    return text[: SIZE - len(ending) - 1] + "\n" + ending


def wrap(rng: random.Random, text: str, form: str) -> str:
    """``text`` as the given envelope prints it."""
    if form in ("plain", "markdown"):
        return text
    if form in ("claude-json", "claude-stream"):
        events: list[dict[str, object]] = [
            {"type": "system", "subtype": "init", "session_id": "s1", "tools": []},
            {
                "type": "assistant",
                "session_id": "s1",
                "parent_tool_use_id": None,
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                },
            },
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "result": text,
                "session_id": "s1",
            },
        ]
        if form == "claude-stream":
            return "\n".join(json.dumps(e) for e in events)
        # ``claude -p --output-format json``: the result event alone, or (``--verbose``) every
        # event in one JSON array.
        if rng.random() < 0.5:
            return json.dumps(events)
        return json.dumps({**events[-1], "num_turns": 1, "total_cost_usd": 0.01})
    if form == "chat":
        return json.dumps(
            {
                "id": "c1",
                "object": "chat.completion",
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
            }
        )
    if form == "responses":
        return json.dumps(
            {
                "id": "r1",
                "object": "response",
                "status": "completed",
                "output": [
                    {
                        "type": "reasoning",
                        "id": "rs1",
                        "summary": [{"type": "summary_text", "text": "Weighing the options."}],
                    },
                    {
                        "type": "message",
                        "id": "m1",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}],
                    },
                ],
            }
        )
    # Anthropic messages API
    return json.dumps(
        {
            "id": "msg1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "stop_reason": "end_turn",
            "content": [
                {"type": "thinking", "thinking": "Weighing the options.", "signature": "x"},
                {"type": "text", "text": text},
            ],
        }
    )


# A third of the replies fail, across every failure mode; every envelope in the mix.
KINDS = {
    "pass": 52,
    "pass-think": 15,
    "fail-choice": 12,
    "fail-choice-new": 4,
    "fail-citation": 7,
    "fail-hybrid": 6,
    "fail-unparseable": 4,
}
FORMS = ("plain", "markdown", "claude-json", "claude-stream", "chat", "responses", "messages")


# Issue 27: a suite under real pressure fails a lot. Two thirds fail, every failure mode.
FAILURE_HEAVY = {
    "pass": 22,
    "pass-think": 11,
    "fail-choice": 25,
    "fail-choice-new": 8,
    "fail-citation": 14,
    "fail-hybrid": 12,
    "fail-unparseable": 8,
}
KIND_TARGET = 10_000
"""Replies/s every verdict kind must reach (issue 27)."""
FAILURE_HEAVY_TARGET = 15_000
"""Replies/s the failure-heavy mix must reach (issue 27)."""


def build(
    n: int, seed: int = 20240601, weights: dict[str, int] | None = None
) -> tuple[list[tuple[Fixture, str]], dict[str, Rule]]:
    suite = load_suite(ROOT / "examples" / "suite")
    fixtures = list(suite.fixtures)[:FIXTURES]
    rng = random.Random(seed)
    kinds = [k for k, w in (weights or KINDS).items() for _ in range(w)]
    mix = []
    for i in range(n):
        fx = fixtures[i % len(fixtures)]
        rule = suite.rules[str(fx.rule)]
        form = FORMS[i % len(FORMS)]
        text = make_text(rng, fx, rule, rng.choice(kinds), form != "plain")
        mix.append((fx, wrap(rng, text, form)))
    return mix, suite.rules


def median_of(runs: int, fn: Callable[[], object]) -> tuple[float, float]:
    """Median CPU time (the figure that counts: the machine may be busy with other work) and
    median wall-clock time of ``runs`` calls of ``fn``."""
    cpu, wall = [], []
    for _ in range(runs):
        start, start_wall = time.process_time(), time.perf_counter()
        fn()
        cpu.append(time.process_time() - start)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), statistics.median(wall)


def bench(
    mix: Sequence[tuple[Fixture, str]], rules: dict[str, Rule], runs: int
) -> tuple[float, float, float]:
    """Median CPU seconds of scoring ``mix`` and of the regex baseline, and scoring's wall seconds."""
    pattern = re.compile(r"CHOICE:\s*([A-D])")

    def scored() -> None:
        for fx, reply in mix:
            judge(fx, rules, reply)

    def baseline() -> None:
        for _, reply in mix:
            pattern.search(reply)

    scored()  # warm the per-fixture caches, as a run of many replies does
    (cpu, wall), (base, _) = median_of(runs, scored), median_of(runs, baseline)
    return cpu, base, wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--replies", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    runs = max(5, args.runs)
    mix, rules = build(args.replies)
    verdicts = Counter(judge(fx, rules, r).verdict for fx, r in mix)
    avg = sum(len(r) for _, r in mix) / len(mix)
    failed = sum(v for k, v in verdicts.items() if k != "pass") / len(mix)
    print(
        f"earnest score benchmark: {len(mix)} replies of {avg:.0f} chars, {FIXTURES} fixtures, "
        f"{len(FORMS)} envelopes, {failed:.0%} failures; median of {runs} runs"
    )
    print("verdict mix: " + json.dumps(dict(sorted(verdicts.items()))))
    # The fast extra's two accelerators (neither changes a verdict): say which are in use.
    one_pass = citations_for(rules).presence is not None
    print(f"fast extra: orjson {PARSER == 'orjson'}, one-pass citation words {one_pass}")
    print(
        f"{'set':<18}{'replies/s':>12}{'us/reply':>10}{'re.search/s':>14}{'slowdown':>10}"
        f"{'wall/s':>10}"
    )
    rows: list[tuple[str, Sequence[tuple[Fixture, str]]]] = [("mix", mix)]
    for form in FORMS:
        rows.append((form, [m for i, m in enumerate(mix) if FORMS[i % len(FORMS)] == form]))
    rate = 0.0
    for name, replies in rows:
        t_score, t_base, t_wall = bench(replies, rules, runs)
        r, base = len(replies) / t_score, len(replies) / t_base
        if name == "mix":
            rate = r
        print(
            f"{name:<18}{r:>12,.0f}{1e6 / r:>10.1f}{base:>14,.0f}{t_score / t_base:>9.0f}x"
            f"{len(replies) / t_wall:>10,.0f}"
        )
    verdict = "met" if rate >= TARGET else "NOT met"
    print(f"target >= {TARGET:,} replies/s on the mix: {verdict} ({rate:,.0f}/s)")
    failure_path(mix, rules, args.replies, runs)
    return 0


def failure_path(
    mix: Sequence[tuple[Fixture, str]], rules: dict[str, Rule], n: int, runs: int
) -> None:
    """Issue 27: each verdict kind of the pass-heavy mix on its own, and the failure-heavy
    mix beside the pass-heavy one, with their targets."""
    heavy, _ = build(n, weights=FAILURE_HEAVY)
    by_verdict: dict[str, list[tuple[Fixture, str]]] = {}
    for fx, reply in mix:
        by_verdict.setdefault(judge(fx, rules, reply).verdict, []).append((fx, reply))
    failed = sum(judge(fx, rules, r).verdict != "pass" for fx, r in heavy) / len(heavy)
    print(f"failure path: each verdict kind, and a mix with {failed:.0%} failures")
    print(
        f"{'set':<22}{'replies':>8}{'replies/s':>12}{'us/reply':>10}{'re.search/s':>14}"
        f"{'/ pass-heavy':>14}  target"
    )
    rows = [
        ("pass-heavy mix", list(mix), TARGET),
        ("failure-heavy mix", heavy, FAILURE_HEAVY_TARGET),
    ]
    rows += [(f"  {v}", replies, KIND_TARGET) for v, replies in sorted(by_verdict.items())]
    pass_heavy = 0.0
    for name, replies, target in rows:
        t_score, t_base, _ = bench(replies, rules, runs)
        r, base = len(replies) / t_score, len(replies) / t_base
        pass_heavy = pass_heavy or r  # the first row: the pass-heavy mix
        met = "met" if r >= target else "NOT met"
        print(
            f"{name:<22}{len(replies):>8}{r:>12,.0f}{1e6 / r:>10.1f}{base:>14,.0f}"
            f"{r / pass_heavy:>13.2f}x  >= {target:,}: {met}"
        )


if __name__ == "__main__":
    sys.exit(main())
