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
``X-Content-Type-Options: nosniff`` and ``Cache-Control: no-store``; every
value shown is escaped by the templates.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from zpm_app.web.conflict_pages import ConflictPages
from zpm_app.web.graph_layout import Graph
from zpm_app.web.graph_svg import render_svg
from zpm_app.web.sessions import Sessions, WebSession
from zpm_app.web.time_pages import TimePages
from zpm_app.worker.call_shares import CallShares
from zpm_app.worker.callers import Caller
from zpm_app.worker.knowledge_worker import KnowledgeWorker
from zpm_domain.errors import StorageUnavailable, ZpmError
from zpm_domain.review.clauses import PAGE, clause_page, predicate_rows
from zpm_domain.review.forks import fork_diff, resolve_argument
from zpm_domain.review.graphs import (
    MOST_DEPTH,
    MOST_NODES,
    GraphData,
    dependency_graph,
    relation_graph,
    relation_names,
)
from zpm_domain.review.history import history
from zpm_domain.review.memories import memory_changes, memory_rows
from zpm_domain.review.queries import query_answers
from zpm_domain.tools.definition import ToolContext

log = logging.getLogger("zpm")

COOKIE = "zpm_session"
SEARCHED = 20
"""Search results per page."""
PROOF_DEPTH = 60
"""How deep a proof the page draws (nested boxes); deeper nodes say they were cut off."""
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}

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


def clause_url(
    memory: str, name: str, arity: int, after: int | None = None, as_of: str | None = None
) -> str:
    """The page of ``name/arity``'s clauses in ``memory`` (after handle
    ``after``; as the memory was at ``as_of``)."""
    query = {"name": name, "arity": str(arity)}
    if after is not None:
        query["after"] = str(after)
    if as_of:
        query["as_of"] = as_of
    return f"/m/{quote(memory, safe='')}/predicate?{urlencode(query)}"


