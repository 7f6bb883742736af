"""``zpm serve``: the tools over MCP on stdin/stdout, or over Streamable HTTP.

``--http HOST:PORT`` (or ``[serve] http`` in ``.zpm/config.toml``) serves
at ``http://HOST:PORT/mcp`` instead (``zpm_app.http``), with bearer-token
authentication: zpm tokens (``zpm tokens create``) and, with
``--jwks-url``/``--issuer``/``--audience`` (or ``[auth]``), JWT access
tokens.  The start is refused when nothing could authenticate a request,
unless ``--no-auth`` (``zpm_app.http.options``).
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zpm_app.catalogue.tool_catalogue import ToolRunner

if TYPE_CHECKING:
    from zpm_app.http.options import HttpOptions
from zpm_app.cli.parsing import add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.project import create_project
from zpm_app.cli.wiring import Services
from zpm_app.http.options import HttpRefused

NAME = "serve"


def add(commands: Any) -> None:
    serve = command(commands, NAME, "serve the tools over MCP on stdin/stdout")
    serve.add_argument(
        "--init",
        action="store_true",
        help="create the project (the folder and .zpm/) when missing; "
        "what was created is removed again if the server cannot start (nothing is "
        "created for memories kept in a database)",
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
    http = serve.add_argument_group("HTTP (Streamable HTTP at /mcp instead of stdio)")
    http.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve over Streamable HTTP at http://HOST:PORT/mcp (default: [serve] http in "
        ".zpm/config.toml, else stdio)",
    )
    http.add_argument(
        "--stateless",
        action="store_true",
        help="no sessions: each request stands alone (several servers behind a load balancer)",
    )
    http.add_argument(
        "--no-auth",
        action="store_true",
        help="serve without authentication (refused otherwise when no token and no JWKS "
        "is configured)",
    )
    http.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="accept this Host header too (repeatable; the bound address and localhost are)",
    )
    http.add_argument(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="accept this Origin header too (repeatable)",
    )
    http.add_argument(
        "--headers-timeout",
        type=float,
        metavar="SECONDS",
        help="close a connection whose request headers take longer (default 10)",
    )
    http.add_argument(
        "--mcp-sessions-per-token",
        type=int,
        metavar="N",
        help="live /mcp sessions one token may hold; its next one closes its own session "
        "used longest ago (default 20)",
    )
    http.add_argument(
        "--page-sessions-per-token",
        type=int,
        metavar="N",
        help="review page sessions one token may hold; its next sign-in ends its own session "
        "used longest ago (default 20)",
    )
    http.add_argument(
        "--calls-per-token",
        type=int,
        metavar="N",
        help="tool calls one token may have queued or running at once; its next waits for "
        "one of them to end (default 8)",
    )
    http.add_argument("--jwks-url", metavar="URL", help="accept JWTs signed by this JWKS's keys")
    http.add_argument("--issuer", metavar="URL", help="the JWTs' required iss")
    http.add_argument(
        "--audience", metavar="URL", help="the JWTs' required aud: this server's /mcp URL"
    )
    http.add_argument(
        "--authorization-server",
        action="append",
        default=[],
        metavar="URL",
        help="an authorization server the Protected Resource Metadata names (default: --issuer)",
    )
    add_global_options(serve, formats=False)


def run(ns: argparse.Namespace, services: Services) -> int:
    """Serve until EOF or a signal; a project created by ``--init`` is removed
    again when the server cannot start."""
    for name in ("zpm", "zpm_app", "zpm_adapters", "zpm_domain"):
        logging.getLogger(name).setLevel(logging.INFO)
    from zpm_app.server.sdk_imports import defer_package_initialisers

    defer_package_initialisers()
    from zpm_app.server import stdio

    created: list[Path] = []
    if ns.init and not _in_a_database():
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

    refused: tuple[type[BaseException], ...] = (
        services.project_not_found,
        HttpRefused,
        ValueError,
        *services.startup_errors,
    )
    try:
        http = _http_options(ns, services)
        if http is None:
            return stdio.serve(open_runner)
        return _serve_http(ns, services, http, open_runner)
    except KeyboardInterrupt:  # interrupted before serving started
        return 0
    except refused as error:
        for path in created:  # nothing was served: leave nothing behind
            shutil.rmtree(path, ignore_errors=True)
        plain = isinstance(error, (services.project_not_found, HttpRefused))
        prefix = "" if plain else "zpm serve: "
        return fail(f"{prefix}{error}")


def _in_a_database() -> bool:
    """Whether the memories are kept in a database (``--storage`` or
    ``ZPM_STORAGE_URL``): then ``--init`` makes no ``.zpm/``, which a server
    of a space does not need."""
    return os.environ.get("ZPM_STORAGE_URL", "file") not in ("", "file")


def _http_options(ns: argparse.Namespace, services: Services) -> HttpOptions | None:
    """What ``--http`` and its options (or the config's ``[serve]`` and
    ``[auth]``) ask for; ``None``: serve on stdio."""
    serve_table: dict[str, Any] = {}
    auth_table: dict[str, Any] = {}
    if services.read_config is not None:
        serve_table = services.read_config(ns.project, "serve")
        auth_table = services.read_config(ns.project, "auth") if ns.http or serve_table else {}
    bind = ns.http or serve_table.get("http")
    if not bind:
        return None
    from zpm_app.http.options import HttpOptions, HttpRefused, jwt_settings, parse_bind

    host, port = parse_bind(str(bind))
    if ns.headers_timeout is not None and not 0 < ns.headers_timeout < float("inf"):
        raise HttpRefused(f"--headers-timeout {ns.headers_timeout}: expected seconds above 0")
    for flag, value in (
        ("--mcp-sessions-per-token", ns.mcp_sessions_per_token),
        ("--page-sessions-per-token", ns.page_sessions_per_token),
        ("--calls-per-token", ns.calls_per_token),
    ):
        if value is not None and value < 1:
            raise HttpRefused(f"{flag} {value}: expected a number, 1 or more")
    servers = ns.authorization_server or auth_table.get("authorization_servers") or []
    jwt = jwt_settings(
        ns.jwks_url or auth_table.get("jwks_url"),
        ns.issuer or auth_table.get("issuer"),
        ns.audience or auth_table.get("audience"),
        tuple(str(s) for s in servers),
    )
    return HttpOptions(
        host,
        port,
        stateless=ns.stateless,
        no_auth=ns.no_auth,
        allowed_hosts=tuple(ns.allowed_host),
        allowed_origins=tuple(ns.allowed_origin),
        jwt=jwt,
        **_given(
            headers_s=ns.headers_timeout,
            mcp_sessions_per_token=ns.mcp_sessions_per_token,
            page_sessions_per_token=ns.page_sessions_per_token,
            calls_per_token=ns.calls_per_token,
        ),
    )


def _given(**values: Any) -> dict[str, Any]:
    """The options given on the command line (``None``: not given, the default holds)."""
    return {name: value for name, value in values.items() if value is not None}


def _serve_http(
    ns: argparse.Namespace,
    services: Services,
    options: HttpOptions,
    open_runner: Callable[[], ToolRunner],
) -> int:
    from zpm_app.http.app import serve_http
    from zpm_app.http.options import check_start

    store = None
    if not options.no_auth:
        if services.open_tokens is None:
            return fail("zpm serve: --http is not available here")
        store = services.open_tokens(ns.project)
    try:
        for warning in check_start(options, 0 if store is None else len(store.list())):
            logging.getLogger("zpm").warning("%s", warning)
        return serve_http(open_runner, options, store)
    finally:
        if store is not None:
            store.close()
