"""``zpm engines``: the Prolog engines, whether each can run here, and how to fix it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from zpm_app.cli.parsing import add_global_options, command
from zpm_app.cli.services import Services
from zpm_app.output import fail

NAME = "engines"


def add(commands: Any) -> None:
    engines = command(
        commands,
        NAME,
        "list the Prolog engines, whether each can run here, and how to fix it",
    )
    add_global_options(engines)


def run(ns: argparse.Namespace, services: Services) -> int:
    """Needs no project; a plugin problem prints on stderr, exit 1."""
    from zpm_app import engines

    try:
        records = engines.engine_records()
    except engines.PluginError as error:
        return fail(f"zpm engines: {error}")
    if ns.format == "json":
        print(json.dumps(engines.engines_value(records), ensure_ascii=False))
    else:
        print(engines.engines_report(records))
    return 0
