"""The README's shell examples work as written.

The shell session under "Use it from the shell" runs line by line in a fresh
folder (``zpm`` being this checkout's), each command must exit 0, and a
comment that starts with a JSON value is the command's JSON output.  The
other shell blocks name this checkout's scripts, which must exist.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def shell_blocks() -> dict[str, list[str]]:
    """Each ```sh block's lines, by the heading above it (the first block of a heading)."""
    blocks: dict[str, list[str]] = {}
    heading = ""
    for part in re.split(r"^(## .*)$", README, flags=re.MULTILINE):
        if part.startswith("## "):
            heading = part[3:].strip()
            continue
        for block in re.findall(r"```sh\n(.*?)```", part, flags=re.DOTALL):
            blocks.setdefault(heading, block.splitlines())
    return blocks


def expected_json(comment: str) -> object | None:
    """The JSON value a ``# ...`` comment starts with, if it starts with one."""
    text = comment.strip()
    if not text.startswith(("[", "{")):
        return None
    value, _ = json.JSONDecoder().raw_decode(text)
    return value


def test_the_shell_session_runs_as_written(tmp_path: Path) -> None:
    session = shell_blocks()["Use it from the shell"]
    commands = [line for line in session if line.startswith("zpm ")]
    assert commands[0].startswith("zpm init") and len(commands) > 20
    assert all(line.startswith(("export PATH=", "cd ", "zpm ")) for line in session if line)
    env = {**os.environ, "ZPM_ENGINE": "python"}
    for line in commands:
        command, _, comment = line.partition(" # ")
        argv = shlex.split(command)
        done = subprocess.run(
            [sys.executable, "-m", "zpm_app", *argv[1:]],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        expected = expected_json(comment)
        if expected is not None:
            assert json.loads(done.stdout) == expected, line


def test_the_setup_commands_name_scripts_of_this_checkout() -> None:
    blocks = shell_blocks()
    for heading in ("Run the server (fresh Debian 12 or 13, as root)", "Run all tests"):
        for line in blocks[heading]:
            script = ROOT / shlex.split(line)[0]
            assert script.is_file() and os.access(script, os.X_OK), line
    assert (ROOT / ".ci" / "run").read_text().strip().endswith("scripts/test")


def test_the_readme_links_to_files_that_exist() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if not t.startswith(("http://", "https://", "mailto:"))]
    assert "docs/tools.md" in local
    missing = [t for t in local if not (ROOT / t).exists()]
    assert missing == []
