"""The moment a page of the review page shows a memory at (``as_of``), and
what a page of the past adds."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request


def moment_of(request: Request) -> str | None:
    """The moment a page shows the memory at (``as_of``; ``None``: now)."""
    return request.query_params.get("as_of", "").strip() or None


def past_values(request: Request) -> dict[str, Any]:
    """What a page shown at a moment adds: the moment, for its banner and
    its links, and the same page now."""
    moment = moment_of(request)
    if moment is None:
        return {}
    return {"as_of": moment, "now_url": str(request.url.remove_query_params("as_of"))}
