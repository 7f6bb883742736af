"""The first start of ``scripts/serve`` in a fresh copy of this checkout is
clean, and ``scripts/ui`` then opens the review page of the project.

``scripts/serve`` creates ``.venv/``, installs zpm into it and serves a new
project; stdout
carries only the protocol, and stderr only zpm's own lines (``zpm setup: …``
while it sets up, then ``zpm: LEVEL: …`` log lines): a client shows whatever
a server prints on stderr as an error, so pip's and the build backend's
output (warnings included) stay in ``.venv/zpm-setup.log``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from mcp_harness import run_piped, tool_call
from packaged import ROOT

from tests.http.http_harness import free_port
from tests.web.plain_client import Client

pytestmark = pytest.mark.slow

ZPM_LINE = re.compile(r"zpm setup: .+|zpm: (DEBUG|INFO|WARNING): .+")


def fresh_copy(target: Path) -> Path:
    """The files of this checkout (committed or not, ignored ones left out) in ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return fresh_copy(tmp_path_factory.mktemp("fresh") / "zpm")


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZPM_", "VIRTUAL_ENV"))}
    env["ZPM_ENGINE"] = "python"
    return env


def test_the_first_start_of_scripts_serve_prints_only_zpm_lines(
    checkout: Path, tmp_path: Path
) -> None:
    assert not (checkout / ".venv").exists()
    env = clean_env()
    project = checkout.parent / "new project"
    served = run_piped(
        [tool_call(1, "remember_fact", {"fact": "first(start)"})],
        command=[str(checkout / "scripts" / "serve"), "--project", str(project)],
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    assert served.returncode == 0, served.stderr
    assert served.answer(0)["result"]["serverInfo"]["name"] == "zpm"
    assert served.text(1) == "Asserted: first(start)"
    lines = served.stderr.splitlines()
    assert [line for line in lines if not ZPM_LINE.fullmatch(line)] == [], served.stderr
    assert any(line.startswith("zpm setup: installing zpm") for line in lines)
    assert "Successfully installed" in (checkout / ".venv" / "zpm-setup.log").read_text()


def test_scripts_ui_installs_what_the_page_needs_and_signs_in_once(checkout: Path) -> None:
    project = checkout.parent / "page project"
    subprocess.run(
        [str(checkout / "scripts" / "serve"), "--project", str(project)],
        input="",
        capture_output=True,
        env=clean_env(),
        timeout=600,
        check=True,
    )
    port = free_port()
    ui = subprocess.Popen(
        [str(checkout / "scripts" / "ui"), "--no-browser", "--port", str(port)]
        + ["--project", str(project)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    try:
        assert ui.stdout is not None
        link = ui.stdout.readline().strip()
        assert link.startswith(f"http://127.0.0.1:{port}/login?once="), link
        browser = Client(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 120
        while True:
            try:
                signed = browser.get(link)
                break
            except OSError:
                assert time.monotonic() < deadline, "scripts/ui did not answer"
                time.sleep(0.2)
        assert signed.status_code == 303
        page = browser.get("/")
        assert page.status_code == 200 and 'data-memory="default"' in page.text
    finally:
        ui.terminate()
        _, errors = ui.communicate(timeout=60)
    assert ui.returncode == 0, errors
    lines = errors.splitlines()
    assert [line for line in lines if not ZPM_LINE.fullmatch(line)] == [], errors
