"""Helpers for the browser tests: Debian's headless Chromium driven by Playwright.

* ``CHROMIUM``: the browser, Debian's ``chromium-headless-shell``
  (``scripts/provision-browser`` installs it; Playwright never downloads one).
* ``launched()``: a headless Playwright ``Browser`` (sync API) on it, closed
  on leaving the block; an ``AssertionError`` when the browser is missing.
* ``screenshot(page, name)``: a full-page PNG of ``page`` saved as
  ``test-artifacts/screenshots/<name>.png`` in the checkout; its path.

While a sync Playwright runs, its event loop counts as the thread's running
loop, so ``asyncio.run()`` (and anyio) fail in that thread until it stops.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium-headless-shell")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


@contextmanager
def launched() -> Iterator[Browser]:
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        raise AssertionError(
            f"{CHROMIUM} is missing: run scripts/provision-browser (as root) to install"
            " Debian's chromium-headless-shell"
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def screenshot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=path, full_page=True)
    return path
