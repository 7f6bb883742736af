"""One subcommand per catalogue tool: ``zpm remember-fact --fact 'p(a)'``.

Flags come from the tool's input schema: ``--old-fact`` (``--old_fact`` is
accepted too); integer flags are type-checked; boolean flags take ``true`` /
``false`` (a bare flag means true); the first required text argument may
also be given positionally (``zpm define-rule 'mortal(X)' --body 'human(X)'``).
"""

from __future__ import annotations

import argparse
from typing import Any

from zpm_app.catalogue import ToolDefinition
from zpm_app.cli.parsing import (
    add_global_options,
    boolean,
    command,
    first_sentence,
    integer,
    number,
)
from zpm_app.cli.services import Services
from zpm_app.output import fail, print_outcome
from zpm_domain.errors import ZpmError

RESERVED = frozenset(
    {
        "format",
        "project",
        "engine",
        "command",
        "command_parser",
        "tool",
        "positional",
        "directory",
        "init",
        "shell",
    }
)
"""Namespace names the CLI uses itself; a tool argument may not take them."""

SHORTHANDS: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "merge_memory": (
        ("--ours", "prefer", "base", "the base's change wins every conflict (--prefer base)"),
        ("--theirs", "prefer", "fork", "the fork's change wins every conflict (--prefer fork)"),
    ),
}
"""Flags that stand for a value of an argument: tool -> (flag, argument, value, help)."""


def add_tool_command(commands: Any, spec: ToolDefinition) -> None:
    """Add the subcommand of tool ``spec``; ``ValueError`` if an argument
    clashes with a name the CLI uses itself."""
    sub = command(
        commands, spec.cli_name, first_sentence(spec.description), description=spec.description
    )
    sub.set_defaults(tool=spec)
    positional = _positional_property(spec)
    if positional is not None:
        sub.add_argument(
            "positional",
            nargs="?",
            metavar=positional.upper(),
            help=f"same as --{positional.replace('_', '-')}",
        )
    for name, schema in spec.properties.items():
        if name in RESERVED:
            raise ValueError(f"tool {spec.name}: argument '{name}' clashes with a CLI option")
        kebab = f"--{name.replace('_', '-')}"
        options: dict[str, Any] = {"dest": name, "help": schema.get("description")}
        kind = schema.get("type")
        if kind == "integer":
            options.update(type=integer, metavar="N")
        elif kind == "number":
            options.update(type=number, metavar="X")
        elif kind == "boolean":
            options.update(type=boolean, nargs="?", const=True, metavar="true|false")
        else:
            options.update(metavar=name.upper())
        sub.add_argument(kebab, **options)
        if f"--{name}" != kebab:
            sub.add_argument(f"--{name}", **{**options, "help": argparse.SUPPRESS})
    for flag, name, value, said in SHORTHANDS.get(spec.name, ()):
        sub.add_argument(flag, dest=name, action="store_const", const=value, help=said)
    add_global_options(sub)


def tool_arguments(
    parser: argparse.ArgumentParser, spec: ToolDefinition, ns: argparse.Namespace
) -> dict[str, Any]:
    """The tool's arguments from the parsed command line; a usage error when
    a required one is missing or the positional one is given twice."""
    arguments = {name: getattr(ns, name, None) for name in spec.properties}
    positional = _positional_property(spec)
    if positional is not None and ns.positional is not None:
        if arguments[positional] is not None:
            flag = positional.replace("_", "-")
            parser.error(f"{spec.cli_name}: give {positional.upper()} or --{flag}, not both")
        arguments[positional] = ns.positional
    missing = [name for name in spec.required if arguments.get(name) is None]
    if missing:
        flags = ", ".join(f"--{name.replace('_', '-')}" for name in missing)
        parser.error(f"{spec.cli_name}: the following arguments are required: {flags}")
    return {name: value for name, value in arguments.items() if value is not None}


def run_tool(
    spec: ToolDefinition, arguments: dict[str, Any], ns: argparse.Namespace, services: Services
) -> int:
    """Open the project, run the tool once, print its outcome; the exit code."""
    name = spec.cli_name
    try:
        runner = services.open_runner(ns.project, ns.engine)
    except services.project_not_found as error:
        return fail(f"zpm {name}: NotFound. {error}")
    except services.startup_errors as error:
        return fail(f"zpm {name}: {error}")
    try:
        outcome = runner.call(spec.name, arguments)
    except ZpmError as error:
        return fail(f"zpm {name}: {error}")
    finally:
        runner.close()
    return print_outcome(outcome, ns.format, json_text=spec.output_schema is not None)


def _positional_property(spec: ToolDefinition) -> str | None:
    for name in spec.required:
        if spec.properties[name].get("type") == "string":
            return name
    return None
