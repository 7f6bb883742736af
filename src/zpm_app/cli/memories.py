"""``zpm memories delete NAME [--scope project|global]``: delete a memory's files.

The same as the ``delete_memory`` tool (``zpm delete-memory --name NAME``),
which says what it refuses: ``default``, a mounted memory, a memory that
forks were made from.  A fork's unmerged changes go with it; the answer
says how many.
"""

from __future__ import annotations

import argparse
from typing import Any

from zpm_app.cli.parsing import actions, add_global_options, command
from zpm_app.cli.services import Services
from zpm_app.output import fail, print_outcome
from zpm_domain.errors import ZpmError

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
    command_name = f"zpm memories {ns.memories_action}"
    try:
        runner = services.open_runner(ns.project, ns.engine)
    except services.project_not_found as error:
        return fail(f"{command_name}: NotFound. {error}")
    except services.startup_errors as error:
        return fail(f"{command_name}: {error}")
    arguments = {"name": ns.name}
    if ns.scope is not None:
        arguments["scope"] = ns.scope
    try:
        outcome = runner.call("delete_memory", arguments)
    except ZpmError as error:
        return fail(f"{command_name}: {error}")
    finally:
        runner.close()
    return print_outcome(outcome, ns.format, json_text=False)
