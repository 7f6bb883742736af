"""The review page's fork pages: how a fork differs from its base, what
merging it with the sides chosen for its conflicts would do (a dry run of
``merge_memory``), and the merge itself for a session that may write
(a confirmed form)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from zpm_app.web.page_calls import PageCalls
from zpm_app.web.page_errors import error_status, said
from zpm_app.web.sessions import WebSession
from zpm_domain.errors import ZpmError
from zpm_domain.review.forks import fork_diff, resolve_argument


class ForkPages(PageCalls):
    """The fork pages, for :class:`zpm_app.web.pages.Pages` (which
    provides the session's reads and tool calls, the rendering and the
    checks of a confirmed form)."""

    async def fork(self, request: Request, session: WebSession) -> Response:
        """How the fork differs from its base."""
        fork = request.path_params["fork"]
        values: dict[str, Any] = {"fork": fork}
        try:
            values["diff"] = await self._read(session, lambda context: fork_diff(context, fork))
        except ZpmError as error:
            return self._problem(
                f"Cannot show fork {fork}", said(error), error_status(error), session
            )
        return self._render("fork.html", values, session)

    async def preview(self, request: Request, session: WebSession) -> Response:
        """What merging the fork with the chosen sides would do (a dry run),
        with the form that merges (for a session that may write)."""
        return await self._merging(request, session, request.query_params, dry_run=True)

    async def merge(self, request: Request) -> Response:
        """The fork merged with the sides the form chose."""
        session = await self._confirmed(request)
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
        merged, problem = await self._call_tool(session, "merge_memory", arguments)
        values = {"fork": fork, "merged": merged, "problem": problem, "sides": sides}
        return self._render("merge.html", values, session, status=200 if merged else 409)


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
