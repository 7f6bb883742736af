"""Fixtures: a real toolbox on a fresh project directory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox, ToolResult


@pytest.fixture
def project(tmp_path: Path) -> Path:
    init_project(tmp_path)
    return tmp_path


@pytest.fixture
def open_box(project: Path) -> Iterator[Callable[..., Toolbox]]:
    opened: list[Toolbox] = []

    def _open(**env: str) -> Toolbox:
        # These tests are about the tools; engines are compared by zpm_contract.
        env = {"ZPM_ENGINE": "python", **env}
        box = open_toolbox(resolve_settings(project=str(project), env=env))
        opened.append(box)
        return box

    yield _open
    for box in opened:
        box.close()


@pytest.fixture
def box(open_box: Callable[..., Toolbox]) -> Toolbox:
    return open_box()


@pytest.fixture
def call(box: Toolbox) -> Callable[..., ToolResult]:
    def _call(name: str, **arguments: Any) -> ToolResult:
        return box.call(name, arguments)

    return _call
