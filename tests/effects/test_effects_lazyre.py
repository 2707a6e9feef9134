""":mod:`earnest.lazyre`: patterns compiled at first use; the gated ones (the runner summaries
of :mod:`earnest.effects.test_counts` and the other patterns given needles) are tried only on
texts holding a needle: every string a pattern matches must hold one, and gating must change
no summary read from real outputs."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import earnest
from earnest.effects import test_counts
from earnest.effects.test_counts import claimed_counts, parse_run_summaries
from earnest.lazyre import LazyPattern

CLAIMS = Path(__file__).resolve().parents[1] / "data" / "claims"


def _patterns() -> dict[str, LazyPattern]:
    """Every lazy pattern earnest defines: each module's named ones, and test_counts' markers."""
    found: dict[str, LazyPattern] = {}
    for info in pkgutil.walk_packages(earnest.__path__, "earnest."):
        if ".integrations." in info.name or info.name.endswith("__main__"):
            continue  # framework extras, and the entry point
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue  # an optional extra not installed
        for name, value in vars(module).items():
            if isinstance(value, LazyPattern):
                found[f"{info.name}.{name}"] = value
    for i, marker in enumerate(test_counts._MARKERS):
        found[f"earnest.effects.test_counts marker {i} ({marker[1]})"] = marker[0]
    return found


PATTERNS = _patterns()
GATED = {name: rx for name, rx in PATTERNS.items() if rx.needles}


def test_the_runner_patterns_are_gated() -> None:
    """The summaries and markers are gated (a new one written with re.compile would compile
    at every stop that imports the module), and the claim words are lazy."""
    assert sum(1 for name in GATED if ".test_counts" in name) >= 35
    assert not [n for n, v in vars(test_counts).items() if isinstance(v, re.Pattern)]
    assert {"earnest.effects.claimed.HEDGE", "earnest.effects.actions._ACTION"} <= set(PATTERNS)


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_lazy_pattern_compiles(name: str) -> None:
    """A pattern compiled at first use fails then, not at import: each one compiles here."""
    assert PATTERNS[name].compile().pattern == PATTERNS[name].source


@pytest.mark.parametrize("name", sorted(GATED))
def test_every_string_a_gated_pattern_matches_holds_a_needle(name: str) -> None:
    rx = GATED[name]
    pattern = re.compile(rx.source, rx.flags)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(pattern, fullmatch=True))
    def check(text: str) -> None:
        assert any(needle in text for needle in rx.needles), (name, text)
        assert rx.compiled(text) is not None

    check()


def test_a_text_without_a_needle_is_not_scanned() -> None:
    rx = LazyPattern(r"^Ran (\d+) tests?", "Ran ", flags=re.M)
    assert rx.compiled("ran 3 tests") is None and rx.search("ran 3 tests") is None
    assert list(rx.finditer("")) == [] and rx.findall("x") == [] and rx.sub("", "ab") == "ab"
    assert rx.match("x") is None and rx.fullmatch("x") is None and rx.split("a") == ["a"]
    assert not rx.compiled_now  # no text held the needle: never compiled
    found = rx.search("ok\nRan 3 tests")
    assert found is not None and found.group(1) == "3" and rx.compiled_now


def test_a_lazy_pattern_does_what_its_compiled_pattern_does() -> None:
    texts = ["", "a b", "I have fixed it. Then done!", "x\ny z\n", "Ran 3 tests\nRan 4 tests"]
    for source, flags in [(r"\s+", 0), (r"(\w+) (\w+)", 0), (r"^R\w+", re.M), (r"(?i)done", 0)]:
        lazy, plain = LazyPattern(source, flags=flags), re.compile(source, flags)
        for text in texts:
            assert lazy.split(text) == plain.split(text)
            assert lazy.findall(text) == plain.findall(text)
            assert lazy.sub("-", text) == plain.sub("-", text)
            spans = [m.span() for m in lazy.finditer(text)]
            assert spans == [m.span() for m in plain.finditer(text)]
            for name in ("search", "match", "fullmatch"):
                got, want = getattr(lazy, name)(text), getattr(plain, name)(text)
                assert (got and got.span()) == (want and want.span()), (source, text, name)


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
    monkeypatch.setattr(LazyPattern, "compiled", lambda self, text: self.compile())
    assert [parse_run_summaries(o) for o in outputs] == gated
    assert [claimed_counts(s) for s in sentences] == claims
