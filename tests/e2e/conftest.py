"""Fixtures for end-to-end tests: a fresh zpm project, the asyncio backend, and
zpm as a package (the built sdist and wheel, and a venv with the wheel)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mcp_harness import zpm
from packaged import build_dist, venv_with, wheel_of


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


@pytest.fixture(scope="session")
def zpm_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the sdist and the wheel built from this checkout."""
    return build_dist(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def wheel_bin(zpm_dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin`` of a fresh venv with the wheel installed (and no SWI-Prolog binding)."""
    return venv_with(tmp_path_factory.mktemp("wheel") / "venv", wheel_of(zpm_dist))
