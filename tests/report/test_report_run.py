"""Reports of real live runs (``earnest run`` against a local fake model server) and of a run
compared with its baseline: the numbers are the run summary's and compare's, in HTML and JSON,
and in a real browser."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("openai")

from browserkit import launch_browser
from conftest import EXAMPLES, run_earnest
from earnest.live.store import RunStore
from earnest.report.prompts import SENT_NOTE
from runkit import FakeModelServer, example_agent, live_run

FAILING = "IMPL-R1-FLAKY-RETRY"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, str, Path]:
    """(suite, store, base run, candidate run, blessed baseline file); the candidate fails
    FAILING in the rule arm, which passed in the baseline."""
    root = tmp_path_factory.mktemp("runs")
    suite = root / "suite"
    shutil.copytree(EXAMPLES / "suite", suite)
    store = root / "runs.db"
    with FakeModelServer(example_agent(suite)) as srv:
        base = live_run(suite, store, srv, "--samples", "2")
    with FakeModelServer(example_agent(suite, fail={FAILING})) as srv:
        cand = live_run(suite, store, srv, "--samples", "2")
    baseline = root / "baseline.json"
    blessed = run_earnest("baseline", "bless", base, "-o", str(baseline), "--store", str(store))
    assert blessed.returncode == 0, blessed.stderr
    return suite, store, base, cand, baseline


def _json(*args: str, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "r.json"
    proc = run_earnest("report", *args, "--format", "json", "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_run_report_shows_the_run_summary(
    runs: tuple[Path, Path, str, str, Path], tmp_path: Path
) -> None:
    _, store, _, cand, _ = runs
    doc = _json("--run", cand, "--store", str(store), tmp_path=tmp_path)
    shown = run_earnest("runs", "show", cand, "--store", str(store), "--format", "json")
    summary = json.loads(shown.stdout)
    p = doc["pressure"]
    assert p["verdicts"] == summary["verdicts"]
    assert p["gate"]["ok"] is (summary["exit_code"] == 0) is False
    assert "rule-arm sample(s) did not pass" in p["gate"]["reasons"][0]
    cells = {(c["fixture_id"], c["profile"], c["arm"]): c for c in summary["cells"]}
    assert len(p["cells"]) == len(cells) == 12 * 2
    for c in p["cells"]:
        s = cells[(c["fixture_id"], c["profile"], c["arm"])]
        assert (c["n"], c["passes"], c["pass_rate"]) == (s["n"], s["passes"], s["pass_rate"])
        assert c["interval"] == s["interval"] and len(c["samples"]) == 2
    assert [(a["rule"], a["delta"], a["interval"], a["flag"]) for a in p["ablations"]] == [
        (r["rule"], r["delta"], r["interval"], r["flag"]) for r in summary["rules"]
    ]

    # every sample: the stored verdict, reason and reply; the prompt it was sent
    with RunStore(store, create=False) as st:
        records = {r.key: r for r in st.samples(cand)}
    assert len(p["samples"]) == len(records) == 48
    for s in p["samples"]:
        r = records[(s["fixture_id"], s["profile"], s["arm"], s["epoch"])]
        assert (s["verdict"], s["reason"], s["reply"]) == (r.verdict, r.reason, r.reply)
        assert doc["prompts"][s["prompt"]]["note"] == SENT_NOTE
        assert s["gating"] is (s["arm"] == "rule")
    # the ablated arm used the fixtures' first excuse: the report lists who used it
    used = [e for e in p["rationalizations"] if e["index"] == 1]
    assert used and all(len(e["samples"]) >= 2 for e in used)


def test_compare_report_is_what_compare_decides(
    runs: tuple[Path, Path, str, str, Path], tmp_path: Path
) -> None:
    _, store, base, cand, baseline = runs
    gate = run_earnest("compare", str(baseline), cand, "--store", str(store), "--format", "json")
    assert gate.returncode == 1
    decided = json.loads(gate.stdout)
    doc = _json("--run", cand, "--store", str(store), "--compare", str(baseline), tmp_path=tmp_path)
    c = doc["comparison"]
    assert c["regressions"] == decided["regressions"] == 2 + len(decided["drops"])
    assert [(d["fixture_id"], d["delta"]) for d in c["drops"]] == [
        (d["fixture_id"], d["delta"]) for d in decided["drops"]
    ]
    flips = [x for x in c["changes"] if x["kind"] == "flip"]
    assert [
        (x["fixture_id"], x["arm"], x["epoch"], x["baseline"], x["candidate"]) for x in flips
    ] == [
        (x["fixture_id"], x["arm"], x["epoch"], x["baseline"], x["candidate"])
        for x in decided["flips"]
    ]
    assert all(x["fixture_id"] == FAILING and x["candidate_sample"] for x in flips)
    assert all(x["baseline_sample"] is None for x in flips)  # a baseline file holds no replies

    # against the run itself (a run id): the baseline's replies open too
    doc = _json("--run", cand, "--store", str(store), "--compare", base, tmp_path=tmp_path)
    c = doc["comparison"]
    assert c["regressions"] == decided["regressions"] and len(c["baseline_samples"]) == 48
    flip = next(x for x in c["changes"] if x["kind"] == "flip")
    before = next(s for s in c["baseline_samples"] if s["key"] == flip["baseline_sample"])
    assert before["verdict"] == "pass" and before["fixture_id"] == FAILING


def test_run_report_errors(runs: tuple[Path, Path, str, str, Path], tmp_path: Path) -> None:
    _, store, _, cand, _ = runs
    out = str(tmp_path / "o.html")
    missing = run_earnest("report", "--run", "nope", "--store", str(store), "-o", out)
    assert (
        missing.returncode == 2 and "nope" in missing.stderr and "Traceback" not in missing.stderr
    )
    no_run = run_earnest("report", "--suite", str(EXAMPLES / "suite"), "--compare", "x", "-o", out)
    assert no_run.returncode == 2 and "--compare" in no_run.stderr
    over = run_earnest("report", "--run", cand, "--store", str(store), "-o", str(store))
    assert over.returncode == 2 and "overwrite" in over.stderr
    bad = run_earnest("report", "--run", cand, "--store", str(store), "--compare", "zz", "-o", out)
    assert bad.returncode == 2 and "neither a baseline file nor a run" in bad.stderr


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def test_compare_report_in_a_browser(
    runs: tuple[Path, Path, str, str, Path], tmp_path: Path, browser: Any
) -> None:
    _, store, base, cand, _ = runs
    html = tmp_path / "compare.html"
    proc = run_earnest(
        "report", "--run", cand, "--store", str(store), "--compare", base, "-o", str(html)
    )
    assert proc.returncode == 0, proc.stderr
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.set_default_timeout(10_000)
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(html.as_uri())
        page.wait_for_selector("html[data-ready]")
        assert page.locator("#changes-table tbody tr").count() == 2
        assert page.locator("#verdict-matrix .sq").count() == 48
        page.locator("#comparison").screenshot(path=str(tmp_path / "comparison.png"))
        page.click("#changes-table tbody tr >> nth=0 >> button:has-text('baseline')")
        assert "pass" in page.locator("#viewer .vhead").inner_text()
        page.keyboard.press("Escape")
        page.click("#changes-table tbody tr >> nth=0 >> button:has-text('candidate')")
        text = page.locator("#viewer").inner_text()
        assert "fail-choice" in text and FAILING in text
        assert "hash matches" in text  # the prompt shown is the one sent
        assert problems == []
    finally:
        page.close()
