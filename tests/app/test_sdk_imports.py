"""The SDK's package initialisers wait until a name is asked of the package."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = r"""
import sys
from zpm_app.server.sdk_imports import defer_package_initialisers

defer_package_initialisers()
import mcp.server.lowlevel.server
from mcp.server.stdio import stdio_server
import zpm_app.server.mcp_server

unused = [m for m in sys.modules if m.startswith(("mcp.client", "mcp.server.mcpserver"))]
assert not unused, unused
assert "Client" not in vars(sys.modules["mcp"])

import mcp
from mcp import Client, ClientSession
from mcp.server import MCPServer, Server

assert Client is mcp.client.client.Client
assert Server is mcp.server.lowlevel.server.Server
assert MCPServer.__module__.startswith("mcp.server.mcpserver")
assert sys.modules["mcp.server"] is mcp.server
try:
    mcp.no_such_name
except AttributeError:
    pass
else:
    raise AssertionError("a missing name must stay missing")
defer_package_initialisers()  # imported already: nothing changes
assert sys.modules["mcp"] is mcp
print("OK")
"""


def test_the_server_imports_no_client_and_every_name_is_still_there() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip() == "OK"
