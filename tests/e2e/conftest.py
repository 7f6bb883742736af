"""Fixtures for end-to-end tests: a fresh zpm project and the asyncio backend."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mcp_harness import zpm


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def zpm_project(tmp_path: Path) -> Path:
    """A directory initialized with ``zpm init``."""
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(zpm("init"), cwd=project, check=True, capture_output=True, timeout=60)
    return project
