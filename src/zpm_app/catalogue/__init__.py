"""The tool catalogue: every tool's definition as MCP lists it, its schemas, its docs.

One catalogue (``tool_catalogue``) drives ``tools/list``, dispatch, the CLI and
the tool reference; ``arguments`` checks a call's arguments against it,
``output_schemas`` and ``schema_refs`` write the schemas a client is sent,
``instructions`` the guide a client gets at ``initialize``.
"""
