"""``zpm history prune --before TIME [--memory M]``: drop the history older
than a moment (``zpm_app.services.history_prune``).  ``zpm history`` without
``prune`` is the ``history`` tool's command."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from zpm_app.cli.parsing import add_global_options, command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services

NAME = "history-prune"
WORDS = ("history", "prune")
"""How people type it: ``zpm history prune`` (``zpm history-prune`` works too)."""


def add(commands: Any) -> None:
    prune = command(
        commands,
        NAME,
        "zpm history prune: drop the history older than a time (whole journal generations; "
        "the state is never touched)",
    )
    prune.add_argument(
        "--before",
        metavar="TIME",
        type=moment,
        required=True,
        help="an ISO 8601 time (UTC when it has no zone): the changes committed before it go, "
        "generation by generation",
    )
    prune.add_argument(
        "--memory", metavar="M", help="only memory M's history (default: every memory)"
    )
    add_global_options(prune)


def moment(text: str) -> int:
    """An ISO 8601 time as whole seconds since the epoch."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a time: {text!r} (use ISO 8601, e.g. 2026-12-01T10:42:11Z)"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() // 1)


def run(ns: argparse.Namespace, services: Services) -> int:
    from zpm_app.bootstrap import config, startup
    from zpm_app.services import history_prune
    from zpm_domain.errors import ZpmError
    from zpm_domain.ports.storage import MemoryMissing

    try:
        settings = config.resolve_settings(project=ns.project)
        opened = startup.open_registry(settings)
        try:
            pruned = history_prune.prune(opened.registry, opened.label, ns.before, ns.memory)
        finally:
            opened.release()
    except config.ProjectNotFound as error:
        return fail(f"zpm history prune: NotFound. {error}")
    except (config.ConfigError, ZpmError, OSError, MemoryMissing) as error:
        return fail(f"zpm history prune: {error}")
    if ns.format == "json":
        rows = [{"memory": p.memory, "dropped": p.batches, "since": p.since} for p in pruned]
        print(json.dumps({"memories": rows}, ensure_ascii=False))
        return 0
    for done in pruned:
        kept = f"history kept since {done.since}" if done.since else "no history kept"
        print(f"{done.memory}: {done.batches} changes dropped; {kept}")
    return 0
