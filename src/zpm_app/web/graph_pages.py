"""The review page's graphs, drawn as SVG on the server (``graph_svg``):
which of a memory's predicates its rules use, each node linked to its
clauses, and a binary relation followed from a node, each node linked to the
relation followed from it; now or as the memory was at a moment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from zpm_app.web.graph_layout import Graph
from zpm_app.web.graph_svg import render_svg
from zpm_app.web.knowledge_pages import clause_url
from zpm_app.web.moments import moment_of, past_values
from zpm_app.web.page_calls import PageCalls
from zpm_app.web.page_errors import error_status, said
from zpm_app.web.sessions import WebSession
from zpm_domain.errors import ZpmError
from zpm_domain.review.graphs import (
    MOST_DEPTH,
    MOST_NODES,
    GraphData,
    dependency_graph,
    relation_graph,
    relation_names,
)


class GraphPages(PageCalls):
    """The graph pages, for :class:`zpm_app.web.pages.Pages` (which
    provides the session's reads and the rendering)."""

    async def graph(self, request: Request, session: WebSession) -> Response:
        """Which of the memory's predicates its rules use, as a picture."""
        memory = request.path_params["memory"]
        moment = moment_of(request)
        values: dict[str, Any] = {
            "memory": memory,
            "heading": "Which rules use which predicates",
            **past_values(request),
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
            return self._problem(
                "Cannot draw this memory", said(error), error_status(error), session
            )
        values.update(
            relations=relations,
            **_picture(drawn, lambda node: _predicate(memory, node, moment)),
        )
        return self._render("graph.html", values, session)

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
            **past_values(request),
        }
        moment = moment_of(request)
        if start:
            try:
                drawn = await self._read(
                    session,
                    lambda context: relation_graph(context, memory, name, start, depth, moment),
                )
            except ZpmError as error:
                values["problem"] = said(error)
            else:

                def follow(node: str) -> str:
                    again = {"name": name, "from": node, "depth": str(depth)}
                    if moment:
                        again["as_of"] = moment
                    return f"/m/{quote(memory, safe='')}/relation?{urlencode(again)}"

                values.update(_picture(drawn, follow, focus=drawn.nodes[0]))
        return self._render("graph.html", values, session)


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
