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

from earnest.pressure.envelopes import StopReason
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


def render_in(
    suite: Suite, fixture: Fixture, *, arm: str, order: Sequence[str], act: bool = False
) -> Rendered:
    """The prompt ``fixture`` renders to for ``arm`` with the options in ``order`` (choice ids
    as displayed): the prompt a reply in that order answered."""
    from earnest.pressure.prompt import render_prompt

    r = render_prompt(
        suite, fixture, arm="rule" if arm == "rule" else "ablated", order=order, act=act
    )
    return Rendered(system=r.system, user=r.user, order=tuple(r.order))


def sent_prompt(
    suite: Suite, fixture: Fixture, *, arm: str, order: Sequence[str], sent_hash: str
) -> tuple[Rendered, bool]:
    """The prompt a stored sample was sent, re-rendered from ``suite``, and whether its hash
    is ``sent_hash`` (the run's record): a question-only or an acted-out sample
    (:data:`~earnest.pressure.prompt.ACT_INSTRUCTION`) alike, in the order the sample records.
    When neither matches, the suite changed since the run: the question-only rendering comes
    back with ``False``. The one place export and report find the prompt sent.

    Example:
        >>> from earnest.pressure.suite import load_suite  # doctest: +SKIP
        >>> sent_prompt(suite, f, arm="rule", order=("B", "A"), sent_hash=h)  # doctest: +SKIP
        (Rendered(...), True)
    """
    plain = render_in(suite, fixture, arm=arm, order=order)
    if plain.prompt_hash == sent_hash:
        return plain, True
    acted = render_in(suite, fixture, arm=arm, order=order, act=True)
    if acted.prompt_hash == sent_hash:
        return acted, True
    return plain, False


@dataclass(frozen=True, slots=True)
class Judged:
    verdict: str
    reason: str
    chosen: tuple[str, ...]
    rationalizations: tuple[str, ...]
    unmatched_failure: bool
    judgement: dict[str, Any]

    @property
    def truncated(self) -> bool:
        """Cut off at the token limit before any decision: void in a live run."""
        return self.judgement.get("unparseable_reason") == "truncated"


def judge_reply(
    suite: Suite,
    fixture: Fixture,
    text: str,
    order: Sequence[str],
    *,
    did: Behaviour | None = None,
    stop: StopReason | None = None,
) -> Judged:
    """Judge ``text`` with ``earnest.pressure.verdict.judge`` (the one verdict function), under
    the suite's citation settings; ``did`` is what an acted-out sample did (the ``acted``
    criterion); ``stop`` is how the provider said the reply ended.

    ``truncated`` is set when the reply was cut at its token limit before any decision: the
    harness cut it, so the runner records the sample as void rather than as the agent's
    failure. A refusal is the model's answer and stays a verdict."""
    from earnest.pressure.verdict import judge
    from earnest.pressure.workspaces import template_texts

    j = judge(
        fixture,
        suite.rules,
        text,
        order=tuple(order),
        citation=suite.config.citation,
        citations_from_reasoning=suite.config.citations_from_reasoning,
        stop=stop,
        did=did,
        template=template_texts(suite, fixture) if did is not None else None,
    )
    chosen = j.choices or ((j.choice,) if j.choice is not None else ())
    return Judged(
        verdict=j.verdict,
        reason=j.reason,
        chosen=tuple(chosen),
        rationalizations=tuple(m.excuse for m in j.matched_rationalizations),
        unmatched_failure=j.unmatched_failure,
        judgement=j.as_dict(),
    )


__all__ = [
    "Judged",
    "Rendered",
    "judge_reply",
    "render",
    "render_in",
    "sample_seed",
    "sent_prompt",
]
