"""One subcommand per catalogue tool: ``zpm remember-fact --fact 'p(a)'``.

Flags come from the tool's input schema: ``--old-fact`` (``--old_fact`` is
accepted too); integer flags are type-checked; boolean flags take ``true`` /
``false`` (a bare flag means true); the first required text argument may
also be given positionally (``zpm define-rule 'mortal(X)' --body 'human(X)'``).
A text argument given as a lone ``-`` is read from stdin (``zpm
remember-fact - < fact.pl``): one such argument per call, UTF-8, one final
newline dropped; so a long argument never meets the shell's limit on the
length of a command line, and meets the tools' own size limit instead.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from zpm_app.catalogue.tool_catalogue import ToolDefinition
from zpm_app.cli.identity import BadIdentity, cli_client
from zpm_app.cli.parsing import (
    add_global_options,
    boolean,
    command,
    first_sentence,
    integer,
    number,
)
from zpm_app.cli.printing import fail, print_outcome
from zpm_app.cli.wiring import Services
from zpm_domain.errors import ZpmError
from zpm_domain.memory.call_context import CallContext

STDIN = "-"
"""The value of a text argument that says: read it from stdin."""
STDIN_HELP = (
    "A text argument given as - is read from stdin (one per call; UTF-8, a final newline "
    "dropped). For the atom - itself, write '-'."
)

RESERVED = frozenset(
    {
        "format",
        "project",
        "engine",
        "command",
        "command_parser",
        "tool_spec",
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
        commands,
        spec.cli_name,
        first_sentence(spec.description),
        description=f"{spec.description} {spec.details}".strip(),
        epilog=STDIN_HELP if _text_properties(spec) else None,
        aliases=list(spec.cli_aliases),
    )
    sub.set_defaults(tool_spec=spec)
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
    parser: argparse.ArgumentParser,
    spec: ToolDefinition,
    ns: argparse.Namespace,
    stdin: IO[bytes] | None = None,
) -> dict[str, Any]:
    """The tool's arguments from the parsed command line, a text argument
    given as ``-`` read from ``stdin`` (default: the process's); a usage
    error when a required one is missing, the positional one is given twice,
    two arguments want stdin, or stdin is not UTF-8."""
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
    piped = [name for name in _text_properties(spec) if arguments.get(name) == STDIN]
    if len(piped) > 1:
        flags = " and ".join(f"--{name.replace('_', '-')}" for name in piped)
        parser.error(f"{spec.cli_name}: only one argument can be read from stdin, not {flags}")
    if piped:
        arguments[piped[0]] = _read_stdin(parser, spec, stdin or sys.stdin.buffer)
    return {name: value for name, value in arguments.items() if value is not None}


def _read_stdin(parser: argparse.ArgumentParser, spec: ToolDefinition, stdin: IO[bytes]) -> str:
    """All of ``stdin`` as text, without one final newline."""
    try:
        text = stdin.read().decode("utf-8")
    except UnicodeDecodeError as error:
        parser.error(f"{spec.cli_name}: stdin is not UTF-8 text ({error.reason})")
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    return text


def _text_properties(spec: ToolDefinition) -> list[str]:
    return [name for name, schema in spec.properties.items() if schema.get("type") == "string"]


def run_tool(
    spec: ToolDefinition,
    arguments: dict[str, Any],
    ns: argparse.Namespace,
    services: Services,
    command_name: str | None = None,
) -> int:
    """Open the project, run the tool once as the shell's client
    (``zpm_app.cli.identity``), print its outcome; the exit code.  Errors
    are prefixed with ``command_name`` (default: ``zpm`` and the tool's
    command)."""
    command_name = command_name or f"zpm {spec.cli_name}"
    try:
        client = cli_client(getattr(ns, "as_name", None))
    except BadIdentity as error:
        return fail(f"{command_name}: {error}")
    runner = services.open_for(command_name, ns.project, ns.engine)
    if isinstance(runner, str):
        return fail(runner)
    try:
        outcome = runner.call(spec.name, arguments, CallContext(client=client))
    except ZpmError as error:
        return fail(f"{command_name}: {error}")
    finally:
        runner.close()
    return print_outcome(outcome, ns.format, json_text=spec.output is not None)


def _positional_property(spec: ToolDefinition) -> str | None:
    for name in spec.required:
        if spec.properties[name].get("type") == "string":
            return name
    return None
