"""The first start of ``scripts/serve`` in a fresh copy of this checkout is clean.

It creates ``.venv/``, installs zpm into it and serves a new project; stdout
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
from pathlib import Path

import pytest
from mcp_harness import run_piped, tool_call
from packaged import ROOT

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


def test_the_first_start_of_scripts_serve_prints_only_zpm_lines(tmp_path: Path) -> None:
    checkout = fresh_copy(tmp_path / "zpm")
    assert not (checkout / ".venv").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZPM_", "VIRTUAL_ENV"))}
    env["ZPM_ENGINE"] = "python"
    project = tmp_path / "new project"
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
