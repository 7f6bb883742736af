"""The SDK's low-level server as zpm offers it: the change notifications it announces."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.models import InitializationOptions


class ZpmServer(Server[Any]):
    """The SDK's server, whose ``initialize`` answer announces the change
    notifications zpm sends (``notifications``) also where the transport asks
    for the options without naming them (the HTTP session manager), and whose
    capabilities never announce tool list changes: zpm's tools are the same
    for the life of the server (the SDK announces them at 2026-07-28 with
    ``subscriptions/listen``)."""

    def __init__(self, notifications: NotificationOptions, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._notifications = notifications

    def get_capabilities(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
        *,
        protocol_version: str | None = None,
    ) -> types.ServerCapabilities:
        offered = super().get_capabilities(
            notification_options,
            experimental_capabilities,
            extensions,
            protocol_version=protocol_version,
        )
        if offered.tools is not None:
            offered.tools.list_changed = False
        return offered

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or self._notifications, experimental_capabilities, extensions
        )


def initialization_options(server: Server[Any]) -> InitializationOptions:
    """The ``initialize`` answer's options: the change notifications the
    server sends (``mcp_server.build_server``), and its ``instructions``."""
    return server.create_initialization_options()
