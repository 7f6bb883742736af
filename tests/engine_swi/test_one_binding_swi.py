"""Both SWI engines in one process: the second is refused with a reason, never a crash."""

from __future__ import annotations

import subprocess
import sys

import pytest

SCRIPT = """
import sys
from zpm_app.engines.registry import EngineUnavailable, create_engine
first = create_engine(sys.argv[1])
try:
    create_engine(sys.argv[2])
except EngineUnavailable as error:
    print(error)
first.ensure_namespace("m")
print(first.version())
"""


@pytest.mark.parametrize(("first", "second"), [("janus", "pyswip"), ("pyswip", "janus")])
def test_the_second_swi_binding_is_refused(first: str, second: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, first, second],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    refusal, version = done.stdout.splitlines()
    loaded = {"janus": "janus_swi", "pyswip": "pyswip"}
    assert refusal == (
        f"Engine {second} is not available: loading failed: ExecutionFailed: "
        f"{loaded[first]} already runs SWI-Prolog in this process, so {loaded[second]} "
        "cannot load it; use one SWI engine per process (janus or pyswip, not both)"
    )
    assert version.startswith(f"{first} (SWI-Prolog ")
