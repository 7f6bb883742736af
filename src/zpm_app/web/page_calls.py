"""What the review page's groups of pages (``sign_in_pages``,
``knowledge_pages``, ``graph_pages``, ``fork_pages``, ``time_pages``,
``conflict_pages``, ``live_updates``) ask of
:class:`zpm_app.web.pages.Pages`: the session and signing in and out, the
session's reads and tool calls, the rendering, and the checks of a
confirmed form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from zpm_app.web.sessions import WebSession
from zpm_app.worker.callers import Caller


class PageCalls:
    """The methods a group of pages calls; ``Pages`` provides them."""

    async def _read(self, session: WebSession, read: Callable[[Any], Any]) -> Any:
        """``read(context)`` on the knowledge worker, as the session's caller."""
        raise NotImplementedError

    async def _call_tool(
        self, session: WebSession, name: str, arguments: dict[str, Any], *, tree: bool = False
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Tool ``name`` as the session's caller: its structured answer
        (``tree``: its text's JSON, the proof as a tree rather than the
        structured list of nodes), or its error's text (with its notes)."""
        raise NotImplementedError

    def _render(
        self,
        template: str,
        values: dict[str, Any],
        session: WebSession | None = None,
        status: int = 200,
    ) -> Response:
        """``template`` rendered with ``values`` for ``session``, sent with the page's headers."""
        raise NotImplementedError

    def _problem(
        self, heading: str, problem: str, status: int, session: WebSession | None = None
    ) -> Response:
        """The page that says why a page cannot be shown or a form was refused."""
        raise NotImplementedError

    async def _confirmed(self, request: Request) -> WebSession | Response:
        """The session of a form posted from the page (same site, signed in,
        CSRF-checked), or the refusal."""
        raise NotImplementedError

    async def _session(self, request: Request) -> WebSession | None:
        """The request's session, if its token is still accepted (``ZpmError``
        when the tokens cannot be read now)."""
        raise NotImplementedError

    def _signed_in(
        self, request: Request, caller: Caller, to: str = "/", token: str | None = None
    ) -> Response:
        """A new session for ``caller`` (signed in with ``token``): the
        redirect to ``to`` that sets its cookie."""
        raise NotImplementedError

    def _signed_out(self, request: Request) -> Response:
        """The request's session ended: the redirect to sign in that deletes its cookie."""
        raise NotImplementedError

    def _open_to_all(self) -> bool:
        """Whether the server runs without authentication (every visitor is
        an anonymous caller who reaches everything)."""
        raise NotImplementedError

    def _redeem(self, once: str) -> Caller | None:
        """The caller of one-time link ``once``, which stops working now;
        ``None`` when it is unknown, used or too old."""
        raise NotImplementedError

    async def _accepted(self, token: str) -> Caller | None:
        """The caller ``token`` stands for, as ``/mcp`` would take it;
        ``None`` when it is refused (``ZpmError`` when the tokens cannot be
        read now)."""
        raise NotImplementedError
