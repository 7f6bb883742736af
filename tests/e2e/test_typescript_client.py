"""The official TypeScript MCP client drives ``zpm serve`` on every engine.

``ts_client/check.mjs`` (its SDK version pinned by ``package-lock.json``)
lists the tools, calls every tool with an output schema, a 1,000-step
``explain_why`` included (the client validates each structured result
against the schema and throws on a mismatch), lists, reads and subscribes
to resources, follows a restore's progress and log line, pings during a
runaway query, cancels it and checks the next call answers at once.  Node.js comes from
``scripts/provision-node``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from mcp_harness import zpm
from npm_package import installed

from zpm_app.catalogue.tool_catalogue import TOOLS

pytestmark = pytest.mark.slow

CLIENT = Path(__file__).with_name("ts_client")
PROMPT_MS = 5000
"""Far below the 60 s time limit: the cancel, not the limit, ended the call."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The check script with its locked dependencies installed."""
    return installed(CLIENT, tmp_path_factory.mktemp("ts_client"), "check.mjs")


@pytest.mark.parametrize("engine", ["python", "janus", "pyswip"])
def test_the_typescript_client_validates_results_pings_and_cancels(
    client: Path, tmp_path: Path, engine: str
) -> None:
    project = tmp_path / "project"
    subprocess.run(zpm("init", str(project)), check=True, capture_output=True, timeout=60)
    node = shutil.which("node")
    assert node is not None
    serve = zpm("serve", "--project", str(project), "--engine", engine)
    done = subprocess.run(
        [node, "check.mjs", *serve],
        cwd=client,
        env={**os.environ, "ZPM_TIME_LIMIT": "60"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert done.stderr == ""
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["declared"] == sorted(t.name for t in TOOLS if t.output_schema is not None)
    assert seen["explainNodes"] == 2001
    assert seen["answers"] == {"answers": [{"X": "n1"}], "truncated": False}
    assert (seen["runaway"], seen["next"]) == ("cancelled", '[{"X":"a"}]')
    assert seen["pingMs"] < PROMPT_MS and seen["nextMs"] < PROMPT_MS
    assert seen["resources"] == [
        "zpm://memories/default/predicates",
        "zpm://memories/default/snapshots",
    ]
    assert seen["templates"] == ["zpm://memories/{memory}/predicates/{name}/{arity}"]
    assert seen["clauses"] == "guess(a).\nguess(b).\n"
    assert seen["updated"] == ["zpm://memories/default/predicates/guess/1"]
    assert seen["progress"] and seen["progress"] == sorted(set(seen["progress"]))
    assert "info memory default: restored snapshot all" in seen["logged"]
