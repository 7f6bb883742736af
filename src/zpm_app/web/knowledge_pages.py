"""The review page's knowledge pages: the memories the session sees, a
memory's predicates, a predicate's clauses (at :func:`clause_url`), each as
it is now (kept current by ``live.js``) or as it was at a moment; and a
memory searched, queried, and a goal's proof explained.

Searches and proofs are the tools' (``search_facts``, ``explain_why``),
called as the session's caller; the rest are reads no tool offers
(``zpm_domain.review``), through the knowledge worker as that caller.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import Response

from zpm_app.web.live_updates import live_values
from zpm_app.web.moments import moment_of, past_values
from zpm_app.web.page_calls import PageCalls
from zpm_app.web.page_errors import error_status, said
from zpm_app.web.sessions import WebSession
from zpm_domain.errors import ZpmError
from zpm_domain.review.clauses import clause_page, predicate_rows
from zpm_domain.review.memories import memory_rows
from zpm_domain.review.queries import query_answers

SEARCHED = 20
"""Search results per page."""
PROOF_DEPTH = 60
"""How deep a proof the page draws (nested boxes); deeper nodes say they were cut off."""


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


class KnowledgePages(PageCalls):
    """The knowledge pages, for :class:`zpm_app.web.pages.Pages` (which
    provides the session's reads and tool calls and the rendering)."""

    async def memories(self, request: Request, session: WebSession) -> Response:
        """The memories the session sees."""
        rows, problem, status = [], None, 200
        try:
            rows = await self._read(session, memory_rows)
        except ZpmError as error:
            problem, status = said(error), error_status(error, 200)
        values = {"memories": rows, "problem": problem}
        return self._render("memories.html", values, session, status=status)

    async def predicates(self, request: Request, session: WebSession) -> Response:
        """A memory's predicates."""
        memory = request.path_params["memory"]
        moment = moment_of(request)
        try:
            rows, live = await self._read(
                session,
                lambda context: (
                    predicate_rows(context, memory, moment),
                    None if moment else live_values(context, memory),
                ),
            )
        except ZpmError as error:
            return self._problem(
                "Cannot show this memory", said(error), error_status(error), session
            )
        values = {"memory": memory, "predicates": rows, "live": live, **past_values(request)}
        return self._render("predicates.html", values, session)

    async def clauses(self, request: Request, session: WebSession) -> Response:
        """A page of a predicate's clauses (``name``, ``arity``, after handle ``after``)."""
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
        moment = moment_of(request)
        try:
            page, live = await self._read(
                session,
                lambda context: (
                    clause_page(context, memory, name, arity, after, as_of=moment),
                    None if moment else live_values(context, memory),
                ),
            )
        except ZpmError as error:
            return self._problem(
                "Cannot show these clauses", said(error), error_status(error), session
            )
        values = {"page": page, "after": after, "live": live, **past_values(request)}
        return self._render("clauses.html", values, session)

    async def search(self, request: Request, session: WebSession) -> Response:
        """The facts that match the words ``q`` (``search_facts``)."""
        memory = request.path_params["memory"]
        words = request.query_params.get("q", "").strip()
        values: dict[str, Any] = {"memory": memory, "words": words, **past_values(request)}
        if words:
            arguments: dict[str, Any] = {"query": words, "memory": memory, "limit": SEARCHED}
            cursor = request.query_params.get("cursor")
            if cursor is not None and cursor.isdigit():
                arguments["cursor"] = int(cursor)
            if moment_of(request):
                arguments["as_of"] = moment_of(request)
            found, problem = await self._call_tool(session, "search_facts", arguments)
            values.update(found=found, problem=problem)
        return self._render("search.html", values, session)

    async def query(self, request: Request, session: WebSession) -> Response:
        """The answers to ``goal``."""
        memory = request.path_params["memory"]
        goal = request.query_params.get("goal", "").strip()
        moment = moment_of(request)
        values: dict[str, Any] = {"memory": memory, "goal": goal, **past_values(request)}
        if goal:
            try:
                values["answers"] = await self._read(
                    session, lambda context: query_answers(context, memory, goal, moment)
                )
            except ZpmError as error:
                values["problem"] = said(error)
        return self._render("query.html", values, session)

    async def explain(self, request: Request, session: WebSession) -> Response:
        """Why ``goal`` holds: its proof as a tree (``explain_why``)."""
        memory = request.path_params["memory"]
        goal = request.query_params.get("goal", "").strip()
        values: dict[str, Any] = {"memory": memory, "goal": goal, **past_values(request)}
        if goal:
            arguments = {"fact": goal, "memory": memory, "max_depth": PROOF_DEPTH}
            if moment_of(request):
                arguments["as_of"] = moment_of(request)
            explained, problem = await self._call_tool(session, "explain_why", arguments, tree=True)
            values.update(explained=explained, problem=problem)
        return self._render("explain.html", values, session)
