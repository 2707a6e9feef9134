"""The prompts a report shows beside its replies, rendered once and shared.

Prompts come from the one renderer, :func:`earnest.pressure.prompt.render_prompt` (through
:func:`earnest.live.judging.sent_prompt`, which finds an acted-out sample's prompt too), in the
option order the sample records. A live run stores the hash of what it sent
(:attr:`earnest.live.judging.Rendered.prompt_hash`): when the re-rendered prompt has the same
hash, it is exactly the prompt sent; when not, the suite changed since, and the report says so.

Example:
    >>> book = PromptBook(load_suite("examples/suite"))  # doctest: +SKIP
    >>> book.key(fixture, "rule", None)  # doctest: +SKIP
    'p1'
"""

from __future__ import annotations

from collections.abc import Sequence

from earnest.errors import InputError
from earnest.live.judging import render_in, sent_prompt
from earnest.pressure.models import Fixture, Suite
from earnest.report.model import Prompt

RECORDED_NOTE = (
    "Rendered from the suite as it is now, in the option order the reply records; a recorded "
    "reply does not carry its prompt, so an agent doc edited since is shown as edited."
)
SENT_NOTE = "The prompt this sample was sent (re-rendered; its hash matches the run's record)."
CHANGED_NOTE = (
    "The suite changed since the run: this is the prompt as it renders now, which differs from "
    "the one sent (its hash does not match the run's record)."
)


class PromptBook:
    """Prompts rendered once per (fixture, arm, order) and shared by every sample."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self.prompts: dict[str, Prompt] = {}
        self._keys: dict[tuple[str, str, tuple[str, ...], str | None], str | None] = {}

    def key(
        self,
        fixture: Fixture,
        arm: str,
        order: Sequence[str] | None,
        sent_hash: str | None = None,
    ) -> str | None:
        """The key of the prompt ``fixture`` renders to for ``arm`` in ``order``; ``sent_hash``
        is the hash of the prompt a live run sent (``None`` for a recorded reply)."""
        shown = tuple(order) if order else fixture.choice_ids
        k = (fixture.id, arm, shown, sent_hash)
        if k not in self._keys:
            self._keys[k] = self._render(fixture, arm, shown, sent_hash)
        return self._keys[k]

    def _render(
        self, fixture: Fixture, arm: str, order: tuple[str, ...], sent_hash: str | None
    ) -> str | None:
        try:
            if sent_hash is None:
                p = render_in(self.suite, fixture, arm=arm, order=order)
                note = RECORDED_NOTE
            else:
                # An acted-out sample was sent the act instructions too (one lookup for all).
                p, matched = sent_prompt(
                    self.suite, fixture, arm=arm, order=order, sent_hash=sent_hash
                )
                note = SENT_NOTE if matched else CHANGED_NOTE
        except InputError:
            return None  # an agent doc that is gone, an order that no longer fits: nothing to show
        key = f"p{len(self.prompts) + 1}"
        self.prompts[key] = Prompt(p.system, p.user, note)
        return key


__all__ = ["CHANGED_NOTE", "RECORDED_NOTE", "SENT_NOTE", "PromptBook"]
