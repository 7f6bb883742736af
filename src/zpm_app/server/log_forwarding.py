"""The server's log lines as MCP ``notifications/message`` (MCP logging).

While a client is connected, the records of zpm's own loggers at or above the
level the client chose (``logging/setLevel``; ``warning`` until it does) go
to it as ``{"level", "logger", "data"}`` notifications, in the order they
were logged; stderr keeps every line as before.  Records come from any
thread (tool calls log on the knowledge thread) and are handed to the event
loop, which sends them.  The SDK's own loggers are not forwarded (a failed
send must not log its way into another send).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from zpm_app.server.notifier import Notifier

FORWARDED = ("zpm", "zpm_app", "zpm_adapters", "zpm_domain")
"""The loggers whose records reach the client."""

LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO + 5,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL + 5,
    "emergency": logging.CRITICAL + 10,
}
"""MCP's log levels (RFC 5424 names) as Python levels."""

DEFAULT_LEVEL = "warning"


def mcp_level(levelno: int) -> str:
    """The MCP name of a Python level (the highest MCP level not above it)."""
    name = "debug"
    for candidate, value in LEVELS.items():
        if value <= levelno:
            name = candidate
    return name


class LogForwarder(logging.Handler):
    """Sends log records to the client through ``notifier``."""

    def __init__(self, notifier: Notifier) -> None:
        super().__init__(level=LEVELS[DEFAULT_LEVEL])
        self._notifier = notifier
        self.setFormatter(logging.Formatter("%(message)s"))

    def set_mcp_level(self, name: str) -> None:
        """Forward records at ``name`` (an MCP level) and above."""
        self.setLevel(LEVELS[name])

    def emit(self, record: logging.LogRecord) -> None:
        try:
            params = {
                "level": mcp_level(record.levelno),
                "logger": record.name,
                "data": self.format(record),
            }
            self._notifier.send_soon("notifications/message", params)
        except Exception:
            self.handleError(record)


@contextmanager
def forwarding(forwarder: LogForwarder) -> Iterator[LogForwarder]:
    """Attach ``forwarder`` to zpm's loggers for the duration."""
    loggers = [logging.getLogger(name) for name in FORWARDED]
    for logger in loggers:
        logger.addHandler(forwarder)
    try:
        yield forwarder
    finally:
        for logger in loggers:
            logger.removeHandler(forwarder)
