"""``zpm ui [--project DIR] [--port N] [--no-browser]``: the review page of a
local project, for the person at this machine.

It serves the page (and ``/mcp``, with the project's tokens) on a loopback
port (``--port``, else one the system picks) and, once the project is open
and the port accepts connections, prints a one-time link that signs the
browser in as the user running it, with full access; the link works once,
and no longer once the process ends.  The browser is opened on
it unless ``--no-browser``.  Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import socket
import sys
import webbrowser
from typing import Any

from zpm_app.catalogue.tool_catalogue import ToolRunner
from zpm_app.cli.parsing import add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services

NAME = "ui"
HOST = "127.0.0.1"
BACKLOG = 128
"""Connections the socket holds until the server takes them (uvicorn's own default)."""


def add(commands: Any) -> None:
    ui = command(
        commands,
        NAME,
        "open the review page of a local project: browse, search, history, forks (loopback only)",
    )
    ui.add_argument("--port", type=int, default=0, help="the loopback port (default: any free one)")
    ui.add_argument(
        "--no-browser", action="store_true", help="print the sign-in link, do not open a browser"
    )
    add_global_options(ui, formats=False)


def run(ns: argparse.Namespace, services: Services) -> int:
    for name in ("zpm", "zpm_app", "zpm_adapters", "zpm_domain"):
        logging.getLogger(name).setLevel(logging.INFO)
    if services.open_tokens is None:
        return fail("zpm ui: the review page is not available here")
    from zpm_app.server.sdk_imports import defer_package_initialisers

    defer_package_initialisers()
    try:
        from zpm_app.http.app import serve_http
        from zpm_app.http.options import HttpOptions
        from zpm_app.web.sessions import Sessions
        from zpm_app.worker.callers import Caller
    except ImportError as missing:
        return fail(
            f"zpm ui: {missing.name} is not installed: the review page needs zpm's http "
            "extra (scripts/setup-env http, or pip install 'zpm-memory[http]')"
        )

    def open_runner() -> ToolRunner:
        return services.open_runner(ns.project, ns.engine)

    try:
        bound = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        bound.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        bound.bind((HOST, ns.port))
    except OSError as error:
        return fail(f"zpm ui: cannot listen on {HOST}:{ns.port}: {error}")
    port = bound.getsockname()[1]
    options = HttpOptions(HOST, port)
    sessions = Sessions(per_token=options.page_sessions_per_token)
    link = f"http://{HOST}:{port}/login?once={sessions.link(Caller(_person()))}"

    def ready() -> None:
        """The project is open and the socket listens: a browser sent to the
        link now waits at most for the server's first accept, never refused."""
        bound.listen(BACKLOG)
        logging.getLogger("zpm").info(
            "the review page of this project: sign in with the link printed on stdout "
            "(it works once)"
        )
        print(link, flush=True)
        if not ns.no_browser and _graphical():
            webbrowser.open(link)

    store = services.open_tokens(ns.project)
    try:
        return serve_http(open_runner, options, store, sessions=sessions, bound=bound, ready=ready)
    except (services.project_not_found, *services.startup_errors) as error:
        return fail(f"zpm ui: {error}")
    finally:
        store.close()
        bound.close()


def _graphical() -> bool:
    """Whether a browser can open a window here (never a text browser in
    the terminal the server's log goes to)."""
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


def _person() -> str:
    """The name the page's changes are recorded under: the user running it."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "zpm ui"
