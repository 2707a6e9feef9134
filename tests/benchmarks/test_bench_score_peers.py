"""``benchmarks/bench_score_peers.py`` keeps working: each of its pieces on a tiny reply mix.

Not a timing test (no figure is asserted): every tool the benchmark times is run here once, as
the benchmark runs it, on 21 replies of the mix, and what it wrote is checked against what it
should have decided: earnest's results against the in-process verdicts, ``inspect score`` (the
real inspect_ai) and promptfoo against the check they were given, run here in Python. promptfoo
is used only when the pinned release is already in the cache (``.cache/peers/``, or
``EARNEST_PEERS_CACHE``); this test never installs it: it skips with the reason.
"""

from __future__ import annotations

import doctest
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import bench_score  # noqa: E402
import bench_score_peers as peers  # noqa: E402
import peer_inspect_scorer  # noqa: E402
import peer_promptfoo  # noqa: E402

from earnest.pressure.models import Fixture, Rule  # noqa: E402
from earnest.pressure.verdict import judge  # noqa: E402

Mix = tuple[list[tuple[Fixture, str]], dict[str, Rule]]
Found = tuple[list[peers.Peer], list[tuple[str, str]]]

N = 21  # three replies of each envelope


@pytest.fixture(scope="module")
def mix() -> Mix:
    return bench_score.build(N)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("peers")


@pytest.fixture(scope="module")
def found(work: Path, mix: Mix) -> Iterator[Found]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("EARNEST_PEERS", "0")  # whatever the cache holds, never call npm here
        yield peers.peers(work, mix[0], mix[1], install=False)


def expected_checks(mix: Mix) -> list[bool]:
    """What the peers must decide: their check, run here on the text they were given."""
    out = []
    for fixture, reply in mix[0]:
        exp = peers.expectations(fixture, mix[1])
        passed, _, _ = peer_inspect_scorer.check(
            peers.answer_text(reply), exp["target"], exp["cite"], peers.json.loads(exp["must"])
        )
        out.append(passed)
    return out


def agrees_where_clear(passes: list[bool], mix: Mix) -> None:
    """Where the plain check cannot differ from earnest, it does not: a pass without reasoning
    passes, a wrong option or no decision at all fails (an oracle apart from the check)."""
    for (fixture, reply), passed in zip(mix[0], passes, strict=True):
        verdict = judge(fixture, mix[1], reply).verdict
        if verdict == "pass" and "<think>" not in reply:
            assert passed, reply[-200:]
        if verdict in ("fail-choice", "fail-unparseable"):
            assert not passed, reply[-200:]


def by_name(found: Found, name: str) -> peers.Peer | None:
    return next((p for p in found[0] if p.name.startswith(name)), None)


@pytest.mark.parametrize("module", [peers, peer_inspect_scorer, peer_promptfoo])
def test_the_benchmark_modules_examples_hold(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_mix_has_passes_failures_and_envelopes(mix: Mix) -> None:
    verdicts = [judge(fx, mix[1], reply).verdict for fx, reply in mix[0]]
    assert "pass" in verdicts
    assert {v for v in verdicts if v != "pass"}, verdicts
    # Envelopes for earnest, the answer text for the peers.
    assert any(peers.answer_text(reply) != reply for _, reply in mix[0])


@pytest.mark.parametrize("name", ["earnest --jobs 1", "earnest (default jobs)"])
def test_earnest_as_the_benchmark_runs_it_writes_every_verdict(
    name: str,
    work: Path,
    mix: Mix,
    found: Found,
) -> None:
    peer = by_name(found, name)
    assert peer is not None
    timings, failed = peers.time_all([peer], work, 1, N, [])
    assert failed == []
    timing = timings[name]
    expected = [judge(fx, mix[1], reply).verdict == "pass" for fx, reply in mix[0]]
    assert timing.passes == expected
    assert timing.wall > 0 and timing.cpu > 0


def test_inspect_rescores_the_log_with_the_regex_scorer(
    work: Path,
    mix: Mix,
    found: Found,
) -> None:
    pytest.importorskip("inspect_ai")  # the dev extra has it: this runs in CI
    peer = by_name(found, "inspect score")
    assert peer is not None, found[1]
    expected = expected_checks(mix)
    assert True in expected and False in expected  # the check can fail, and does
    out = work / "inspect.eval"
    peers.run_once(peer, out, peers.network_off())  # once: Inspect takes seconds to start
    assert peer.read(out) == expected
    agrees_where_clear(expected, mix)


def test_promptfoo_runs_offline_on_the_recorded_outputs(
    work: Path,
    mix: Mix,
    found: Found,
) -> None:
    peer = by_name(found, "promptfoo")
    if peer is None:
        if peer_promptfoo.required():
            pytest.fail(f"{peer_promptfoo.REQUIRE_ENV} names promptfoo, but: {found[1]}")
        pytest.skip("; ".join(why for name, why in found[1] if name.startswith("promptfoo")))
    cut = peers.network_off()
    if not cut:
        pytest.skip("unshare -rn is not allowed here: cannot prove promptfoo stays offline")
    # Inside a namespace without any network: a promptfoo that needed one would fail here.
    out = work / "promptfoo.json"
    peers.run_once(peer, out, cut)
    assert peer.read(out) == expected_checks(mix)
    agrees_where_clear(peer.read(out), mix)
    data = peers.json.loads(out.read_text(encoding="utf-8"))
    rows = sorted(data["results"]["results"], key=lambda r: r["testIdx"])
    outputs = [r["response"]["output"] for r in rows]
    # promptfoo's prompt template drops the text's final newline (nunjucks trims it); nothing else.
    assert outputs == [peers.answer_text(reply).removesuffix("\n") for _, reply in mix[0]]


def test_a_peer_that_is_not_installed_is_skipped_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EARNEST_PEERS_CACHE", str(tmp_path / "empty"))
    exe, why = peer_promptfoo.install_promptfoo(allow=False)
    assert exe is None
    assert "promptfoo@" in why and "installing is off" in why
    assert not (tmp_path / "empty").exists()  # nothing was installed


def test_the_report_names_the_ratio_and_the_target(
    work: Path,
    found: Found,
) -> None:
    earnest = by_name(found, "earnest --jobs 1")
    assert earnest is not None
    base = peers.time_all([earnest], work, 1, N, [])[0]["earnest --jobs 1"]
    slow = peers.Timing(base.wall * 6, base.cpu * 6, [not p for p in base.passes])
    fast = peers.Timing(base.wall * 2, base.cpu * 2, base.passes)
    lines = peers.report(
        {"earnest --jobs 1": base, "peer slow": slow}, [("promptfoo x", "not here")], N
    )
    text = "\n".join(lines)
    assert "6.0x" in text and "0%" in text
    assert "promptfoo x: skipped: not here" in text
    assert "wall met, cpu met" in text
    lines = peers.report({"earnest --jobs 1": base, "peer slow": slow, "peer fast": fast}, [], N)
    assert "wall NOT met, cpu NOT met" in "\n".join(lines)
    assert "busy" not in text
    busy = "\n".join(peers.report({"earnest --jobs 1": base, "peer slow": slow}, [], N, (9.0, 2)))
    assert "busy (load 9.0 on 2 cores)" in busy
    lines = peers.report({"earnest --jobs 1": base}, [], N)
    assert "not measured (no peer ran)" in "\n".join(lines)
