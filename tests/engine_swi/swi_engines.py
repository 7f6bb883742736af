"""The SWI engines under test and how the subprocess scripts make one.

Each script runs one engine in its own process (the janus and pyswip
bindings must never share one): ``python SCRIPT ENGINE``.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

from zpm_adapters import swi_env
from zpm_domain.ports.engine import Engine

SWI_ENGINES = ("janus", "pyswip")

_CLASSES = {
    "janus": ("zpm_adapters.engine_janus.engine", "JanusEngine"),
    "pyswip": ("zpm_adapters.engine_pyswip.engine", "PyswipEngine"),
}


def new_engine(name: str) -> Engine:
    """A fresh engine of the named SWI adapter, in this process."""
    module, cls = _CLASSES[name]
    engine: Engine = getattr(importlib.import_module(module), cls)()
    return engine


def expected_version(name: str) -> str:
    """What ``version()`` of the named engine reports for the provisioned SWI."""
    install = swi_env.discover()
    assert isinstance(install, swi_env.SwiInstall), install.message()
    return f"{name} (SWI-Prolog {install.version_text})"


def run_script(script: str, engine: str, timeout: float = 300) -> str:
    """Run ``SCRIPT ENGINE`` in a subprocess; its stdout (it must exit 0)."""
    path = Path(__file__).with_name(script)
    done = subprocess.run(
        [sys.executable, str(path), engine], capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def run_json_script(script: str, engine: str) -> dict[str, object]:
    """Run a script that prints one JSON object as its last line; that object."""
    result: dict[str, object] = json.loads(run_script(script, engine).strip().splitlines()[-1])
    return result
