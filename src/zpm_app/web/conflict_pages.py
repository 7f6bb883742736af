"""The review page's conflicts page: the contradictions a memory holds
(``zpm_domain.review.conflicts``), each side with who stored it and when,
and, for a session that may write, a button that settles one by withdrawing
the other side (``unassert-handle``, as the session's caller; CSRF-checked);
the violations its integrity rules find, with the stored facts each rests
on (withdrawn the same way); then what a ``supersede`` policy replaced, by
whom and when."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from zpm_app.web.page_calls import PageCalls
from zpm_app.web.sessions import WebSession
from zpm_domain.errors import ZpmError
from zpm_domain.review.conflicts import conflict_rows, superseded_rows, violation_rows


class ConflictPages(PageCalls):
    """The conflicts pages, for :class:`zpm_app.web.pages.Pages` (which
    provides the session's reads and tool calls, the rendering and the
    checks of a confirmed form)."""

    async def conflicts(self, request: Request, session: WebSession) -> Response:
        """The conflicts a memory holds, with a form to settle each (withdraw one side)."""
        memory = request.path_params["memory"]
        return await self._conflicts(session, memory, problem=None)

    async def _conflicts(
        self, session: WebSession, memory: str, problem: str | None, status: int = 200
    ) -> Response:
        try:
            rows, violations, superseded = await self._read(
                session,
                lambda context: (
                    conflict_rows(context, memory),
                    violation_rows(context, memory),
                    superseded_rows(context, memory),
                ),
            )
        except ZpmError as error:
            rows, violations, superseded, problem, status = [], [], [], error.message, 409
        values = {
            "memory": memory,
            "rows": rows,
            "violations": violations,
            "superseded": superseded,
            "problem": problem,
        }
        return self._render("conflicts.html", values, session, status=status)

    async def settle(self, request: Request) -> Response:
        """Withdraw the side of a conflict the form names (its handle)."""
        session = await self._confirmed(request)
        if isinstance(session, Response):
            return session
        if session.read_only:
            return self._problem(
                "Refused", "This page is read-only: it cannot withdraw a fact.", 403, session
            )
        memory = request.path_params["memory"]
        form = await request.form()
        handle = form.get("handle")
        if not (isinstance(handle, str) and handle.isdigit()):
            return self._problem("Not a clause", "The form names no clause handle.", 400, session)
        arguments = {"sentex_handle": int(handle), "context": memory}
        _, problem = await self._call_tool(session, "unassert-handle", arguments)
        if problem is not None:
            return await self._conflicts(session, memory, problem, status=409)
        return RedirectResponse(f"/m/{memory}/conflicts", status_code=303)
