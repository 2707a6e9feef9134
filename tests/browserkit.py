"""A real headless browser for report tests: Debian's chromium driven by playwright.

The browser is the system's (``apt-get install chromium``); ``playwright install`` is never run.
When chromium or playwright is missing the tests skip with the reason, unless
``EARNEST_REQUIRE_BROWSER=1`` (set by ``.ci/run`` when it installed chromium): then they fail.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    explicit = os.environ.get("EARNEST_CHROMIUM")
    if explicit:
        return explicit
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = (
            shutil.which(name)
            if not name.startswith("/")
            else (name if Path(name).exists() else None)
        )
        if found:
            return found
    return None


def _unavailable(reason: str) -> None:
    if os.environ.get("EARNEST_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser required (EARNEST_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


def launch_browser() -> Iterator[Any]:
    """Yield a playwright Browser (for a module-scoped fixture)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[browser]')")
        return
    path = chromium_path()
    if path is None:
        _unavailable("chromium is not installed (apt-get install chromium)")
        return
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        except Exception as exc:  # the launch error names the cause (missing libraries, ...)
            _unavailable(f"chromium at {path} did not start: {str(exc).splitlines()[0]}")
            return
        try:
            yield browser
        finally:
            browser.close()
