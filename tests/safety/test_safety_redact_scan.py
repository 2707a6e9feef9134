"""Redaction looked for needle by needle in the text's bytes (``earnest.redact._Scan``) and, for
a rule without a literal lead, tried only where a match can start, finds exactly what the plain
rules find (issue 27, item 3).

The reference is the plain way: every rule in its plain form (``_START`` + lead + the rest, as
before it was written literal-first), run by ``re.sub`` over the whole text in order, with no
needle check at all; then :func:`earnest.redact.redact`, ``find`` and ``mask_text`` are
compared with it over generated texts (needles in every case, token characters, JSON escapes,
non-ASCII characters, lone surrogates), over every test secret in its contexts, and over the
project's real transcripts.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from secretkit import AWS_SECRET, SECRETS, everything
from test_safety_redact_lead import plain_form

from conftest import TEST_DATA
from earnest import redact as R

PLAIN = [(rule, re.compile(plain_form(rule.source), rule.flags)) for rule in R.RULES]
PAIR = re.compile(R._AWS_PAIR_SOURCE)
RULES = (R._AWS_PAIR, *R.RULES)


def _plain_redact(text: str) -> str:
    def pair(m: re.Match[str]) -> str:
        if not R._is_aws_secret(m):
            return m.group(0)
        s, e = m.start(1) - m.start(), m.end(1) - m.start()
        return m.group(0)[:s] + "[REDACTED:aws-secret-access-key]" + m.group(0)[e:]

    text = PAIR.sub(pair, text)
    for rule, pattern in PLAIN:

        def sub(m: re.Match[str], rule: R.Rule = rule) -> str:
            s, e = m.start(rule.group) - m.start(), m.end(rule.group) - m.start()
            return m.group(0)[:s] + f"[REDACTED:{rule.id}]" + m.group(0)[e:]

        text = pattern.sub(sub, text)
    return text


def _plain_find(text: str) -> list[tuple[str, str]]:
    out = [("aws-secret-access-key", m.group(1)) for m in PAIR.finditer(text)]
    for rule, pattern in PLAIN:
        out += [(rule.id, m.group(rule.group)) for m in pattern.finditer(text)]
    return out


def _plain_spans(text: str) -> list[tuple[int, int]]:
    out = [m.span(1) for m in PAIR.finditer(text)]
    for rule, pattern in PLAIN:
        out += [m.span(rule.group) for m in pattern.finditer(text)]
    return out


def _same(text: str) -> None:
    assert R.redact(text) == _plain_redact(text), text[:300]
    assert R.find(text) == _plain_find(text), text[:300]
    assert R._spans(text) == _plain_spans(text), text[:300]  # mask, mask_text, has_secret


def test_every_rule_without_a_literal_lead_says_where_it_starts() -> None:
    for rule in (R._AWS_PAIR, *R.RULES):
        if rule.source.startswith((R._START, "(?i)")):
            assert rule.starts, rule.id


def test_an_any_case_needle_is_matched_only_by_its_ascii_letters() -> None:
    # What lets _Scan look for any-case needles in bytes lowered A-Z only: under IGNORECASE no
    # other code point matches their letters (as "s" matches U+017F and "k" the Kelvin sign).
    letters = {c for rule in R.RULES if rule.any_case for n in rule.needles for c in n}
    assert letters >= set("ecret")
    for letter in letters:
        pattern = re.compile("(?i)" + re.escape(letter))
        found = {chr(c) for c in range(sys.maxunicode + 1) if pattern.fullmatch(chr(c))}
        assert found == {letter.lower(), letter.upper()}, (letter, found)


NEEDLES = sorted({n for rule in (R._AWS_PAIR, *R.RULES) for n in rule.needles})
PIECES = [
    *NEEDLES,
    *(n.upper() for n in NEEDLES),
    *(n[:-1] for n in NEEDLES if len(n) > 1),
    "\\n", "\\t", "\\", " ", '"', "=", ":", " = ", ".", "~", "/", "+", "-", "_", "x", "Z", "7",
    "a" * 16, "A" * 16, "0" * 16, "f" * 32, "Ab3" * 12, "2" * 9, "1234567890", "Q~",
    "aws_", "AWS_", "secret", "SECRET", "Secret_Access_Key", "bearer ", "BEARER ", "Bearer ",
    "_live_", "_test_", "AgEIcHlwaS5vcmc", "ant-api03-", "proj-", "v1-", "IOSFODNN7EXAMPLE",
    AWS_SECRET, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "é", "ſ", "\u212a", "İ", "😀", "\ud800", "日本",
]  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_generated_texts_redact_alike(text: str) -> None:
    _same(text)


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_every_test_secret_redacts_alike_in_its_contexts(name: str) -> None:
    secret = SECRETS[name]
    for before in ("", " ", "x", "-", "_", "\\n", "é", "😀", "bearer ", "aws_secret=", "= "):
        for after in ("", " ", "x", "-", '"', "\\n", ".", "😀", " " + AWS_SECRET):
            _same(before + secret + after)


def test_every_secret_together_in_any_case_context_redacts_alike() -> None:
    text = everything()
    _same(text)
    _same(text.upper())
    _same("😀" + text.replace("=", " = "))
    assert R.mask_text(text).count("*") > 100


def test_the_real_transcripts_redact_alike() -> None:
    # A small file whole; of a large one (the plain rules take seconds a megabyte), the lines
    # holding a needle, in order, up to 200,000 characters (still a real text).
    paths = sorted((TEST_DATA / "transcripts").rglob("*.jsonl"))
    assert len(paths) > 20
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        if len(text) > 150_000:
            lines = text.splitlines()
            text = "\n".join(x for x in lines if any(R._Scan(x).holds(r) for r in RULES))
            text = text[:200_000]
        _same(text)
