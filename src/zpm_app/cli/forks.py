"""``zpm forks list`` and ``zpm forks prune --older-than AGE [--dry-run]``."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from zpm_app.cli.parsing import actions, add_global_options, age, command
from zpm_app.cli.services import Services
from zpm_app.output import fail
from zpm_domain.errors import ZpmError

NAME = "forks"


def add(commands: Any) -> None:
    forks = command(commands, NAME, "list or prune the project's forks")
    chosen = actions(forks, "forks_action")
    add_global_options(
        command(chosen, "list", "list the forks: name, base, last change, mounted or not")
    )
    prune = command(chosen, "prune", "delete the forks unchanged for a while; lists them")
    prune.add_argument(
        "--older-than",
        metavar="AGE",
        type=age,
        required=True,
        help="how long a fork must have been unchanged: 7d, 12h, 30m or seconds",
    )
    prune.add_argument(
        "--dry-run", action="store_true", help="list what would be deleted, delete nothing"
    )
    add_global_options(prune)


def run(ns: argparse.Namespace, services: Services) -> int:
    from zpm_domain import forks
    from zpm_domain.memories import Memories

    command_name = f"zpm forks {ns.forks_action}"
    try:
        runner = services.open_runner(ns.project, ns.engine)
    except services.project_not_found as error:
        return fail(f"{command_name}: NotFound. {error}")
    except services.startup_errors as error:
        return fail(f"{command_name}: {error}")
    try:
        memories = getattr(runner, "memories", None)
        if not isinstance(memories, Memories):
            return fail(f"{command_name}: this zpm cannot reach the project's memories")
        older_than = ns.older_than if ns.forks_action == "prune" else 0.0
        stale = forks.stale_forks(memories, older_than, time.time())
        if ns.forks_action == "prune" and not getattr(ns, "dry_run", False):
            forks.prune(memories, stale)
    except (ZpmError, OSError) as error:
        return fail(f"{command_name}: {error}")
    finally:
        runner.close()
    rows = [
        {
            "name": fork.name,
            "fork_of": fork.base,
            "changed": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(fork.changed)),
            "kept": fork.kept,
        }
        for fork in stale
    ]
    if ns.format == "json":
        print(json.dumps({"forks": rows}, ensure_ascii=False))
        return 0
    dry_run = getattr(ns, "dry_run", False)
    verb = {"list": "", "prune": "would remove " if dry_run else "removed "}
    for row in rows:
        if ns.forks_action == "prune" and row["kept"]:
            print(f"kept {row['name']} (fork of {row['fork_of']}): {row['kept']}")
            continue
        said = verb[ns.forks_action]
        kept = f"; {row['kept']}" if ns.forks_action == "list" and row["kept"] else ""
        print(
            f"{said}{row['name']} (fork of {row['fork_of']}, last changed {row['changed']}{kept})"
        )
    if not rows:
        print("no forks" if ns.forks_action == "list" else "no fork is that old")
    return 0
