"""The echo tool: a connectivity check that touches no knowledge base."""

from __future__ import annotations

from typing import Annotated

from zpm_domain.tools.definition import QUERY, Arg, ToolGroup, tool


class EchoTools(ToolGroup):
    @tool(
        QUERY,
        "Echoes back a message string. Useful for testing server connectivity and tool invocation.",
    )
    def echo(self, message: Annotated[str, Arg("The message to echo", allow_empty=True)]) -> str:
        """``message`` exactly as given (empty and blank messages included)."""
        return message
