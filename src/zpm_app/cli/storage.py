"""``zpm storage init|migrate``: a database's zpm tables, and moving a
project between files and a database.

``init`` creates or migrates the tables of the database of ``--storage``
(or ``ZPM_STORAGE_URL``, or ``[storage] url``) and prints
``<database>: zpm tables at version N (were at M)``; with a space
(``--space``, ``ZPM_SPACE``, ``[storage] space``) it also makes that space.

``migrate --from A --to B`` copies a whole project: from a project folder
into space ``--space`` of a database, or from that space into a project
folder (``zpm_app.services.storage_copy``; ``--global`` copies the global memories
too).  Then both sides are opened and every memory compared
(``zpm_app.services.storage_compare``): one line per memory, ``default: 12
clauses, 1 assumptions, 3 snapshots, 0 withdrawals: identical``, then the
mounts', then the tokens' (``tokens: 2: identical``).  Exits 1 at the
first difference (named on stderr), and for a copy refused or failed, with
the reason on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from zpm_app.cli.parsing import actions, add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services

NAME = "storage"


def add(commands: Any) -> None:
    parser = command(
        commands,
        NAME,
        "create a database's zpm tables; move a project between files and a database",
    )
    chosen = actions(parser, "storage_action")
    init = command(
        chosen,
        "init",
        "create or migrate the zpm tables of the database of --storage, and make the space "
        "of --space when given",
    )
    add_global_options(init, formats=False)
    migrate = command(
        chosen,
        "migrate",
        "copy a whole project from a folder into space --space of a database, or back, "
        "then compare both",
    )
    migrate.add_argument(
        "--from", dest="source", required=True, metavar="DIR|URL", help="the project to copy"
    )
    migrate.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="URL|DIR",
        help="where to copy it: a database (into --space) or a folder (made when missing)",
    )
    migrate.add_argument(
        "--global",
        dest="with_global",
        action="store_true",
        help="copy the global memories too (the global root, or the global space "
        "ZPM_GLOBAL_SPACE, default 'global'); the target's must hold none",
    )
    add_global_options(migrate)


def run(ns: argparse.Namespace, services: Services) -> int:
    if ns.storage_action == "init":
        return _init(ns)
    return _migrate(ns)


def _init(ns: argparse.Namespace) -> int:
    from zpm_app.bootstrap import config
    from zpm_app.bootstrap.storages import prepare_database
    from zpm_domain.errors import ZpmError

    where = "zpm storage init"
    try:
        storage = config.resolve_storage(project=ns.project)
    except config.ProjectNotFound as error:
        return fail(f"{where}: NotFound. {error}")
    except config.ConfigError as error:
        return fail(f"{where}: {error}")
    if storage.url is None:
        return fail(
            f"{where}: the project keeps its memories in files: name a database with "
            "--storage URL (or ZPM_STORAGE_URL, or [storage] url in .zpm/config.toml)"
        )
    try:
        prepared = prepare_database(storage)
    except ZpmError as error:
        return fail(f"{where}: {error}")
    print(f"{prepared.where}: zpm tables at version {prepared.now} (were at {prepared.before})")
    if storage.space:
        print(f"space {storage.space} is ready (global memories: space {storage.global_space})")
    return 0


def _migrate(ns: argparse.Namespace) -> int:
    from zpm_app.bootstrap import config
    from zpm_app.services.storage_copy import CopyRefused, is_database
    from zpm_domain.errors import ZpmError
    from zpm_domain.ports.journal import JournalCorrupt
    from zpm_domain.ports.storage import MemoryExists, MemoryMissing

    where = "zpm storage migrate"
    if is_database(ns.source) == is_database(ns.target):
        return fail(
            f"{where}: copy from a project folder to a database, or from a database to a folder"
        )
    space = getattr(ns, "space", None) or os.environ.get("ZPM_SPACE")
    if not space:
        return fail(f"{where}: name the database's space with --space NAME (or ZPM_SPACE)")
    try:
        return _copy_and_compare(ns, space)
    except (CopyRefused, config.ConfigError, JournalCorrupt, ZpmError, OSError) as error:
        return fail(f"{where}: {error}")
    except MemoryExists as error:
        return fail(f"{where}: memory {error} is already in the target: the copy stopped there")
    except MemoryMissing as error:
        return fail(f"{where}: {error}")


def _copy_and_compare(ns: argparse.Namespace, space: str) -> int:
    from contextlib import ExitStack

    from zpm_app.bootstrap import config
    from zpm_app.bootstrap.copy_sides import database_side, file_side, global_space
    from zpm_app.services.storage_compare import compare_memories, compare_mounts, compare_tokens
    from zpm_app.services.storage_copy import copy_project, is_database

    env, clock = os.environ, config.clock(os.environ)
    to_database = is_database(ns.target)
    url, folder = (ns.target, Path(ns.source)) if to_database else (ns.source, Path(ns.target))
    folder = folder.absolute()
    with ExitStack() as stack:
        database = stack.enter_context(
            database_side(url, space, global_space(folder, env), create=to_database, clock=clock)
        )
        files = stack.enter_context(file_side(folder, create=not to_database, env=env, clock=clock))
        source, target = (files, database) if to_database else (database, files)
        copied = copy_project(source, target, with_global=ns.with_global)
        compared = compare_memories(source, target, copied, clock=clock)
        mounts = compare_mounts(source, target) if len(compared) == len(copied) else None
        entries = source.registry.read_manifest() or []
        tokens, tokens_differ = compare_tokens(source, target)
    differs = next((c for c in compared if c.difference is not None), None)
    if ns.format == "json":
        print(
            json.dumps(
                {
                    "from": source.where,
                    "to": target.where,
                    "memories": [_row(c) for c in compared],
                    "mounts": {"entries": len(entries), "identical": mounts is None},
                    "tokens": {"count": tokens, "identical": tokens_differ is None},
                    "identical": differs is None and mounts is None and tokens_differ is None,
                }
            )
        )
    else:
        print(f"copied {len(copied)} memories from {source.where} to {target.where}")
        for item in compared:
            print(item.line())
        if differs is None:
            print(f"mounts: {len(entries)} entries: {mounts or 'identical'}")
            print(f"tokens: {tokens}: {tokens_differ or 'identical'}")
    sys.stdout.flush()
    if differs is not None:
        return fail(f"zpm storage migrate: {differs.label}: {differs.difference}")
    if mounts is not None:
        return fail(f"zpm storage migrate: {mounts}")
    if tokens_differ is not None:
        return fail(f"zpm storage migrate: {tokens_differ}")
    return 0


def _row(item: Any) -> dict[str, Any]:
    return {
        "memory": item.ref.name,
        "scope": item.ref.scope,
        "clauses": item.clauses,
        "assumptions": item.assumptions,
        "snapshots": item.snapshots,
        "withdrawals": item.withdrawals,
        "identical": item.difference is None,
        "difference": item.difference,
    }
