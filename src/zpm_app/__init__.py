"""The composition root, MCP server and CLI of zpm."""
