"""The browser tests' groundwork: headless Chromium opens a page served on
loopback, runs its script on a click and takes a screenshot."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from browser import screenshot
from playwright.sync_api import Page, expect

PAGE = b"""<!doctype html>
<html>
<head><meta charset="utf-8"><title>zpm browser smoke test</title></head>
<body>
<p id="status">not clicked</p>
<button id="go" type="button">Click</button>
<script>
document.getElementById("go").addEventListener("click", () => {
    document.getElementById("status").textContent = "clicked";
});
</script>
</body>
</html>
"""


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _served() -> Iterator[str]:
    """``PAGE``'s URL on 127.0.0.1 and a free port, served by a thread."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_click_runs_the_page_script_and_a_screenshot_is_saved(page: Page) -> None:
    with _served() as url:
        page.goto(url)
        status = page.locator("#status")
        expect(status).to_have_text("not clicked")
        page.click("#go")
        expect(status).to_have_text("clicked")
        path = screenshot(page, "browser_smoke")
    assert path.is_file()
    assert path.stat().st_size > 0
    assert path.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
