"""The official TypeScript SDK client and the MCP Inspector CLI against ``zpm serve --http``.

Node.js and npm come from ``scripts/provision-node``; the TypeScript SDK is the
version ``tests/e2e/ts_client/package-lock.json`` pins.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from http_harness import HttpServer, create_token, run_zpm

pytestmark = pytest.mark.slow

CLIENT = Path(__file__).parents[1] / "e2e" / "ts_client"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ts_client")
    for name in ("package.json", "package-lock.json", "http_check.mjs"):
        shutil.copy(CLIENT / name, folder / name)
    npm = shutil.which("npm")
    assert npm is not None, "npm is missing: run scripts/provision-node"
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return folder


def test_the_typescript_client_calls_with_a_bearer_token(client: Path, project: Path) -> None:
    token = create_token(project, "ts")
    node = shutil.which("node")
    assert node is not None
    with HttpServer(project) as server:
        done = subprocess.run(
            [node, "http_check.mjs", server.mcp, token],
            cwd=client,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "remember_fact" in seen["tools"] and len(seen["tools"]) == 40
    assert seen["stored"] == "Asserted: p(ts)"
    assert seen["answers"] == {"answers": [{"X": "ts"}], "truncated": False}
    found = run_zpm(project, "matching", "--pattern", "p(X)")
    assert json.loads(found.stdout)["rows"][0]["provenance"]["client"] == "ts"
