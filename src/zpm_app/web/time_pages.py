"""The review page's time pages: a memory's activity (what changed, newest
first, filtered, followed live), the activity of every memory the session
sees, what happened to one predicate or clause, the net changes between two
moments, and a revert with its preview and one confirmation.

Each page calls the time tools (``history``, ``diff_memory``,
``revert_memory``) as the session's caller, so a limited or read-only token
sees and does here exactly what it may do through the tools; a predicate's
or a clause's history is a read no tool offers (``zpm_domain.review.history``),
through the knowledge worker as the session's caller too.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from zpm_app.web.live_updates import live_values
from zpm_app.web.page_calls import PageCalls
from zpm_app.web.page_errors import error_status, said
from zpm_app.web.sessions import WebSession
from zpm_domain.errors import ZpmError
from zpm_domain.review import history as review_history

ACTIVITY_LIMIT = 100
"""How many changes an activity page shows at once (the next page follows)."""

FILTERS = ("client", "tool", "predicate", "since", "until")
"""The query parameters an activity page passes on to ``history``."""


class TimePages(PageCalls):
    """The time pages, for :class:`zpm_app.web.pages.Pages` (which provides
    the session's reads and tool calls, the rendering and the checks of a
    confirmed form)."""

    async def activity(self, request: Request, session: WebSession) -> Response:
        """What changed in one memory, newest first, with the filters given."""
        memory = request.path_params["memory"]
        query = request.query_params
        chosen = {name: query[name].strip() for name in FILTERS if query.get(name, "").strip()}
        arguments: dict[str, Any] = {"memory": memory, "limit": ACTIVITY_LIMIT, **chosen}
        if "since" in chosen:
            arguments["order"] = "newest"
        if query.get("cursor"):
            arguments["cursor"] = query["cursor"]
        found, problem = await self._call_tool(session, "history", arguments)
        values: dict[str, Any] = {
            "memory": memory,
            "filters": chosen,
            "found": found,
            "problem": problem,
            "live": None
            if problem
            else await self._read(session, lambda context: live_values(context, memory)),
        }
        return self._render("activity.html", values, session)

    async def everywhere(self, request: Request, session: WebSession) -> Response:
        """The newest changes of every memory the session sees, newest first."""
        listed, problem = await self._call_tool(session, "list_memories", {})
        names = [m["name"] for m in (listed or {}).get("memories", []) if m.get("mounted")]
        events: list[dict[str, Any]] = []
        for name in names:
            found, _ = await self._call_tool(
                session, "history", {"memory": name, "limit": ACTIVITY_LIMIT}
            )
            events += [{**event, "memory": name} for event in (found or {}).get("events", [])]
        events.sort(key=lambda event: event["at"], reverse=True)
        values = {"events": events[:ACTIVITY_LIMIT], "problem": problem}
        return self._render("everywhere.html", values, session)

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
                session, lambda context: review_history.history(context, memory, key, handle)
            )
        except ZpmError as error:
            return self._problem(
                "Cannot show this history", said(error), error_status(error), session
            )
        return self._render("history.html", values, session)

    async def diff(self, request: Request, session: WebSession) -> Response:
        """The net changes of a memory between two moments."""
        memory = request.path_params["memory"]
        since = request.query_params.get("since", "").strip()
        until = request.query_params.get("until", "").strip()
        values: dict[str, Any] = {"memory": memory, "since": since, "until": until}
        if since:
            arguments = {"memory": memory, "since": since, **({"until": until} if until else {})}
            found, problem = await self._call_tool(session, "diff_memory", arguments)
            values.update(found=found, problem=problem)
        return self._render("diff.html", values, session)

    async def revert_preview(self, request: Request, session: WebSession) -> Response:
        """What bringing the memory back to a moment would do (a dry run),
        with the form that does it (for a session that may write)."""
        memory = request.path_params["memory"]
        to = request.query_params.get("to", "").strip()
        return await self._reverting(session, memory, to, dry_run=True)

    async def revert(self, request: Request) -> Response:
        session = await self._confirmed(request)
        if isinstance(session, Response):
            return session
        if session.read_only:
            return self._problem(
                "Refused", "This page is read-only: it cannot revert.", 403, session
            )
        form = await request.form()
        to = form.get("to")
        memory = request.path_params["memory"]
        return await self._reverting(
            session, memory, to.strip() if isinstance(to, str) else "", dry_run=False
        )

    async def _reverting(
        self, session: WebSession, memory: str, to: str, *, dry_run: bool
    ) -> Response:
        values: dict[str, Any] = {"memory": memory, "to": to}
        if not to:
            return self._render("revert.html", values, session)
        arguments = {"memory": memory, "to": to, "dry_run": dry_run}
        reverted, problem = await self._call_tool(session, "revert_memory", arguments)
        values.update(reverted=reverted, problem=problem)
        return self._render("revert.html", values, session, status=409 if problem else 200)
