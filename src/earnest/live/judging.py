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

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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


def render(suite: Suite, fixture: Fixture, *, arm: str, seed: int | None) -> Rendered:
    from earnest.pressure.prompt import render_prompt

    r = render_prompt(suite, fixture, arm=arm, seed=seed)  # type: ignore[arg-type]
    return Rendered(system=r.system, user=r.user, order=tuple(r.order))


@dataclass(frozen=True, slots=True)
class Judged:
    verdict: str
    reason: str
    chosen: tuple[str, ...]
    rationalizations: tuple[str, ...]
    judgement: dict[str, Any]


def judge_reply(suite: Suite, fixture: Fixture, text: str, order: Sequence[str]) -> Judged:
    from earnest.pressure.verdict import judge

    j = judge(fixture, suite.rules, text, order=tuple(order))
    data = _jsonable(j)
    chosen = getattr(j, "choices", None) or getattr(j, "chosen", None) or ()
    matched = getattr(j, "rationalizations", None) or ()
    return Judged(
        verdict=str(j.verdict),
        reason=str(getattr(j, "reason", "") or ""),
        chosen=tuple(str(c) for c in chosen),
        rationalizations=tuple(_excuse(m) for m in matched),
        judgement=data if isinstance(data, dict) else {"value": data},
    )


def _excuse(m: Any) -> str:
    return str(getattr(m, "excuse", m))


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


__all__ = ["Judged", "Rendered", "judge_reply", "render", "sample_seed"]
