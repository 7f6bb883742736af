"""What the review page's groups of pages (``time_pages``, ``conflict_pages``)
ask of :class:`zpm_app.web.pages.Pages`: the session's reads and tool calls,
the rendering, and the checks of a confirmed form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from zpm_app.web.sessions import WebSession


class PageCalls:
    """The methods a group of pages calls; ``Pages`` provides them."""

    async def _read(self, session: WebSession, read: Callable[[Any], Any]) -> Any:
        """``read(context)`` on the knowledge worker, as the session's caller."""
        raise NotImplementedError

    async def _call_tool(
        self, session: WebSession, name: str, arguments: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Tool ``name`` as the session's caller: its structured answer, or its error's text."""
        raise NotImplementedError

    def _render(
        self, template: str, values: dict[str, Any], session: WebSession | None, status: int = 200
    ) -> Response:
        raise NotImplementedError

    async def _live_values(self, session: WebSession, memory: str) -> dict[str, str]:
        raise NotImplementedError

    async def _confirmed(self, request: Request) -> WebSession | Response:
        """The session of a form posted from the page (CSRF-checked), or the refusal."""
        raise NotImplementedError

    def _refusal(self, heading: str, problem: str, status: int, session: WebSession) -> Response:
        raise NotImplementedError
