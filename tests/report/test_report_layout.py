"""The HTML report's layout, checked in a real browser with screenshots (issue 26).

Sections come in the order a reader needs (summary, failures, then the suite's detail); no
badge, heading or label overlaps or is clipped by its cell; the dimension bars carry the
dimensions' names; the filter count counts samples only; an empty list in the said-versus-did
cell stands on its own line. Each check saves a screenshot in the test's temporary folder.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browserkit import launch_browser
from conftest import EXAMPLES, run_earnest


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("layout")
    main, agentic = root / "report.html", root / "agentic.html"
    made = run_earnest(
        "report", "--suite", str(EXAMPLES / "suite"), "--trajectories",
        str(EXAMPLES / "trajectories"), "--dimensions", "all", "--output", str(main),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    made = run_earnest("report", "--suite", str(EXAMPLES / "agentic"), "--output", str(agentic))
    assert made.returncode == 0, made.stderr
    return {"main": main, "agentic": agentic}


def _open(browser: Any, path: Path) -> tuple[Any, Any]:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready]")
    return context, page


def test_sections_come_summary_failures_then_detail(browser: Any, reports: dict[str, Path], tmp_path: Path) -> None:  # fmt: skip
    context, page = _open(browser, reports["main"])
    try:
        ids = page.eval_on_selector_all("main section[id]", "els => els.map(e => e.id)")
        assert ids[0] == "glance"
        # The agent runs' failures (completion without effect) come before coverage and lint.
        assert ids.index("trajectories") < ids.index("coverage") < ids.index("lint")
        assert ids.index("replies") < ids.index("coverage")
        toc = page.eval_on_selector_all("nav.toc a", "els => els.map(e => e.hash.slice(1))")
        assert toc == [i for i in toc if i in ids] and toc.index("trajectories") < toc.index("lint")
        page.screenshot(path=str(tmp_path / "top.png"))
    finally:
        context.close()


OVERFLOWS = """root => [...root.querySelectorAll(SEL)].filter(e => {
  const cell = e.closest('td, th'); if (!cell) return false;
  const a = e.getBoundingClientRect(), b = cell.getBoundingClientRect();
  return e.scrollWidth > e.clientWidth + 1 || a.right > b.right + 0.5 || a.left < b.left - 0.5;
}).map(e => e.textContent)"""


def test_trajectory_table_has_nothing_overlapping_or_clipped(browser: Any, reports: dict[str, Path], tmp_path: Path) -> None:  # fmt: skip
    context, page = _open(browser, reports["main"])
    try:
        table = page.locator("#trajectories-table")
        table.scroll_into_view_if_needed()
        for sel in ("span.badge", "th", "span.dn"):
            found = table.evaluate(OVERFLOWS.replace("SEL", repr(sel)))
            assert found == [], (sel, found)
        labels = page.eval_on_selector_all(
            "#trajectories-table tr.titem:first-child span.dn", "els => els.map(e => e.textContent)"
        )
        assert labels == ["planning", "tool grounding", "recovery", "refusal", "effect grounding"]
        badges = page.eval_on_selector_all(
            "#trajectories-table span.badge.completion_without_effect", "els => els.map(e => e.textContent)"
        )  # fmt: skip
        assert badges == ["without effect", "without effect"]
        table.screenshot(path=str(tmp_path / "trajectories.png"))
        assert (tmp_path / "trajectories.png").stat().st_size > 10_000
    finally:
        context.close()


def test_the_filter_count_counts_samples_once(browser: Any, reports: dict[str, Path], tmp_path: Path) -> None:  # fmt: skip
    context, page = _open(browser, reports["agentic"])
    try:
        # 20 samples (the two agentic fixtures), each in the replies list and in
        # said-versus-did: not "showing 20 of 40".
        assert page.locator("#filter-count").text_content() == "showing 20 of 20"
        page.select_option("#filter-verdict", "fail-action")
        assert page.locator("#filter-count").text_content() == "showing 10 of 20"
        page.screenshot(path=str(tmp_path / "filtered.png"))
    finally:
        context.close()


def test_said_versus_did_keeps_each_part_on_its_line(browser: Any, reports: dict[str, Path], tmp_path: Path) -> None:  # fmt: skip
    context, page = _open(browser, reports["agentic"])
    try:
        cells = page.locator("#said-did-table td.did")
        texts = [cells.nth(i).inner_text() for i in range(cells.count())]
        assert texts
        for text in texts:
            assert "noneworkspace" not in text.replace("\n", "") or "none\nworkspace diff" in text
            assert "diffnone" not in text and "nonen" not in text
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            assert "workspace diff" in lines, text  # a heading of its own
        page.locator("#said-did-table").screenshot(path=str(tmp_path / "said-did.png"))
    finally:
        context.close()
