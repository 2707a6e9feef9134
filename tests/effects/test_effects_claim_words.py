"""The claim pre-check (earnest.effects.claim_words) never hides a claim the grammar finds.

The gate skips the claim grammar when :func:`may_claim` says the final message has no claim
word; these tests hold that the lazy path and the full path agree: on every message of the
real transcripts, on hand-made claims of each kind in odd casing, and on the gate's verdicts.
"""

from __future__ import annotations

import re

import pytest

from conftest import TRANSCRIPTS
from earnest.effects import EffectGate, EffectGateConfig, EvaluationDecision, EvaluationResult
from earnest.effects import gate as gate_module
from earnest.effects.actions import ACTION_VERBS
from earnest.effects.claim_words import TRIGGERS, may_claim
from earnest.effects.claims import extract_claims
from earnest.trajectory import ReadReport, Trajectory, iter_paths, read_trajectories

DONE = EvaluationResult(EvaluationDecision.COMPLETE, 0.9)


def _corpus() -> list[Trajectory]:
    return [
        t
        for path in sorted(iter_paths([TRANSCRIPTS]))
        for t in read_trajectories(path, report=ReadReport())
    ]


CORPUS = _corpus()


def test_no_message_of_the_real_transcripts_with_a_claim_fails_the_precheck() -> None:
    texts = {m.text for t in CORPUS for m in t.messages} | {t.final_message or "" for t in CORPUS}
    texts |= {s for text in list(texts) for s in re.split(r"(?<=[.!?])\s+|\n+", text)}
    skipped = claimed = 0
    for text in sorted(texts):
        found = extract_claims(text)
        if not may_claim(text):
            assert found == (), text
            skipped += 1
        claimed += bool(found)
    # both kinds are there: the check can fail, and the pre-check does skip work
    assert skipped > 100 and claimed > 100, (skipped, claimed)


@pytest.mark.parametrize(
    "text",
    [
        "I CREATED `src/util.py`.",
        "Rewrote app.py and reformatted setup.cfg.",
        "Renamed a.py to b.py.",
        "ALL TESTS PASS.",
        "The unit tests succeeded.",
        "86/86 GREEN",
        "12 passed, 0 failed.",
        "I RE-RAN pytest.",
        "I've run the linters.",
        "Executed `make check`.",
        "I've E-MAILED you the receipt.",
        "Your booking has been CANCELED.",
        "I've reſcheduled it.",  # long s: matches "s" under re.IGNORECASE
        "I've ſent it.",
        "I've fıxed app.py.",  # dotless i: matches "i" under re.IGNORECASE
    ],
)
def test_claims_in_any_casing_pass_the_precheck(text: str) -> None:
    assert extract_claims(text) != ()  # a claim the grammar finds ...
    assert may_claim(text)  # ... is never skipped


def test_git_claims_pass_the_precheck() -> None:
    for text in ("Committed the fix.", "I've COMMITTED it and pushed."):
        assert extract_claims(text) != () and may_claim(text), text


def test_every_action_verb_is_a_trigger() -> None:
    verbs = re.sub(r"e-\?", "e-", ACTION_VERBS).replace("l?", "l").split("|")
    for verb in verbs:
        assert any(word in verb for word in TRIGGERS), verb


def test_messages_without_a_claim_word_are_skipped() -> None:
    for text in ("Still done (3).", "Anything else?", "Here is the summary.", "", "   "):
        assert not may_claim(text) and extract_claims(text) == ()


def test_the_gate_judges_alike_with_and_without_the_precheck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def verdicts() -> list[tuple[str, str, str]]:
        out = []
        for t in CORPUS:
            for text in {t.final_message or "", "Still done.", "Anything else?"}:
                gate = EffectGate(EffectGateConfig(enabled=True), env={})
                gate.reset()
                gate.record(t.tool_results())
                result = gate.apply(DONE, content=text, request=t.user_request or "")
                out.append((result.decision.value, result.reason, repr(result.metadata)))
        return out

    lazy = verdicts()
    monkeypatch.setattr(gate_module, "may_claim", lambda text: True)  # the full path
    assert verdicts() == lazy
