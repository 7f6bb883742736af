"""Tool lists and results in the exact shape of the tool reference, past the SDK's models."""

from __future__ import annotations

import copy
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext


class WireShape:
    """Gives tools/list and tools/call results the exact shape of the tool reference.

    The SDK validates results against its protocol models, which drop fields
    they do not define and reorder keys.  This middleware runs on the
    validated result and restores what the reference shows: the tools as
    ``listing`` renders them (the same list the handler answered with),
    content items as ``{"type", "text"}`` and, for an error result,
    ``"isError": true`` in every content item as well as on the result.
    """

    def __init__(self, listing: list[dict[str, Any]]) -> None:
        self._tools = listing

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if not isinstance(result, dict):
            return result
        if ctx.method == "tools/list" and "tools" in result:
            return {**result, "tools": copy.deepcopy(self._tools)}
        if ctx.method == "tools/call" and isinstance(result.get("content"), list):
            failed = result.get("isError") is True
            content = [_content_item(item, failed) for item in result["content"]]
            return {**result, "content": content}
        return result


def _content_item(item: Any, failed: bool) -> Any:
    if not isinstance(item, dict):
        return item
    shaped = {"type": item.get("type"), "text": item.get("text"), **item}
    if failed:
        shaped["isError"] = True
    return shaped
