"""``zpm tokens create|list|revoke``: the bearer tokens of ``zpm serve --http``.

``create NAME [--read-only] [--memory M ...] [--fork]`` prints the new token
on stdout, once: only its SHA-256 digest is kept (``.zpm/tokens.json``).
``list`` shows each token's name, scope, creation and last use (never the
token); ``revoke NAME`` forgets one, and a server refuses it from its next
request on.  A duplicate name, an unknown one to revoke, or a store that
cannot be read or written exits 1 with the reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from zpm_app.cli.parsing import actions, add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services
from zpm_app.services import bearer_tokens
from zpm_domain.errors import ZpmError
from zpm_domain.ports.tokens import TokenExists, TokenRecord

NAME = "tokens"


def add(commands: Any) -> None:
    parser = command(commands, NAME, "create, list and revoke the tokens of zpm serve --http")
    chosen = actions(parser, "tokens_action")
    create = command(chosen, "create", "create a token and print it (shown only this once)")
    create.add_argument("name", metavar="NAME", help="the token's name: its calls' client")
    create.add_argument("--read-only", action="store_true", help="its calls change nothing")
    create.add_argument(
        "--memory",
        action="append",
        default=[],
        metavar="M",
        help="limit it to memory M (repeat for more); other memories are not mounted for it",
    )
    create.add_argument(
        "--fork",
        action="store_true",
        help="its calls work in a fork of default of its own (token_NAME), every other "
        "memory read-only",
    )
    add_global_options(create, formats=False)
    listing = command(chosen, "list", "list the tokens (never the tokens themselves)")
    add_global_options(listing)
    revoke = command(chosen, "revoke", "revoke a token")
    revoke.add_argument("name", metavar="NAME", help="the token's name")
    add_global_options(revoke, formats=False)


def run(ns: argparse.Namespace, services: Services) -> int:
    where = f"zpm tokens {ns.tokens_action}"
    if services.open_tokens is None:
        return fail(f"{where}: this zpm cannot reach the project's tokens")
    try:
        store = services.open_tokens(ns.project)
    except services.project_not_found as error:
        return fail(f"{where}: NotFound. {error}")
    except services.startup_errors as error:
        return fail(f"{where}: {error}")
    try:
        if ns.tokens_action == "create":
            return _create(ns, store, where)
        if ns.tokens_action == "list":
            return _list(store.list(), ns.format)
        if not store.revoke(ns.name):
            return fail(f"{where}: no token named {ns.name}")
        print(f"Revoked token {ns.name}")
        return 0
    except (OSError, ValueError, ZpmError) as error:
        return fail(f"{where}: {error}")
    finally:
        store.close()


def _create(ns: argparse.Namespace, store: Any, where: str) -> int:
    token = bearer_tokens.new_token()
    try:
        record = bearer_tokens.make(
            ns.name,
            token,
            read_only=ns.read_only,
            memories=ns.memory,
            fork=ns.fork,
            now=time.time(),
        )
        store.add(record)
    except (bearer_tokens.BadTokenRequest, TokenExists) as error:
        return fail(f"{where}: {error}")
    print(token)
    print(
        f"zpm: token {record.name} ({bearer_tokens.scope_text(record)}); "
        "it is shown only this once",
        file=sys.stderr,
    )
    return 0


def _list(records: list[TokenRecord], output_format: str) -> int:
    if output_format == "json":
        rows = [
            {
                "name": r.name,
                "read_only": r.read_only,
                "memories": list(r.memories),
                "fork": r.fork,
                "created": _when(r.created),
                "last_used": None if r.last_used is None else _when(r.last_used),
            }
            for r in records
        ]
        print(json.dumps(rows, ensure_ascii=False))
        return 0
    if not records:
        print("No tokens.")
        return 0
    for r in records:
        used = "never used" if r.last_used is None else f"last used {_when(r.last_used)}"
        print(f"{r.name}  {bearer_tokens.scope_text(r)}  created {_when(r.created)}  {used}")
    return 0


def _when(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
