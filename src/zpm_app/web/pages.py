"""The review page's routes: HTML rendered on the server, beside ``/mcp``.

A person signs in with a token the server accepts for ``/mcp``
(``POST /login``), or with the one-time link ``zpm ui`` prints
(``GET /login?once=…``); the browser then holds a session cookie
(``zpm_app.web.sessions``): ``HttpOnly``, ``SameSite=Strict``, ``Secure``
over HTTPS.  Every page reads through the knowledge worker as the session's
caller, so it sees what the token sees and a read-only token gets a
read-only page.  Without authentication (``zpm serve --http --no-auth``)
every visitor is an anonymous caller who reaches everything, as on
``/mcp``.

Every form that changes something carries the session's CSRF secret, and
a ``POST`` whose ``Origin`` names another site is refused (403).  Pages are
sent with a strict Content Security Policy (scripts and styles from the
server alone), ``Referrer-Policy: same-origin`` (no address, a one-time
link's included, reaches another site; ``no-referrer`` would make the
browser send ``Origin: null`` with the page's own forms),
``X-Content-Type-Options: nosniff`` and ``Cache-Control: no-store``
(``responses``); every value shown is escaped by the templates.

The pages come in groups, each a class of its own module that
:class:`Pages` combines: signing in and out (``sign_in_pages``), the
knowledge (``knowledge_pages``), the graphs (``graph_pages``), the forks
(``fork_pages``), time (``time_pages``), the conflicts
(``conflict_pages``), and the address that keeps a page current
(``live_updates``).  What a group calls on the page class (the session, its
reads and tool calls, the rendering, the checks of a form) is declared in
``page_calls``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from zpm_app.web.conflict_pages import ConflictPages
from zpm_app.web.fork_pages import ForkPages
from zpm_app.web.graph_pages import GraphPages
from zpm_app.web.knowledge_pages import KnowledgePages
from zpm_app.web.knowledge_pages import clause_url as clause_url
from zpm_app.web.live_updates import LiveUpdates
from zpm_app.web.page_errors import error_status, said
from zpm_app.web.responses import cross_site_refusal, secure
from zpm_app.web.sessions import Sessions, WebSession
from zpm_app.web.sign_in_pages import SignInPages
from zpm_app.web.time_pages import TimePages
from zpm_app.worker.call_shares import CallShares
from zpm_app.worker.callers import Caller
from zpm_app.worker.knowledge_worker import KnowledgeWorker
from zpm_domain.errors import ZpmError
from zpm_domain.review.clauses import PAGE

COOKIE = "zpm_session"
"""The cookie that names a browser's session."""

Page = Callable[[Request, WebSession], Awaitable[Response]]
"""A page's handler: the request and the session it is shown to."""

SignIn = Callable[[str], Awaitable[Caller | None]]
"""The caller a token stands for (as ``/mcp`` would take it), ``None`` when refused."""


@dataclass
class Review:
    """What the pages need: the worker they read through, the sessions,
    ``sign_in`` (``None``: no authentication, every visitor reaches all),
    and the callers' shares of the worker's queue, which ``/mcp`` holds from
    too (``None``: unbounded; ``zpm_app.worker.call_shares``)."""

    worker: KnowledgeWorker
    sessions: Sessions
    sign_in: SignIn | None
    shares: CallShares | None = None


def review_routes(review: Review) -> list[BaseRoute]:
    """The page's routes, to serve at the root of the HTTP application."""
    templates = Environment(
        loader=PackageLoader("zpm_app.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    templates.globals["static"] = lambda name: f"/static/{name}"
    templates.globals["clause_url"] = clause_url
    templates.globals["page_size"] = PAGE
    pages = Pages(review, templates)
    return [
        Route("/", pages.reading(pages.memories), methods=["GET"]),
        Route("/m/{memory}", pages.reading(pages.predicates), methods=["GET"]),
        Route("/m/{memory}/predicate", pages.reading(pages.clauses), methods=["GET"]),
        Route("/m/{memory}/changes", pages.changes, methods=["GET"]),
        Route("/m/{memory}/history", pages.reading(pages.history), methods=["GET"]),
        Route("/m/{memory}/activity", pages.reading(pages.activity), methods=["GET"]),
        Route("/m/{memory}/diff", pages.reading(pages.diff), methods=["GET"]),
        Route("/m/{memory}/revert", pages.reading(pages.revert_preview), methods=["GET"]),
        Route("/m/{memory}/revert", pages.revert, methods=["POST"]),
        Route("/m/{memory}/conflicts", pages.reading(pages.conflicts), methods=["GET"]),
        Route("/m/{memory}/settle", pages.settle, methods=["POST"]),
        Route("/activity", pages.reading(pages.everywhere), methods=["GET"]),
        Route("/m/{memory}/search", pages.reading(pages.search), methods=["GET"]),
        Route("/m/{memory}/query", pages.reading(pages.query), methods=["GET"]),
        Route("/m/{memory}/explain", pages.reading(pages.explain), methods=["GET"]),
        Route("/m/{memory}/graph", pages.reading(pages.graph), methods=["GET"]),
        Route("/m/{memory}/relation", pages.reading(pages.relation), methods=["GET"]),
        Route("/forks/{fork}", pages.reading(pages.fork), methods=["GET"]),
        Route("/forks/{fork}/preview", pages.reading(pages.preview), methods=["GET"]),
        Route("/forks/{fork}/merge", pages.merge, methods=["POST"]),
        Route("/login", pages.login_form, methods=["GET"]),
        Route("/login", pages.login, methods=["POST"]),
        Route("/logout", pages.logout, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("zpm_app.web", "static")]), name="static"),
    ]


