"""Progress lines on a non-terminal, and which profiles make a run paid."""

from __future__ import annotations

import io
from dataclasses import replace

from earnest.live.cost import FREE, Price
from earnest.live.profiles import parse_spec
from earnest.live.progress import Progress
from earnest.live.providers.base import ProviderError
from earnest.live.runner import output_budget, profile_price
from earnest.live.store import SampleRecord


def rec(verdict: str | None, cost: float = 0.01) -> SampleRecord:
    return SampleRecord(
        run_id="r",
        fixture_id="F",
        profile="p",
        arm="rule",
        epoch=0,
        rule_id="1",
        agent="a",
        provider="openai:m",
        model="m",
        params={},
        prompt_hash="h",
        agent_doc_sha256="a",
        fixture_sha256="f",
        displayed_order=("A", "B"),
        verdict=verdict,
        void=verdict is None,
        cost=cost,
    )


def test_plain_lines_are_periodic_and_count_verdicts_voids_and_cost() -> None:
    now = [100.0]
    out = io.StringIO()
    p = Progress(out, tty=False, interval=5.0, clock=lambda: now[0])
    p.on_start(10, [rec("pass")])
    now[0] += 1
    p.on_sample(rec("fail-choice"))  # within the interval: no line
    now[0] += 5
    p.on_sample(rec(None, cost=0.0))
    p.on_retry(("F", "p", "rule", 1), 1, ProviderError("429", kind="rate_limit"), 1.5)
    p.on_finish("complete")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("1/10 done · pass 1 · void 0")
    assert lines[1] == (
        "3/10 done · pass 1 fail-choice 1 · void 1 · 0.3/s · ETA 21s · cost $0.0200"
    )
    assert lines[2] == "retry 1 of F [p/rule/epoch 1] in 1.5s: rate_limit: 429"
    assert lines[-1].startswith("run complete: 3/10 done")
    assert len(lines) == 5


def test_which_profiles_cost_money() -> None:
    assert profile_price(parse_spec("r", "replay:x.jsonl"), {}) == FREE
    assert profile_price(parse_spec("c", "exec:cmd:python3 a.py"), {}) == FREE
    local = replace(parse_spec("l", "openai:gpt-4o"), base_url="http://127.0.0.1:8000/v1")
    assert profile_price(local, {}) == FREE
    assert profile_price(replace(local, price=Price(1, 2)), {}) == Price(1, 2)
    assert profile_price(parse_spec("h", "openai:gpt-4o"), {}) == Price(2.5, 10.0)
    assert profile_price(parse_spec("h", "exec:claude:sonnet"), {}) == Price(3.0, 15.0)
    assert profile_price(parse_spec("u", "openai:my-tune"), {}) is None
    assert profile_price(parse_spec("u", "openai:my-tune"), {"my-tune": Price(1, 1)}) == Price(1, 1)
    assert output_budget(replace(local, params={"max_completion_tokens": 99})) == 99
    assert output_budget(local) == 512
