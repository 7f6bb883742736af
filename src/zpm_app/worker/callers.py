"""Who is calling a tool: the name its provenance records and what it may reach.

Over stdio the caller is the MCP client, named by its self-declared
``clientInfo``, and reaches everything.  Over HTTP the caller is the
authenticated identity (a zpm token's name, a JWT's subject), never the
``clientInfo``, and reaches what its credential grants
(``zpm_domain.memory.access``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.context import ServerRequestContext

from zpm_domain.memory.access import EVERYTHING, Access
from zpm_domain.memory.call_context import CallContext
from zpm_domain.progress import Report


@dataclass(frozen=True)
class Caller:
    """``client``: the provenance's client of what the call stores (``None``:
    unknown); ``access``: what the call reaches (``None``: everything)."""

    client: str | None
    access: Access | None = None

    def calling(self, report: Report | None = None) -> CallContext:
        """The context of a call this caller makes (``report``: where its
        progress goes; the worker adds when it arrived)."""
        access = EVERYTHING if self.access is None else self.access
        return CallContext(client=self.client, access=access, report=report)


Identify = Callable[[ServerRequestContext[Any]], Caller]
"""The caller of one request."""


def declared_client(ctx: ServerRequestContext[Any]) -> Caller:
    """The stdio caller: the client its ``clientInfo`` names, reaching everything."""
    params = ctx.session.client_params
    return Caller(None if params is None else params.client_info.name)
