"""``zpm kb push``: store the project's knowledge files in its space.

Only for a project kept in a database (``--storage``/``ZPM_STORAGE_URL``
and a space): see ``zpm_app.services.knowledge_push``.  Prints one line per memory
(its files, and whether they changed); exits 1 when the project does not
use a database or a file cannot be read.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from zpm_app.cli.parsing import actions, add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services

NAME = "kb"


def add(commands: Any) -> None:
    kb = command(commands, NAME, "store the project's knowledge files in its database space")
    chosen = actions(kb, "kb_action")
    push = command(
        chosen,
        "push",
        "store kb/*.pl (the default memory) and kb/<memory>/knowledge.pl in the project's "
        "space; running servers open the memories whose files changed again at their next call",
    )
    add_global_options(push)


def run(ns: argparse.Namespace, services: Services) -> int:
    from zpm_app.bootstrap import config
    from zpm_app.bootstrap.storages import SharedStorageNeeded, push_knowledge
    from zpm_app.services.knowledge_push import PushFailed
    from zpm_domain.errors import ZpmError

    command_name = "zpm kb push"
    try:
        settings = config.resolve_settings(project=ns.project)
        pushed = push_knowledge(settings, command_name)
    except config.ProjectNotFound as error:
        return fail(f"{command_name}: NotFound. {error}")
    except (config.ConfigError, SharedStorageNeeded, PushFailed, ZpmError, OSError) as error:
        return fail(f"{command_name}: {error}")
    if ns.format == "json":
        rows = [{"memory": p.memory, "files": list(p.files), "changed": p.changed} for p in pushed]
        print(json.dumps({"space": settings.storage.space, "memories": rows}))
        return 0
    for p in pushed:
        state = "changed" if p.changed else "unchanged"
        print(f"{p.memory}: {', '.join(p.files) or 'no knowledge files'} ({state})")
    return 0
