"""What keeps a page of the review page current: the values a page of a
memory gives ``static/live.js`` (:func:`live_values`), and the address that
script asks where the memory stands (:meth:`LiveUpdates.changes`)."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from zpm_app.web.page_calls import PageCalls
from zpm_app.web.page_errors import error_status, said
from zpm_app.web.responses import secure
from zpm_domain.errors import ZpmError
from zpm_domain.review.memories import memory_changes
from zpm_domain.tools.definition import ToolContext


def live_values(context: ToolContext, memory: str) -> dict[str, str]:
    """What ``live.js`` needs to keep a page of ``memory`` current."""
    url = f"/m/{quote(memory, safe='')}/changes"
    return {"url": url, "changes": memory_changes(context, memory)}


class LiveUpdates(PageCalls):
    """The address ``live.js`` asks, for :class:`zpm_app.web.pages.Pages`
    (which provides the session and its reads)."""

    async def changes(self, request: Request) -> Response:
        """Where the memory stands (``Memory.changes``), for ``live.js``."""
        try:
            session = await self._session(request)
        except ZpmError as error:
            return secure(
                Response(said(error), status_code=error_status(error), media_type="text/plain")
            )
        if session is None:
            return secure(Response("sign in first", status_code=401, media_type="text/plain"))
        memory = request.path_params["memory"]
        try:
            now = await self._read(session, lambda context: memory_changes(context, memory))
        except ZpmError as error:
            status = error_status(error)
            return secure(Response(said(error), status_code=status, media_type="text/plain"))
        return secure(Response(now, media_type="text/plain"))
