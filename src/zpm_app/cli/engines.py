"""``zpm engines``: the Prolog engines, whether each can run here, and how to fix it."""

from __future__ import annotations

import argparse
import json
from typing import Any

from zpm_app.cli.parsing import add_global_options, command
from zpm_app.cli.wiring import Services

NAME = "engines"


def add(commands: Any) -> None:
    engines = command(
        commands,
        NAME,
        "list the Prolog engines, whether each can run here, and how to fix it",
    )
    add_global_options(engines)


def run(ns: argparse.Namespace, services: Services) -> int:
    """Needs no project; a broken plugin is listed with its problem (and
    warned about on stderr when the plugins load), exit 0."""
    from zpm_app.engines import registry, report

    records = registry.engine_records()
    problems = registry.plugin_problems()
    if ns.format == "json":
        print(json.dumps(report.engines_value(records, problems), ensure_ascii=False))
    else:
        print(report.engines_report(records, problems))
    return 0
