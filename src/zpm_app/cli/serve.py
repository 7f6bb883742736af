"""``zpm serve``: the tools over MCP on stdin/stdout."""

from __future__ import annotations

import argparse
import logging
import shutil
from pathlib import Path
from typing import Any

from zpm_app.catalogue import ToolRunner
from zpm_app.cli.parsing import add_global_options, command
from zpm_app.cli.project import create_project
from zpm_app.cli.services import Services
from zpm_app.output import fail

NAME = "serve"


def add(commands: Any) -> None:
    serve = command(commands, NAME, "serve the tools over MCP on stdin/stdout")
    serve.add_argument(
        "--init",
        action="store_true",
        help="create the project (the folder and .zpm/) when missing; "
        "what was created is removed again if the server cannot start",
    )
    serve.add_argument(
        "--fork",
        action="store_true",
        help="work on a fresh fork of the default memory (session_YYYYMMDD_HHMMSS_xxxx), "
        "every other memory read-only; the fork stays for a person to inspect, merge "
        "(zpm merge-memory --name ...) or prune (zpm forks prune)",
    )
    serve.add_argument(
        "--tools",
        metavar="SETS",
        help="the tools to offer, comma-separated: the sets core (the tool reference's tools), "
        "verbs (assert, unassert, unassert-handle, query, matching, argue, fork_memory, "
        "merge_memory) and all, and tool names, e.g. core,argue (default: [tools] enable "
        "in .zpm/config.toml, else all)",
    )
    add_global_options(serve, formats=False)


def run(ns: argparse.Namespace, services: Services) -> int:
    """Serve until EOF or a signal; a project created by ``--init`` is removed
    again when the server cannot start."""
    for name in ("zpm", "zpm_app", "zpm_adapters", "zpm_domain"):
        logging.getLogger(name).setLevel(logging.INFO)
    from zpm_app import server

    created: list[Path] = []
    if ns.init:
        try:
            created = create_project(services, services.project_dir(ns.project))
        except OSError as error:
            return fail(f"zpm serve: {error}")
    open_server = services.open_session if ns.fork else services.open_server
    if open_server is None and (ns.fork or ns.tools is not None):
        return fail(f"zpm serve: {'--fork' if ns.fork else '--tools'} is not available here")

    def open_runner() -> ToolRunner:
        if open_server is None:
            return services.open_runner(ns.project, ns.engine)
        return open_server(ns.project, ns.engine, ns.tools)

    try:
        return server.serve(open_runner)
    except KeyboardInterrupt:  # interrupted before serving started
        return 0
    except (services.project_not_found, *services.startup_errors) as error:
        for path in created:  # nothing was served: leave nothing behind
            shutil.rmtree(path, ignore_errors=True)
        prefix = "" if isinstance(error, services.project_not_found) else "zpm serve: "
        return fail(f"{prefix}{error}")
