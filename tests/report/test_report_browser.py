"""The HTML report in a real headless browser (Debian's chromium, driven by playwright).

Loads with no console errors and no network request, the matrix renders, the filters work,
replies open with their prompt, hostile replies stay text; a screenshot is taken.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile import EVIL_MODEL, EVIL_REPLY, hostile_suite

from browserkit import launch_browser
from conftest import EXAMPLES, run_earnest
from earnest.pressure.check import run_check
from earnest.pressure.envelopes import unwrap_envelope
from earnest.pressure.suite import load_suite

SUITE = EXAMPLES / "suite"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


class Page:
    """A page that records console messages, page errors, dialogs and every request."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.messages: list[tuple[str, str]] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.context = browser.new_context(viewport={"width": 1300, "height": 1000})
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.page.on("console", lambda m: self.messages.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.messages.append(("pageerror", str(e))))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", self._dialog)
        self.page.goto(path.resolve().as_uri())
        self.page.wait_for_selector("html[data-ready]")

    def _dialog(self, d: Any) -> None:
        self.dialogs.append(d.message)
        d.dismiss()

    def problems(self) -> list[tuple[str, str]]:
        return [(t, m) for t, m in self.messages if t in ("error", "pageerror", "warning")]

    def close(self) -> None:
        self.context.close()


def _report(tmp_path: Path, suite: Path) -> Path:
    out = tmp_path / "report.html"
    proc = run_earnest("report", "--suite", str(suite), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_example_report_in_a_browser(browser: Any, tmp_path: Path) -> None:
    check = run_check(load_suite(SUITE))
    assert check.score is not None
    replies = check.score.replies
    page = Page(browser, _report(tmp_path, SUITE))
    pg = page.page
    try:
        assert page.problems() == []
        assert all(u.startswith("file:") for u in page.requests), page.requests

        # the matrix: a row per fixture with replies, a square per reply, coloured by verdict
        fixtures = {r.record.fixture_id for r in replies}
        assert pg.locator("#verdict-matrix tbody tr").count() == len(fixtures)
        assert pg.locator("#verdict-matrix .sq").count() == len(replies)
        assert (
            pg.locator("#verdict-matrix .sq.fail-choice").count()
            == check.score.counts["fail-choice"]
        )
        assert pg.locator("#verdict-matrix .sq").first.is_visible()
        assert pg.locator("#rates svg circle").count() >= 3
        assert pg.locator("#coverage svg rect").count() >= 10

        shot = tmp_path / "report.png"
        pg.screenshot(path=str(shot), full_page=False)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000

        # filter by verdict: only those replies stay listed
        rows = pg.locator("#replies-table tr.item")
        assert rows.count() == len(replies)
        pg.select_option("#filter-verdict", "fail-choice")
        visible = pg.locator("#replies-table tr.item:not(.hidden)")
        assert visible.count() == check.score.counts["fail-choice"]
        assert pg.locator("#filter-count").inner_text() == (
            f"showing {check.score.counts['fail-choice']} of {len(replies)}"
        )
        assert "fail-choice=" not in pg.url and "verdict=fail-choice" in pg.url
        # the matrix dims the squares of other verdicts
        assert pg.locator("#verdict-matrix .sq.pass.dim").count() == check.score.counts["pass"]

        # filter by fixture and profile: the matrix keeps that row only
        pg.click('[data-act="reset"]')
        assert visible.count() == len(replies)
        pg.select_option("#filter-fixture", "OPS-R5-TOKEN-IN-TICKET")
        assert pg.locator("#verdict-matrix tbody tr:not(.hidden)").count() == 1
        pg.select_option("#filter-profile", "claude-sonnet-4-5")
        expected = [
            r
            for r in replies
            if r.record.fixture_id == "OPS-R5-TOKEN-IN-TICKET"
            and r.record.model == "claude-sonnet-4-5"
        ]
        assert visible.count() == len(expected) == 2

        # open a reply: the viewer shows its text, verdict and the prompt it answered
        pg.click('[data-act="reset"]')
        target = replies[1]
        pg.click(
            f'#verdict-matrix tr[data-fixture="{target.record.fixture_id}"] '
            f'td.cell[data-profile="{target.record.model}"][data-arm="rule"] .sq'
        )
        viewer = pg.locator("#viewer")
        assert viewer.is_visible()
        text = viewer.inner_text()
        reply_text = unwrap_envelope(target.record.response).text
        assert reply_text.splitlines()[0] in text
        assert target.judgement.reason in text
        assert "PROMPT IT ANSWERED" in text.upper() and "CHOICE: <letter>" in text
        pg.screenshot(path=str(tmp_path / "viewer.png"))
        pg.click('#viewer [data-act="next"]')
        assert "open=r" in pg.url
        pg.keyboard.press("Escape")
        assert not viewer.is_visible()

        # clicking a matrix cell lists that cell's replies
        pg.click(
            '#verdict-matrix tr[data-fixture="IMPL-R1-FLAKY-RETRY"] td.cell[data-arm="rule"]'
            '[data-profile="claude-sonnet-4-5"] .n'
        )
        assert visible.count() == 2
        assert page.problems() == []
    finally:
        page.close()


def test_hostile_replies_stay_text_in_a_browser(browser: Any, tmp_path: Path) -> None:
    page = Page(browser, _report(tmp_path, hostile_suite(tmp_path / "suite")))
    pg = page.page
    try:
        assert page.problems() == []
        assert pg.evaluate("typeof window.__pwned") == "undefined"
        assert page.dialogs == []
        # the model name is a column header and a filter option, shown as text
        assert EVIL_MODEL in pg.locator("#verdict-matrix thead").inner_text()
        pg.select_option("#filter-profile", EVIL_MODEL)
        assert pg.locator("#replies-table tr.item:not(.hidden)").count() == 1
        pg.click("#replies-table tr.item:not(.hidden) button.open")
        pre = pg.locator("#viewer pre").first
        shown = pre.inner_text()
        assert "<script>window.__pwned='reply'</script>" in shown
        assert "<img src=x onerror=\"window.__pwned='img'\">" in shown
        assert shown.startswith(EVIL_REPLY.split("\n")[0])
        assert pg.locator("#viewer img, #viewer iframe, #viewer b, main img").count() == 0
        # the enveloped reply: unwrapped text shown as text, the raw envelope kept
        pg.keyboard.press("Escape")
        pg.click('[data-act="reset"]')
        pg.click('#replies-table tr.item[data-key="r3"] button.open')
        assert "<b>bold</b>" in pg.locator("#viewer").inner_text()
        assert pg.locator("#viewer details summary", has_text="Raw reply").count() == 1
        assert pg.evaluate("typeof window.__pwned") == "undefined"
        assert all(u.startswith("file:") for u in page.requests), page.requests
        assert page.problems() == []
        pg.screenshot(path=str(tmp_path / "hostile.png"))
    finally:
        page.close()
