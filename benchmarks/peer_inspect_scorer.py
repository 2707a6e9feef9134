"""The Inspect AI scorer ``bench_score_peers.py`` re-scores its log with: earnest's check, in regex.

The fairest deterministic equivalent of what ``earnest score`` decides, written the way an
Inspect user would (a ``@scorer`` over ``state.output.completion``): the ``CHOICE:`` letters of
the reply (any decoration, the full-width colon too) must be exactly the target, the reply must
cite the targeted rule (``Rule N`` or its title, the pattern the benchmark stored in the sample's
metadata as ``cite``) and contain every ``must_cite`` string (``must``, a JSON list). It reads
no envelope and splits off no reasoning: it does less than earnest, never more.

Loaded by ``inspect score LOG --scorer benchmarks/peer_inspect_scorer.py@earnest_choice``; only
inspect_ai and the standard library are imported, so the re-scoring process pays for nothing
else.
"""

from __future__ import annotations

import json
import re
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState

CHOICE = re.compile(r"CHOICE[\s*_`]*[:：][\s*_`]*([A-Z])\b")


def check(text: str, target: str, cite: str, must: list[str]) -> tuple[bool, str, str]:
    """(passed, letters chosen, reason) of ``text``: the check both peers run.

    >>> check("Per Rule 2: fix it.\\nCHOICE: B", "B", r"\\bRule\\s+2\\b", [])
    (True, 'B', 'pass')
    >>> check("CHOICE: A\\nCHOICE: B", "A", r"x", [])
    (False, 'A,B', 'choice')
    >>> check("It is the better choice.\\nCHOICE: B", "B", r"\\bRule\\s+2\\b", [])
    (False, 'B', 'citation')
    >>> check("Rule 2, so: CHOICE: B", "B", r"\\bRule\\s+2\\b", ["a test first"])
    (False, 'B', 'must_cite')
    """
    chosen = sorted(set(CHOICE.findall(text)))
    if not chosen:
        return False, "", "no_decision"
    if chosen != [target]:
        return False, ",".join(chosen), "choice"
    if re.search(cite, text, re.IGNORECASE) is None:
        return False, target, "citation"
    if any(m not in text for m in must):
        return False, target, "must_cite"
    return True, target, "pass"


@scorer(metrics=[accuracy()])
def earnest_choice() -> Any:
    """The choice + citation check of :func:`check` as an Inspect scorer."""

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        passed, answer, reason = check(
            state.output.completion, target.text, meta["cite"], json.loads(meta["must"])
        )
        return Score(value=CORRECT if passed else INCORRECT, answer=answer, explanation=reason)

    return score