def review_routes(review: Review) -> list[BaseRoute]:
    """The page's routes, to serve at the root of the HTTP application."""
    templates = Environment(
        loader=PackageLoader("zpm_app.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    templates.globals["static"] = lambda name: f"/static/{name}"
    templates.globals["clause_url"] = clause_url
    templates.globals["page_size"] = PAGE
    pages = _Pages(review, templates)
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


class _Pages(TimePages, ConflictPages):
    def __init__(self, review: Review, templates: Environment) -> None:
        self._review = review
        self._templates = templates

    # -- signing in and out -------------------------------------------------------
    async def login_form(self, request: Request) -> Response:
        once = request.query_params.get("once")
        if once is not None:
            caller = self._review.sessions.redeem(once)
            if caller is None:
                return self._page(
                    "login.html",
                    {"problem": "This sign-in link was used already or has expired."},
                    status=403,
                )
            return self._signed_in(request, caller)
        try:
            signed_in = await self._session(request)
        except ZpmError as error:  # the tokens cannot be read now
            return self._page("login.html", {"problem": _said(error)}, status=_status(error))
        if self._review.sign_in is None or signed_in is not None:
            return RedirectResponse("/", status_code=303)
        return self._page("login.html", {})

    async def login(self, request: Request) -> Response:
        refused = _foreign(request)
        if refused is not None:
            return refused
        if self._review.sign_in is None:
            return RedirectResponse("/", status_code=303)
        form = await request.form()
        token = form.get("token")
        try:
            caller = await self._review.sign_in(token.strip()) if isinstance(token, str) else None
        except ZpmError as error:  # the tokens cannot be read now
            return self._page("login.html", {"problem": _said(error)}, status=_status(error))
        if caller is None:
            peer = request.client.host if request.client is not None else "an unknown address"
            log.warning("review page: a sign-in from %s was refused (token not accepted)", peer)
            problem = "This token is not accepted here (unknown, revoked or expired)."
            return self._page("login.html", {"problem": problem}, status=401)
        assert isinstance(token, str)
        return self._signed_in(request, caller, token=token.strip())

    async def logout(self, request: Request) -> Response:
        session = await self._checked_post(request)
        if isinstance(session, Response):
            return session
        self._review.sessions.close(request.cookies.get(COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    # -- pages ------------------------------------------------------------------
    async def memories(self, request: Request, session: WebSession) -> Response:
        rows, problem, status = [], None, 200
        try:
            rows = await self._read(session, memory_rows)
        except ZpmError as error:
            problem, status = _said(error), _status(error, 200)
        values = {"memories": rows, "problem": problem}
        return self._page("memories.html", values, session, status=status)

    async def predicates(self, request: Request, session: WebSession) -> Response:
        memory = request.path_params["memory"]
        moment = _moment(request)
        try:
            rows, live = await self._read(
                session,
                lambda context: (
                    predicate_rows(context, memory, moment),
                    None if moment else _live(context, memory),
                ),
            )
        except ZpmError as error:
            return self._problem("Cannot show this memory", _said(error), _status(error), session)
        values = {"memory": memory, "predicates": rows, "live": live, **_past(request)}
        return self._page("predicates.html", values, session)

    async def clauses(self, request: Request, session: WebSession) -> Response:
        memory = request.path_params["memory"]
        query = request.query_params
        try:
            name = query["name"]
            arity = int(query["arity"])
            after = int(query["after"]) if "after" in query else None
        except (KeyError, ValueError):
            return self._problem(
                "Not a predicate", "The address names no predicate (name and arity).", 400, session
            )
        moment = _moment(request)
        try:
            page, live = await self._read(
                session,
                lambda context: (
                    clause_page(context, memory, name, arity, after, as_of=moment),
                    None if moment else _live(context, memory),
                ),
            )
        except ZpmError as error:
            return self._problem("Cannot show these clauses", _said(error), _status(error), session)
        values = {"page": page, "after": after, "live": live, **_past(request)}
        return self._page("clauses.html", values, session)

    async def history(self, request: Request, session: WebSession) -> Response:
        """What happened to a predicate (``name``, ``arity``) or a clause (``handle``)."""
        memory = request.path_params["memory"]
        query = request.query_params
        key: tuple[str, int] | None = None
        handle: int | None = None
        if query.get("handle", "").isdigit():
            handle = int(query["handle"])
            subject = f"the clause {handle}"
        elif "name" in query and query.get("arity", "").isdigit():
            key = (query["name"], int(query["arity"]))
            subject = f"{key[0]}/{key[1]}"
        else:
            return self._problem(
                "Not a predicate", "The address names no predicate or clause.", 400, session
            )
        values: dict[str, Any] = {"memory": memory, "subject": subject}
        try:
            values["past"] = await self._read(
                session, lambda context: history(context, memory, key, handle)
            )
        except ZpmError as error:
            return self._problem("Cannot show this history", _said(error), _status(error), session)
        return self._page("history.html", values, session)

    async def changes(self, request: Request) -> Response:
        """Where the memory stands (``Memory.changes``), for ``live.js``."""
        try:
            session = await self._session(request)
        except ZpmError as error:
            return _secure(
                Response(_said(error), status_code=_status(error), media_type="text/plain")
            )
        if session is None:
            return _secure(Response("sign in first", status_code=401, media_type="text/plain"))
        memory = request.path_params["memory"]
        try:
            now = await self._read(session, lambda context: memory_changes(context, memory))
        except ZpmError as error:
            status = _status(error)
            return _secure(Response(_said(error), status_code=status, media_type="text/plain"))
        return _secure(Response(now, media_type="text/plain"))

    async def search(self, request: Request, session: WebSession) -> Response:
        memory = request.path_params["memory"]
        words = request.query_params.get("q", "").strip()
        values: dict[str, Any] = {"memory": memory, "words": words, **_past(request)}
        if words:
            arguments: dict[str, Any] = {"query": words, "memory": memory, "limit": SEARCHED}
            cursor = request.query_params.get("cursor")
            if cursor is not None and cursor.isdigit():
                arguments["cursor"] = int(cursor)
            if _moment(request):
                arguments["as_of"] = _moment(request)
            found, problem = await self._tool(session, "search_facts", arguments)
            values.update(found=found, problem=problem)
        return self._page("search.html", values, session)

    async def query(self, request: Request, session: WebSession) -> Response:
        memory = request.path_params["memory"]
        goal = request.query_params.get("goal", "").strip()
        moment = _moment(request)
        values: dict[str, Any] = {"memory": memory, "goal": goal, **_past(request)}
        if goal:
            try:
                values["answers"] = await self._read(
                    session, lambda context: query_answers(context, memory, goal, moment)
                )
            except ZpmError as error:
                values["problem"] = _said(error)
        return self._page("query.html", values, session)

    async def explain(self, request: Request, session: WebSession) -> Response:
        memory = request.path_params["memory"]
        goal = request.query_params.get("goal", "").strip()
        values: dict[str, Any] = {"memory": memory, "goal": goal, **_past(request)}
        if goal:
            arguments = {"fact": goal, "memory": memory, "max_depth": PROOF_DEPTH}
            if _moment(request):
                arguments["as_of"] = _moment(request)
            explained, problem = await self._tool(session, "explain_why", arguments, tree=True)
            values.update(explained=explained, problem=problem)
        return self._page("explain.html", values, session)

    async def graph(self, request: Request, session: WebSession) -> Response:
        """Which of the memory's predicates its rules use, as a picture."""
        memory = request.path_params["memory"]
        moment = _moment(request)
        values: dict[str, Any] = {
            "memory": memory,
            "heading": "Which rules use which predicates",
            **_past(request),
        }
        try:
            drawn, relations = await self._read(
                session,
                lambda context: (
                    dependency_graph(context, memory, moment),
                    relation_names(context, memory, moment),
                ),
            )
        except ZpmError as error:
            return self._problem("Cannot draw this memory", _said(error), _status(error), session)
        values.update(
            relations=relations,
            **_picture(drawn, lambda node: _predicate(memory, node, moment)),
        )
        return self._page("graph.html", values, session)

    async def relation(self, request: Request, session: WebSession) -> Response:
        """A binary relation from a node, as a picture (and the form that asks for it)."""
        memory = request.path_params["memory"]
        query = request.query_params
        name = query.get("name", "")
        start = query.get("from", "").strip()
        depth = int(query["depth"]) if query.get("depth", "").isdigit() else 2
        values: dict[str, Any] = {
            "memory": memory,
            "heading": f"{name}/2",
            "relation": name,
            "relation_form": True,
            "start": start,
            "depth": depth,
            "most_depth": MOST_DEPTH,
            **_past(request),
        }
        moment = _moment(request)
        if start:
            try:
                drawn = await self._read(
                    session,
                    lambda context: relation_graph(context, memory, name, start, depth, moment),
                )
            except ZpmError as error:
                values["problem"] = _said(error)
            else:

                def follow(node: str) -> str:
                    again = {"name": name, "from": node, "depth": str(depth)}
                    if moment:
                        again["as_of"] = moment
                    return f"/m/{quote(memory, safe='')}/relation?{urlencode(again)}"

                values.update(_picture(drawn, follow, focus=drawn.nodes[0]))
        return self._page("graph.html", values, session)

    async def fork(self, request: Request, session: WebSession) -> Response:
        fork = request.path_params["fork"]
        values: dict[str, Any] = {"fork": fork}
        try:
            values["diff"] = await self._read(session, lambda context: fork_diff(context, fork))
        except ZpmError as error:
            return self._problem(f"Cannot show fork {fork}", _said(error), _status(error), session)
        return self._page("fork.html", values, session)

    async def preview(self, request: Request, session: WebSession) -> Response:
        """What merging the fork with the chosen sides would do (a dry run),
        with the form that merges (for a session that may write)."""
        return await self._merging(request, session, request.query_params, dry_run=True)

    async def merge(self, request: Request) -> Response:
        session = await self._checked_post(request)
        if isinstance(session, Response):
            return session
        if session.read_only:
            refused = "This page is read-only: it cannot merge."
            return self._problem("Refused", refused, 403, session)
        return await self._merging(request, session, await request.form(), dry_run=False)

    async def _merging(
        self, request: Request, session: WebSession, fields: Any, *, dry_run: bool
    ) -> Response:
        fork = request.path_params["fork"]
        sides = _sides(fields)
        if sides is None:
            return self._problem("Not a choice", "Each conflict is won by base or fork.", 400)
        arguments: dict[str, Any] = {"name": fork, "dry_run": dry_run}
        resolve = resolve_argument(sides)
        if resolve is not None:
            arguments["resolve"] = resolve
        merged, problem = await self._tool(session, "merge_memory", arguments)
        values = {"fork": fork, "merged": merged, "problem": problem, "sides": sides}
        return self._page("merge.html", values, session, status=200 if merged else 409)

    # -- helpers ----------------------------------------------------------------
    def reading(self, page: Page) -> Callable[[Request], Awaitable[Response]]:
        """``page`` as an endpoint: it runs with the request's session
        (:meth:`_reader`), or the visitor is sent to sign in."""

        async def endpoint(request: Request) -> Response:
            session = await self._reader(request)
            if isinstance(session, Response):
                return session
            return await page(request, session)

        return endpoint

    async def _tool(
        self, session: WebSession, name: str, arguments: dict[str, Any], *, tree: bool = False
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Tool ``name`` called as the session's caller: its structured
        answer (``tree``: its text's JSON, the proof as a tree rather than
        the structured list of nodes), or the text of its error (with its
        notes)."""
        worker = self._review.worker
        caller = session.caller
        async with self._share(session):
            ticket = worker.ticket()
            try:
                outcome, _ = await worker.call(
                    ticket, name, arguments, None, caller.client, caller.access
                )
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
                return await worker.review(ticket, read, session.caller.access)
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
            return self._problem("Cannot show this page", _said(error), _status(error))
        if session is not None:
            return session
        if self._review.sign_in is None:
            return self._signed_in(request, Caller(None), to=request.url.path)
        return RedirectResponse("/login", status_code=303)

    async def _checked_post(self, request: Request) -> WebSession | Response:
        """The session of a ``POST`` that may change something: same site,
        signed in, and carrying the session's CSRF secret (else 403)."""
        refused = _foreign(request)
        if refused is not None:
            return refused
        try:
            session = await self._session(request)
        except ZpmError as error:
            return self._problem("Cannot do this now", _said(error), _status(error))
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
        _secure(response)
        return response

    def _page(
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
        return _secure(HTMLResponse(html, status_code=status))

    # -- what the time pages use (``zpm_app.web.time_pages``) ----------------------
    async def _call_tool(
        self, session: WebSession, name: str, arguments: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, str | None]:
        return await self._tool(session, name, arguments)

    def _render(
        self, template: str, values: dict[str, Any], session: WebSession | None, status: int = 200
    ) -> Response:
        return self._page(template, values, session, status)

    async def _live_values(self, session: WebSession, memory: str) -> dict[str, str]:
        live: dict[str, str] = await self._read(session, lambda context: _live(context, memory))
        return live

    async def _confirmed(self, request: Request) -> WebSession | Response:
        return await self._checked_post(request)

    def _refusal(self, heading: str, problem: str, status: int, session: WebSession) -> Response:
        return self._problem(heading, problem, status, session)

    def _problem(
        self, heading: str, problem: str, status: int, session: WebSession | None = None
    ) -> Response:
        values = {"heading": heading, "problem": problem}
        return self._page("problem.html", values, session, status=status)


def _foreign(request: Request) -> Response | None:
    """403 for a ``POST`` whose ``Origin`` is another site than this one."""
    origin = request.headers.get("origin")
    if origin is None:  # a browser sends one with every cross-site POST
        return None
    here = f"{request.url.scheme}://{request.url.netloc}"
    parts = urlsplit(origin)
    if f"{parts.scheme}://{parts.netloc}" == here:
        return None
    return _secure(Response("Refused: this form was sent from another site.", status_code=403))


def _moment(request: Request) -> str | None:
    """The moment a page shows the memory at (``as_of``; ``None``: now)."""
    return request.query_params.get("as_of", "").strip() or None


def _past(request: Request) -> dict[str, Any]:
    """What a page shown at a moment adds: the moment, for its banner and
    its links, and the same page now."""
    moment = _moment(request)
    if moment is None:
        return {}
    return {"as_of": moment, "now_url": str(request.url.remove_query_params("as_of"))}


def _live(context: ToolContext, memory: str) -> dict[str, str]:
    """What ``live.js`` needs to keep a page of ``memory`` current."""
    url = f"/m/{quote(memory, safe='')}/changes"
    return {"url": url, "changes": memory_changes(context, memory)}


def _picture(
    drawn: GraphData, link: Callable[[str], str | None], focus: str | None = None
) -> dict[str, Any]:
    """The page's values for graph ``drawn``: its SVG (every label escaped by
    ``graph_svg``) and whether the limit cut it."""
    graph = Graph(tuple(drawn.nodes), tuple(drawn.edges), focus)
    return {"svg": Markup(render_svg(graph, link)), "cut": drawn.cut, "most_nodes": MOST_NODES}


def _predicate(memory: str, node: str, as_of: str | None = None) -> str | None:
    """The clause page of a dependency graph's node ``name/arity`` (at ``as_of``)."""
    name, _, arity = node.rpartition("/")
    return clause_url(memory, name, int(arity), as_of=as_of) if arity.isdigit() else None


def _sides(fields: Any) -> dict[int, str] | None:
    """The conflicts' winners a form chose (``side-<handle>``: ``base`` or
    ``fork``); ``None`` when one is not such a choice."""
    sides: dict[int, str] = {}
    for key, value in fields.items():
        if not key.startswith("side-"):
            continue
        handle = key.removeprefix("side-")
        if not handle.isdigit() or value not in ("base", "fork"):
            return None
        sides[int(handle)] = value
    return sides


def _status(error: ZpmError, otherwise: int = 404) -> int:
    """The status of a page that ``error`` stopped: 503 while the storage is
    away (a person may try again soon), else ``otherwise``."""
    return 503 if isinstance(error, StorageUnavailable) else otherwise


def _said(error: ZpmError) -> str:
    """An error as a person reads it: the tool's text, then its hint."""
    return error.message if error.hint is None else f"{error.message}: {error.hint}"


def _secure(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers[name] = value
    return response