class Pages(
    SignInPages,
    KnowledgePages,
    GraphPages,
    ForkPages,
    TimePages,
    ConflictPages,
    LiveUpdates,
):
    """The review page's groups of pages combined, with what they call
    (``page_calls.PageCalls``): the session, its reads and tool calls as the
    session's caller, the rendering, and the checks of a form."""

    def __init__(self, review: Review, templates: Environment) -> None:
        self._review = review
        self._templates = templates

    def reading(self, page: Page) -> Callable[[Request], Awaitable[Response]]:
        """``page`` as an endpoint: it runs with the request's session
        (:meth:`_reader`), or the visitor is sent to sign in."""

        async def endpoint(request: Request) -> Response:
            session = await self._reader(request)
            if isinstance(session, Response):
                return session
            return await page(request, session)

        return endpoint

    async def _call_tool(
        self, session: WebSession, name: str, arguments: dict[str, Any], *, tree: bool = False
    ) -> tuple[dict[str, Any] | None, str | None]:
        worker = self._review.worker
        caller = session.caller
        async with self._share(session):
            ticket = worker.ticket()
            try:
                outcome, _ = await worker.call(ticket, name, arguments, caller.calling())
            finally:
                ticket.release()
        if outcome.is_error:
            return None, ": ".join([outcome.text, *outcome.notes])
        return (json.loads(outcome.text) if tree else outcome.structured), None

    async def _read(self, session: WebSession, read: Callable[[Any], Any]) -> Any:
        worker = self._review.worker
        async with self._share(session):
            ticket = worker.ticket()
            try:
                return await worker.review(ticket, read, session.caller.calling())
            finally:
                ticket.release()

    def _share(self, session: WebSession) -> AbstractAsyncContextManager[None]:
        """A place in the queue among the session's caller's calls."""
        shares = self._review.shares
        return nullcontext() if shares is None else shares.share(session.caller.client)

    async def _session(self, request: Request) -> WebSession | None:
        """The request's session, if its token is still accepted: a session
        whose token was revoked or has expired is ended (``ZpmError`` when
        the tokens cannot be read now)."""
        sid = request.cookies.get(COOKIE)
        session = self._review.sessions.find(sid)
        if session is None or session.token is None or self._review.sign_in is None:
            return session
        if await self._review.sign_in(session.token) is None:
            self._review.sessions.close(sid)
            return None
        return session

    async def _reader(self, request: Request) -> WebSession | Response:
        """The request's session; without authentication one is opened for an
        anonymous caller; otherwise a visitor without one goes to sign in."""
        try:
            session = await self._session(request)
        except ZpmError as error:
            return self._problem("Cannot show this page", said(error), error_status(error))
        if session is not None:
            return session
        if self._review.sign_in is None:
            return self._signed_in(request, Caller(None), to=request.url.path)
        return RedirectResponse("/login", status_code=303)

    async def _confirmed(self, request: Request) -> WebSession | Response:
        """The session of a ``POST`` that may change something: same site,
        signed in, and carrying the session's CSRF secret (else 403)."""
        refused = cross_site_refusal(request)
        if refused is not None:
            return refused
        try:
            session = await self._session(request)
        except ZpmError as error:
            return self._problem("Cannot do this now", said(error), error_status(error))
        if session is None:
            return self._problem("Not signed in", "Sign in first.", 403)
        form = await request.form()
        csrf = form.get("csrf")
        if not session.csrf_matches(csrf if isinstance(csrf, str) else None):
            return self._problem(
                "Refused", "This form is stale or did not come from this page.", 403
            )
        return session

    def _signed_in(
        self, request: Request, caller: Caller, to: str = "/", token: str | None = None
    ) -> Response:
        sid, _ = self._review.sessions.open(caller, token)
        response = RedirectResponse(to, status_code=303)
        response.set_cookie(
            COOKIE,
            sid,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
            path="/",
        )
        secure(response)
        return response

    def _signed_out(self, request: Request) -> Response:
        self._review.sessions.close(request.cookies.get(COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    def _open_to_all(self) -> bool:
        return self._review.sign_in is None

    def _redeem(self, once: str) -> Caller | None:
        return self._review.sessions.redeem(once)

    async def _accepted(self, token: str) -> Caller | None:
        sign_in = self._review.sign_in
        return None if sign_in is None else await sign_in(token)

    def _render(
        self,
        template: str,
        values: dict[str, Any],
        session: WebSession | None = None,
        status: int = 200,
    ) -> Response:
        signed_in = self._review.sign_in is not None
        html = self._templates.get_template(template).render(
            session=session, signed_in=signed_in, **values
        )
        return secure(HTMLResponse(html, status_code=status))

    def _problem(
        self, heading: str, problem: str, status: int, session: WebSession | None = None
    ) -> Response:
        values = {"heading": heading, "problem": problem}
        return self._render("problem.html", values, session, status=status)
