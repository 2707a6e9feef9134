"""The realistic reply mix of issue 10, shared by the scoring benchmarks.

8 fixtures of the example suite (real scenarios, options, recorded excuses and must_cite
strings), replies of ~2 KB written the way models answer (prose, markdown, citations by id,
title or alias, a ``CHOICE:`` line, some with ``<think>`` reasoning) and delivered in every
envelope earnest reads: plain text, markdown, Claude Code ``--output-format json`` and
``stream-json``, OpenAI chat completions, the Responses API and the Anthropic messages API. A
third of them fail (wrong option, hybrid or fallback, no citation, no decision).

``benchmarks/bench_score.py`` scores it in process; ``benchmarks/bench_score_peers.py`` writes
it as a replies file and times whole processes of earnest and its peers on it.

    >>> mix, rules = build(14)
    >>> len(mix), sorted({fx.id for fx, _ in mix}) == sorted({fx.id for fx, _ in mix[:8]})
    (14, True)
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "examples" / "suite"
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from earnest.pressure.models import Fixture, Rule  # noqa: E402
from earnest.pressure.suite import load_suite  # noqa: E402

FIXTURES = 8
SIZE = 2048

FILLER = [
    "I re-read the ticket and the constraints before deciding.",
    "The deadline is real, and so is the cost of shipping the wrong thing.",
    "Nothing in the scenario makes the real fix structurally impossible tonight.",
    "**Trade-off:** a slower, honest answer beats a fast one that hides the problem.",
    "- The pressure here is time and a senior person asking.\n- Neither changes what is true.",
    "> The request is understandable, but it is not a reason to skip the rule.",
    "I checked what each option leaves behind in the repository and in production.",
    "Saying so plainly to the person asking is part of the answer.",
    "The follow-up ticket would be easy to write and just as easy to forget.",
    "Under pressure the shortcut looks reasonable; that is exactly when it is not.",
    "## Analysis\n\nEach option trades risk against time in a different way.",
    "1. Read the failure.\n2. Find the cause.\n3. Fix the cause, then verify.",
]


def _ending(rng: random.Random, fx: Fixture, rule: Rule, kind: str) -> str:
    right = fx.correct_choice
    wrong = [c.id for c in fx.choices if c.id != right]
    cite = rng.choice([f"Per Rule {rule.id}", f"Rule {rule.id} applies", rule.title])
    must = " ".join(fx.must_cite)
    line = rng.choice(["CHOICE: {}", "**CHOICE: {}**", "CHOICE: {}.", "### CHOICE: {}"])
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


def make_text(rng: random.Random, fx: Fixture, rule: Rule, kind: str) -> str:
    ending = _ending(rng, fx, rule, kind)
    pieces = [*FILLER, *(c.text for c in fx.choices), fx.scenario.split("\n")[0][:300]]
    body: list[str] = []
    while sum(len(s) + 1 for s in body) + len(ending) < SIZE:
        body.append(rng.choice(pieces))
    text = "\n".join(body)
    return text[: SIZE - len(ending) - 1] + "\n" + ending


def wrap(rng: random.Random, text: str, form: str) -> str:
    """``text`` as the given envelope prints it."""
    if form in ("plain", "markdown"):
        return text
    if form == "claude-json":
        return json.dumps(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "result": text,
                "session_id": "s1",
                "num_turns": 1,
                "total_cost_usd": 0.01,
            }
        )
    if form == "claude-stream":
        events = [
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
        return "\n".join(json.dumps(e) for e in events)
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


def build(n: int, seed: int = 20240601) -> tuple[list[tuple[Fixture, str]], dict[str, Rule]]:
    suite = load_suite(SUITE)
    fixtures = list(suite.fixtures)[:FIXTURES]
    rng = random.Random(seed)
    kinds = [k for k, w in KINDS.items() for _ in range(w)]
    mix = []
    for i in range(n):
        fx = fixtures[i % len(fixtures)]
        rule = suite.rules[str(fx.rule)]
        text = make_text(rng, fx, rule, rng.choice(kinds))
        mix.append((fx, wrap(rng, text, FORMS[i % len(FORMS)])))
    return mix, suite.rules
