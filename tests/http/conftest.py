"""Fixtures: a fresh project for each HTTP server test."""

from __future__ import annotations

from pathlib import Path

import pytest

from zpm_app.bootstrap.config import init_project


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    init_project(tmp_path)
    return tmp_path
