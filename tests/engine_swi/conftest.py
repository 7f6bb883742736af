"""SWI engine tests: every check runs on each SWI engine, each in its own subprocess.

The janus and pyswip bindings never share a process.  These tests fail (never
skip) when SWI-Prolog is not provisioned: ``scripts/provision-swi``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "e2e"))

from swi_engines import SWI_ENGINES  # noqa: E402


@pytest.fixture(params=SWI_ENGINES)
def swi_engine(request: pytest.FixtureRequest) -> str:
    """The name of an SWI engine (``janus``, then ``pyswip``)."""
    name: str = request.param
    return name
