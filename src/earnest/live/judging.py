"""The live runner's two calls into the pressure harness: render a prompt, judge a reply.

Nothing here renders or judges by itself: prompts come from ``earnest.pressure.prompt`` and
verdicts from ``earnest.pressure.verdict`` (the one verdict function). This module only picks
the per-sample shuffle seed and turns a judgement into the fields the run store keeps.

Example:
    >>> sample_seed(0, "PRS-1", 2, "rule") == sample_seed(0, "PRS-1", 2, "rule")
    True
    >>> sample_seed(0, "PRS-1", 2, "rule") == sample_seed(0, "PRS-1", 3, "rule")
    False
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from earnest.pressure.evidence import Behaviour
from earnest.pressure.models import Fixture, Suite


def sample_seed(seed: int, fixture_id: str, epoch: int, arm: str) -> int:
    """The shuffle seed of one sample: (run seed, fixture, epoch, arm) — the epoch is part of it,
    so repeats are fresh samples and never a cached copy of epoch 0."""
    digest = hashlib.sha256(f"earnest:{seed}:{fixture_id}:{epoch}:{arm}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class Rendered:
    system: str
    user: str
    order: tuple[str, ...]

    @property
    def prompt_hash(self) -> str:
        return hashlib.sha256(f"{self.system}\0{self.user}".encode()).hexdigest()


def render(
    suite: Suite, fixture: Fixture, *, arm: str, seed: int | None, act: bool = False
) -> Rendered:
    from earnest.pressure.prompt import render_prompt

    if arm not in ("rule", "ablated"):
        raise ValueError(f"unknown arm {arm!r}")
    r = render_prompt(
        suite, fixture, arm="rule" if arm == "rule" else "ablated", seed=seed, act=act
    )
    return Rendered(system=r.system, user=r.user, order=tuple(r.order))


@dataclass(frozen=True, slots=True)
class Judged:
    verdict: str
    reason: str
    chosen: tuple[str, ...]
    rationalizations: tuple[str, ...]
    unmatched_failure: bool
    judgement: dict[str, Any]


def judge_reply(
    suite: Suite,
    fixture: Fixture,
    text: str,
    order: Sequence[str],
    *,
    did: Behaviour | None = None,
) -> Judged:
    """Judge ``text`` with ``earnest.pressure.verdict.judge`` (the one verdict function);
    ``did`` is what an acted-out sample did (the ``acted`` criterion)."""
    from earnest.pressure.verdict import judge

    j = judge(fixture, suite.rules, text, order=tuple(order), did=did)
    chosen = j.choices or ((j.choice,) if j.choice is not None else ())
    return Judged(
        verdict=j.verdict,
        reason=j.reason,
        chosen=tuple(chosen),
        rationalizations=tuple(m.excuse for m in j.matched_rationalizations),
        unmatched_failure=j.unmatched_failure,
        judgement=j.as_dict(),
    )


__all__ = ["Judged", "Rendered", "judge_reply", "render", "sample_seed"]
