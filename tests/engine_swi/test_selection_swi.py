"""Engine selection with SWI-Prolog provisioned: flag > ZPM_ENGINE > config > auto."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from mcp_harness import zpm


def chosen_engine(project: Path, *args: str, **env: str) -> str:
    """The engine ``zpm serve`` reports on stderr (it exits at once: stdin is empty)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("ZPM_")}
    done = subprocess.run(
        zpm("serve", *args),
        cwd=project,
        env={**environ, **env},
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r"; engine (\w+) ", done.stderr)
    assert found, done.stderr
    return found.group(1)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(zpm("init"), cwd=tmp_path, check=True, capture_output=True, timeout=60)
    return tmp_path


def test_auto_picks_janus_when_swi_is_provisioned(project: Path) -> None:
    assert chosen_engine(project) == "janus"


def test_config_then_environment_then_flag(project: Path) -> None:
    (project / ".zpm" / "config.toml").write_text('[engine]\nname = "pyswip"\n', encoding="utf-8")
    assert chosen_engine(project) == "pyswip"
    assert chosen_engine(project, ZPM_ENGINE="python") == "python"
    assert chosen_engine(project, "--engine", "janus", ZPM_ENGINE="python") == "janus"


def test_zpm_engines_lists_all_three_as_available(project: Path) -> None:
    done = subprocess.run(
        zpm("engines"), cwd=project, capture_output=True, text=True, timeout=60, check=True
    )
    lines = done.stdout.splitlines()
    for name in ("janus", "pyswip", "python"):
        assert any(line.startswith(f"{name}: available, version ") for line in lines), lines
    assert "auto selects: janus" in done.stdout, done.stdout
