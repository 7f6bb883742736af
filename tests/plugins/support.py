"""Plugins installed without pip (``zpm_contract.plugin_site``), and driving them.

With a plugin written by ``write_plugin`` into ``root`` and ``root`` on
``PYTHONPATH`` of a subprocess (``plugin_env``), zpm finds its entry point
exactly as one installed by pip.

``EXAMPLE_ENGINE`` is the source of a real plugin: the python engine under the
name ``example``; ``BROKEN_PLUGINS`` are plugins broken in the ways zpm
survives.  ``piped_tool_call`` drives ``zpm serve`` with one
``tools/call`` and returns the answer text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from zpm_contract.plugin_site import site_env

EXAMPLE_ENGINE = '''
"""An example zpm engine plugin: the python engine under another name."""

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_plugin import EngineRegistrar, hookimpl


class ExampleEngine(PythonEngine):
    name = "example"

    def version(self) -> str:
        return "example 0.1 on " + super().version()


@hookimpl
def zpm_register_engines(register: EngineRegistrar) -> None:
    register("example", ExampleEngine, description="the python engine, renamed")
'''

MISSPELLED_HOOK = """
from zpm_plugin import hookimpl


@hookimpl
def zpm_register_engine(register):
    raise AssertionError("never called")
"""


IMPORT_FAILS = "import zpm_no_such_module\n"

RAISING_HOOK = """
from zpm_plugin import hookimpl


@hookimpl
def zpm_register_engines(register):
    register("raising", object)
    raise RuntimeError("no licence server")
"""

TAKES_PYTHON = """
from zpm_adapters.engine_python.engine import PythonEngine
from zpm_plugin import hookimpl


@hookimpl
def zpm_register_engines(register):
    register("python", PythonEngine, description="a second python")
"""

BROKEN_PLUGINS = {
    "gone": IMPORT_FAILS,
    "typo": MISSPELLED_HOOK,
    "raising": RAISING_HOOK,
    "taker": TAKES_PYTHON,
}
"""Entry-point name -> source of a plugin that is broken in one way each."""


def plugin_env(root: Path, **extra: str) -> dict[str, str]:
    """The current environment with ``root`` first on ``PYTHONPATH``, plus ``extra``."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ZPM_")}
    env.update(site_env(root, env))
    env.update(extra)
    return env


def zpm(*args: str) -> list[str]:
    return [sys.executable, "-m", "zpm_app", *args]


def run_zpm(
    *args: str, env: dict[str, str], cwd: Path | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        zpm(*args), env=env, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120
    )


def piped_tool_call(
    project: Path, env: dict[str, str], engine: str, tool: str, arguments: dict[str, Any]
) -> tuple[str, subprocess.CompletedProcess[str]]:
    """Serve ``project`` with ``engine``, call ``tool`` once over piped stdin.

    Returns the text of the answer's single content item and the finished
    process (for its stderr and exit code).
    """
    requests = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "zpm-plugin-tests", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        },
    ]
    stdin = "".join(json.dumps(request) + "\n" for request in requests)
    done = run_zpm("serve", "--engine", engine, env=env, cwd=project, stdin=stdin)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    found = [answer for answer in answers if answer.get("id") == 1]
    assert len(found) == 1, f"no single answer to the call: {done.stdout!r} {done.stderr!r}"
    content = found[0]["result"]["content"]
    assert len(content) == 1, content
    return str(content[0]["text"]), done
