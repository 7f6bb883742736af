"""A call's progress as ``notifications/progress`` for the request's ``progressToken``."""

from __future__ import annotations

import asyncio
from typing import Any

from mcp.server.context import ServerRequestContext

from zpm_app.server.notifier import Notifier
from zpm_domain.progress import Report


def request_progress(ctx: ServerRequestContext[Any]) -> Notifier:
    """Sends a call's progress on the request's own response stream (the HTTP
    transport, which has no wire-wide notifier)."""
    request_id = None if ctx.request_id is None else str(ctx.request_id)

    async def notify(method: str, params: dict[str, Any]) -> None:
        await ctx.session.send_progress_notification(
            params["progressToken"],
            params["progress"],
            params.get("total"),
            params.get("message"),
            related_request_id=request_id,
        )

    return Notifier(asyncio.get_running_loop(), notify)


def progress_report(notifier: Notifier | None, meta: Any) -> Report | None:
    """Sends ``notifications/progress`` for the request's ``progressToken``, if it has one."""
    token = None if meta is None else meta.get("progress_token")
    if notifier is None or token is None:
        return None

    def report(progress: float, total: float | None, message: str) -> None:
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        params["message"] = message
        notifier.send_soon("notifications/progress", params)

    return report
