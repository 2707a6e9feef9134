"""The secret rules written literal-first (:func:`earnest.redact.literal_first`) match exactly
what their plain form (the boundary lookbehind ``_START`` in front) matches, at the same places.

The plain form is rebuilt from each rule's source; both are run over generated texts made of the
rules' leads, token characters, JSON escapes and separators, over every test secret in its
contexts, and over the project's real transcripts.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from secretkit import SECRETS, everything

from conftest import TEST_DATA
from earnest import redact as R

BOUNDARY_OPEN = "(?:(?<![A-Za-z0-9_-]"


def plain_form(source: str) -> str:
    """The rule as it was written before: ``_START`` + lead + the rest."""
    at = source.find(BOUNDARY_OPEN)
    if at <= 0:
        return source
    lead = source[:at]
    boundary = f"(?:(?<![A-Za-z0-9_-]{lead})|(?<=\\\\[nrtbf]{lead}))"
    assert source[at:].startswith(boundary), source
    return R._START + lead + source[at + len(boundary) :]


REWRITTEN = [rule for rule in R.RULES if plain_form(rule.source) != rule.source]
PAIRS = [(rule, re.compile(plain_form(rule.source), rule.flags)) for rule in REWRITTEN]
LEADS = sorted({rule.source[: rule.source.find(BOUNDARY_OPEN)] for rule in REWRITTEN})


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def _same(text: str) -> None:
    for rule, plain in PAIRS:
        assert _spans(rule.pattern, text) == _spans(plain, text), (rule.id, text[:200])


def test_the_prefixed_rules_are_written_literal_first() -> None:
    # What the speed-up is for: most rules start with their literal lead, which re looks for.
    assert len(REWRITTEN) >= 25
    assert "sk-ant-" in LEADS and "eyJ" in LEADS and "gh" in LEADS
    for rule in R.RULES:
        if rule not in REWRITTEN and rule.source.startswith(R._START):
            assert not rule.source[len(R._START)][0].isalnum(), rule.id  # no literal lead


PIECES = [
    *LEADS,
    *(lead[:-1] for lead in LEADS if len(lead) > 1),
    "\\n", "\\t", "\\", "n", " ", '"', "=", ".", "~", ":", "/", "-", "_", "x", "Z", "7",
    "a" * 16, "A" * 16, "0" * 16, "f" * 32, "Ab3" * 12, "2" * 9, ":AA", "Q~", "T3BlbkFJ",
    "proj-", "ant-api03-", "_v1_", "api_", "_live_", "AgEIcHlwaS5vcmc",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_generated_texts_match_alike(text: str) -> None:
    _same(text)


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_every_test_secret_matches_alike_in_its_contexts(name: str) -> None:
    secret = SECRETS[name]
    for before in ("", " ", "x", "-", "_", "\\n", "\\t", '"', "a\\n", "\\\\n", "=", "/"):
        for after in ("", " ", "x", "-", '"', "\\n", "."):
            _same(before + secret + after)


def test_the_real_transcripts_redact_alike() -> None:
    texts = [everything()]
    for path in sorted((TEST_DATA / "transcripts").rglob("*.jsonl"))[:60]:
        texts.append(path.read_text(encoding="utf-8", errors="replace"))
    assert len(texts) > 20
    for text in texts:
        _same(text)
