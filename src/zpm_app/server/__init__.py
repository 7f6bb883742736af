"""The MCP server: its handlers, and the stdio connection it runs on.

``mcp_server`` builds the SDK's low-level server and serves it over stdio
(``stdio_wire``: newline-delimited JSON-RPC, ``eras``: both eras of the
protocol on one connection), ``audience``, ``notifier`` and ``listening`` tell
clients what changed, ``log_forwarding`` sends logs to the client, and
``sdk_imports`` imports the SDK's server without the rest of it. The HTTP
transport (``zpm_app.http``) serves the same server.
"""
