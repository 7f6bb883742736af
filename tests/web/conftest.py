"""Fixtures for the browser tests (``browser.py``):

* ``browser``: Debian's headless Chromium, launched once per test file (its
  version is logged to stderr once per session: Debian's updates move it);
* ``page``: a page in a fresh context (1280x800 viewport, JavaScript on),
  closed after the test.

Not once per session: while the browser runs, its Playwright event loop is
the thread's running loop, and ``asyncio.run()``/``anyio.run()`` fail in it,
so a session-long browser would break every async test that a worker (or a
run without workers) takes after the browser tests.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from browser import launched
from playwright.sync_api import Browser, Page

_version_logged = False


@pytest.fixture(scope="module")
def browser(request: pytest.FixtureRequest) -> Iterator[Browser]:
    global _version_logged
    with launched() as launched_browser:
        if not _version_logged:
            _version_logged = True
            capture = request.config.pluginmanager.getplugin("capturemanager")
            with capture.global_and_fixture_disabled():
                print(f"zpm test: browser: Chromium {launched_browser.version}", file=sys.stderr)
        yield launched_browser


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, java_script_enabled=True)
    try:
        yield context.new_page()
    finally:
        context.close()
