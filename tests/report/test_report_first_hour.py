"""The report a new user opens: trajectories named by task and trial, a table that fits a
1,400 px window and sorts and searches, reading problems that name their files, unused excuses
folded, dimension bars; in a real browser, a screenshot per section with no console error and
no network request."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browserkit import launch_browser
from conftest import EXAMPLES, TRANSCRIPTS, run_earnest

SUITE = EXAMPLES / "suite"
TAU = TRANSCRIPTS / "tau-bench" / "taubench-gpt-4o-airline.json"
BAD_LINES = TRANSCRIPTS / "claude-code" / "mclaude-18240050-3ee8--create-app-shortcut.jsonl"
NOT_A_TRANSCRIPT = (
    TRANSCRIPTS / "mini-swe-agent" / "miniswe-deepseek-django__django-13660.swebench-report.json"
)
LONG = "a-claude-code-session-with-a-rather-long-descriptive-file-name-kept-by-its-owner.jsonl"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("first-hour")
    runs = root / "runs"
    runs.mkdir()
    for src in (TAU, BAD_LINES, NOT_A_TRANSCRIPT):
        shutil.copy(src, runs / src.name)
    shutil.copy(TRANSCRIPTS / "claude-code" / "drmaciver-coverage-test-fix.jsonl", runs / LONG)
    out = root / "report.html"
    proc = run_earnest(
        "report", "--suite", str(SUITE), "--trajectories", str(runs), "--dimensions", "all",
        "-o", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out


def test_several_runs_in_one_file_are_named_by_task_and_trial(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    names = re.findall(r'<td class="tname"[^>]*>([^<]*)</td>', html)
    tau = [n for n in names if n.startswith("taubench-gpt-4o-airline.json")]
    assert len(tau) == 13 and len(set(tau)) == 13
    assert "taubench-gpt-4o-airline.json · task-0-trial-0" in tau
    assert LONG in names  # one run in its file: the file name alone, whole


def test_reading_problems_name_their_files(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    notes = re.findall(r'<div class="warnbox">([^<]*)</div>', html)
    malformed = next(n for n in notes if "malformed" in n)
    assert BAD_LINES.name in malformed and "(5)" in malformed
    assert TAU.name in malformed  # its cut-off last entry
    unread = next(n for n in notes if "not transcripts" in n)
    assert NOT_A_TRANSCRIPT.name in unread


def test_unused_excuses_are_folded_and_dimensions_are_bars(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    section = html[html.index('<section id="rationalizations">') :]
    section = section[: section.index("</section>")]
    shown, _, folded = section.partition('<details class="unused"')
    assert folded and "never used" not in shown and "no failed reply" not in shown
    assert "never used" in folded or "no failed reply" in folded
    assert not re.search(r"\breco \d\.\d\d\b", html)  # no "reco 0.00 refu 1.00" text
    assert html.count('class="dim"') >= 4 * html.count('<tr class="titem"')


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


class Watched:
    def __init__(self, browser: Any, path: Path) -> None:
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.page.on(
            "console",
            lambda m: self.problems.append(m.text) if m.type in ("error", "warning") else None,
        )
        self.page.on("pageerror", lambda e: self.problems.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("html[data-ready]")


def _names(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        "#trajectories-table tr.titem:not(.hidden) td.tname", "els => els.map(e => e.textContent)"
    )


def test_trajectory_table_fits_sorts_and_searches(browser: Any, report: Path) -> None:
    w = Watched(browser, report)
    page = w.page
    try:
        page.locator("#trajectories").scroll_into_view_if_needed()
        assert page.evaluate("document.documentElement.scrollWidth") <= 1400
        table = page.locator("#trajectories-table").bounding_box()
        assert table is not None and table["x"] + table["width"] <= 1400
        for box in page.locator("#trajectories-table button.open").all():
            b = box.bounding_box()
            assert b is not None and b["x"] + b["width"] <= 1400  # no "open" button clipped

        def column(n: int) -> list[str]:
            return page.eval_on_selector_all(
                f"#trajectories-table tr.titem td:nth-child({n})",
                "els => els.map(e => e.textContent.trim())",
            )

        page.click("#trajectories-table th:has-text('tool calls')")
        calls = [int(x) for x in column(5)]
        assert calls == sorted(calls)
        page.click("#trajectories-table th:has-text('tool calls')")
        assert [int(x) for x in column(5)] == sorted(calls, reverse=True)
        page.click("#trajectories-table th:has-text('trajectory')")
        names = column(1)
        assert names == sorted(names, key=lambda s: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)])  # fmt: skip

        page.fill("#search-trajectories", "task-3")
        assert _names(page) and all("task-3" in n for n in _names(page))
        page.select_option("#filter-outcome", "backed")
        both = _names(page)
        assert all("task-3" in n for n in both)
        page.fill("#search-trajectories", "")
        page.select_option("#filter-outcome", "")
        assert len(_names(page)) == page.locator("#trajectories-table tr.titem").count()
        assert w.problems == []
    finally:
        w.context.close()


def test_every_section_renders_without_console_errors_or_requests(
    browser: Any, report: Path, tmp_path: Path
) -> None:
    w = Watched(browser, report)
    page = w.page
    try:
        ids = page.eval_on_selector_all("main section[id]", "els => els.map(e => e.id)")
        assert {"trajectories", "rationalizations"} <= set(ids), ids
        for sid in ids:
            shot = tmp_path / f"{sid}.png"
            page.locator(f"section#{sid}").screenshot(path=str(shot))
            assert shot.stat().st_size > 1000, sid
        assert page.locator("#unused-excuses").evaluate("d => d.open") is False
        page.click("#unused-excuses summary")
        assert page.locator("#unused-excuses tbody tr").first.is_visible()
        assert w.problems == []
        assert all(u.startswith("file:") for u in w.requests), w.requests
        assert len(w.requests) == 1  # the page itself: no image, font, script or style fetched
    finally:
        w.context.close()
