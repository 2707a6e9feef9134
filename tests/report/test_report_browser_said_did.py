"""The report's "Said versus did" section in a real headless browser (chromium, playwright):
no console error, the filter bar hides its rows, a row opens the viewer with what was said and
what was done, shown as text."""

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


def test_said_versus_did_in_a_browser(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "agentic.html"
    proc = run_earnest("report", "--suite", str(EXAMPLES / "agentic"), "--output", str(out))
    assert proc.returncode == 0, proc.stderr
    messages: list[tuple[str, str]] = []
    requests: list[str] = []
    context = browser.new_context(viewport={"width": 1300, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.on("console", lambda m: messages.append((m.type, m.text)))
    page.on("pageerror", lambda e: messages.append(("pageerror", str(e))))
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(out.resolve().as_uri())
        page.wait_for_selector("html[data-ready]")
        rows = page.locator("#said-did-table tr.sditem")
        assert rows.count() == 20  # two fixtures, eleven agents; the crasher's voids not replies
        # the filter bar applies to the section; the replies list still counts its own rows
        page.select_option("#filter-verdict", "fail-action")
        assert page.locator("#said-did-table tr.sditem:not(.hidden)").count() == 10
        assert page.locator("#replies-table tr.item:not(.hidden)").count() == 10
        # a row opens the viewer: said and did side by side, the commands as text
        page.locator("#said-did-table tr.sditem:not(.hidden)").first.click()
        viewer = page.locator("#viewer")
        assert viewer.is_visible()
        text = viewer.inner_text()
        assert "SAID VERSUS DID" in text.upper()
        assert "$ " in text and ("git merge" in text or "pytest" in text)
        page.screenshot(path=str(tmp_path / "said-did.png"))
        problems = [(t, m) for t, m in messages if t in ("error", "pageerror", "warning")]
        assert problems == []
        assert all(u.startswith("file:") for u in requests), requests
    finally:
        context.close()
