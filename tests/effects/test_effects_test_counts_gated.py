"""The runner patterns of :mod:`earnest.effects.test_counts` are tried only on outputs holding
one of their needles: every string a pattern matches must hold one, and gating must change no
summary read from real outputs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from earnest.effects import test_counts
from earnest.effects.test_counts import Gated, claimed_counts, parse_run_summaries

CLAIMS = Path(__file__).resolve().parents[1] / "data" / "claims"


def _gated() -> dict[str, Gated]:
    """Every gated pattern of the module: its named ones and its markers'."""
    found = {name: v for name, v in vars(test_counts).items() if isinstance(v, Gated)}
    for i, marker in enumerate(test_counts._MARKERS):
        found[f"marker {i} ({marker[1]})"] = marker[0]
    return found


GATED = {name: rx for name, rx in _gated().items() if rx.needles}


def test_the_module_gates_its_runner_patterns() -> None:
    """The summaries and markers are gated (a new one written with re.compile would compile
    at every stop that imports the module)."""
    assert len(GATED) >= 35
    assert not [
        name for name, value in vars(test_counts).items() if isinstance(value, re.Pattern)
    ]


@pytest.mark.parametrize("name", sorted(GATED))
def test_every_string_a_pattern_matches_holds_a_needle(name: str) -> None:
    rx = GATED[name]
    pattern = re.compile(rx.source, rx.flags)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(pattern, fullmatch=True))
    def check(text: str) -> None:
        assert any(needle in text for needle in rx.needles), (name, text)
        assert rx.compiled(text) is not None

    check()


def test_a_text_without_a_needle_is_not_scanned() -> None:
    rx = Gated(r"^Ran (\d+) tests?", "Ran ")
    assert rx.compiled("ran 3 tests") is None and rx.search("ran 3 tests") is None
    assert list(rx.finditer("")) == [] and rx.findall("x") == [] and rx.sub("", "ab") == "ab"
    found = rx.search("ok\nRan 3 tests")
    assert found is not None and found.group(1) == "3"


def test_gating_changes_no_summary_of_real_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each real runner output in tests/data/claims (and each with ANSI colours and a shell
    tool's label), read gated and with every pattern always tried: the same summaries."""
    outputs = [p.read_text(encoding="utf-8") for p in sorted(CLAIMS.glob("*.txt"))]
    assert len(outputs) >= 20
    outputs += ["Output: " + o.replace("passed", "\x1b[32mpassed\x1b[0m") for o in outputs]
    sentences = ["All 4966/4966 tests PASSED.", "12 passed, 1 failed", "all tests pass",
                 "all 40 tests are green", "Nothing was run."]  # fmt: skip
    gated = [parse_run_summaries(o) for o in outputs]
    claims = [claimed_counts(s) for s in sentences]
    assert sum(1 for g in gated if g) >= 20  # the outputs do print summaries
    monkeypatch.setattr(Gated, "compiled", lambda self, text: re.compile(self.source, self.flags))
    assert [parse_run_summaries(o) for o in outputs] == gated
    assert [claimed_counts(s) for s in sentences] == claims
