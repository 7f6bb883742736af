"""The example plugin (``examples/zpm-example-engine``) passes the contract suite.

``scripts/test`` installs it with pip, as a plugin author's users would, into
``.venv/example-plugin`` (a folder only these tests put on ``PYTHONPATH``, so
that no other test sees a fourth engine); the suite then runs against it
exactly as the plugin guide tells its author to run it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from plugins.support import plugin_env, run_zpm

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / ".venv" / "example-plugin"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site() -> Path:
    if not (SITE / "zpm_example_engine").is_dir():
        pytest.fail(f"the example plugin is not installed in {SITE}: scripts/test installs it")
    return SITE


def test_zpm_engines_lists_it_with_what_it_lacks(site: Path) -> None:
    done = run_zpm("engines", env=plugin_env(site))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith("timed: available"))
    assert lines[index + 1] == (
        "  the python engine, each solve timed; from plugin 'timed' (zpm-example-engine 0.1.0)"
    )
    assert lines[index + 2] == "  lacks: interrupt, reach, reasoning"


@pytest.mark.timeout(900)
def test_it_passes_the_contract_suite(site: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pytest", "-p", "zpm_contract.plugin", "-p", "no:randomly"]
    done = subprocess.run(
        [
            *command,
            *("-p", "no:cacheprovider", "--pyargs", "zpm_contract", "-q", "-n", "2"),
            *("--zpm-reference", "python", "--zpm-engine", "timed"),
        ],
        env=plugin_env(site, CI="true"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "zpm contract: engine timed lacks interrupt, reach, reasoning:" in done.stdout
    assert " passed" in done.stdout and " failed" not in done.stdout
