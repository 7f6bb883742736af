"""``zpm memories delete NAME [--scope project|global]``: delete a memory's files.

The same as the ``delete_memory`` tool (``zpm delete-memory --name NAME``),
which says what it refuses: ``default``, a mounted memory, a memory that
forks were made from.  A fork's unmerged changes go with it; the answer
says how many.
"""

from __future__ import annotations

import argparse
from typing import Any

from zpm_app.catalogue.tool_catalogue import find_tool
from zpm_app.cli.parsing import actions, add_global_options, command
from zpm_app.cli.tool_commands import run_tool
from zpm_app.cli.wiring import Services

NAME = "memories"


def add(commands: Any) -> None:
    memories = command(commands, NAME, "delete a memory")
    chosen = actions(memories, "memories_action")
    delete = command(
        chosen,
        "delete",
        "delete a memory and all its files (not default, not a mounted one, not one that "
        "forks were made from; a fork's unmerged changes go with it)",
    )
    delete.add_argument("name", metavar="NAME", help="the memory")
    delete.add_argument(
        "--scope",
        choices=("project", "global"),
        help="its scope (default: the one scope that has it)",
    )
    add_global_options(delete)


def run(ns: argparse.Namespace, services: Services) -> int:
    spec = find_tool("delete_memory")
    assert spec is not None
    arguments = {"name": ns.name}
    if ns.scope is not None:
        arguments["scope"] = ns.scope
    return run_tool(spec, arguments, ns, services, f"zpm memories {ns.memories_action}")
