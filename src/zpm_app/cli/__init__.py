"""The ``zpm`` command line.

Commands: ``init [DIR]``, ``serve``, ``tools``, ``engines``, ``forks``, ``memories``,
``import``, ``journal``, ``kb``, ``storage``, ``tokens``, ``ui``,
``completion SHELL``, ``version`` and one subcommand per catalogue tool in
kebab case (``zpm remember-fact --fact 'p(a)'``, see ``tool_commands``).
The options ``--project DIR``, ``--engine NAME`` and ``--format text|json``
may come before or after the subcommand.

Each command that is not a tool is a module of this package with ``NAME``,
``add(commands)`` (its parser) and ``run(ns, services) -> exit code``,
listed in :data:`COMMANDS`.

Output of a tool command (see ``output``): the result text on stdout, or
with ``--format json`` the tool's JSON value itself, hints and notes on
stderr; a tool error exits 1.  A text argument given as ``-`` is read from
stdin (``tool_commands``).
Usage errors exit 2, with a suggestion for a misspelt command or flag;
start-up failures (no project, a broken configuration) go to stderr, exit 1.

Only ``serve`` imports the MCP SDK; tool commands stay light so a one-shot
``zpm query-logic`` starts fast.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from zpm_app.catalogue.tool_catalogue import TOOLS, ToolDefinition, tool_listing
from zpm_app.cli import (
    engines,
    forks,
    history,
    importing,
    journal,
    knowledge,
    memories,
    project,
    serve,
    storage,
    tokens,
    ui,
)
from zpm_app.cli.completion import completion_script
from zpm_app.cli.parsing import (
    Parser,
    VersionAction,
    add_global_options,
    apply_storage_options,
    command,
    first_sentence,
    unrecognized,
)
from zpm_app.cli.printing import USAGE_ERROR
from zpm_app.cli.tool_commands import add_tool_command, run_tool, tool_arguments
from zpm_app.cli.wiring import Services, StartupFailed, default_services
from zpm_app.version import package_version

__all__ = ["COMMANDS", "Services", "StartupFailed", "build_parser", "default_services", "main"]

COMMANDS: tuple[ModuleType, ...] = (
    project,
    serve,
    engines,
    forks,
    history,
    memories,
    importing,
    journal,
    knowledge,
    storage,
    tokens,
    ui,
)
"""The commands that are not tools, in the order ``zpm --help`` lists them."""

_RUN: dict[str, Callable[[argparse.Namespace, Services], int]] = {
    module.NAME: module.run for module in COMMANDS
}
_EPILOG = (
    "Tool commands print the result text on stdout; --format json prints the tool's "
    "JSON value itself. A tool error prints 'ERROR: <text>' ({\"error\": ...} in JSON) "
    "and exits 1; usage errors exit 2. Hints and notes go to stderr as 'zpm: <note>'. "
    "A text argument given as - is read from stdin."
)


def main(
    argv: Sequence[str] | None = None,
    services: Services | None = None,
    tools: Sequence[ToolDefinition] = TOOLS,
) -> int:
    """Run one ``zpm`` command (``argv`` defaults to ``sys.argv[1:]``); returns the exit code.

    Usage errors raise ``SystemExit(2)`` (``--help``: ``SystemExit(0)``).  A
    reader that closes stdout early (``zpm tools | head``) ends it quietly.
    """
    try:
        return _main(argv, services, tools)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(
    argv: Sequence[str] | None, services: Services | None, tools: Sequence[ToolDefinition]
) -> int:
    args = _two_words(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser(tools, only=_named_command(args, tools))
    if not args:
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    ns, extras = parser.parse_known_args(args)
    if extras:
        unrecognized(getattr(ns, "command_parser", parser), extras)
    apply_storage_options(ns)
    if ns.command == "version":
        print(f"zpm {package_version()}")
        return 0
    if ns.command == "completion":
        print(completion_script(parser, ns.shell), end="")
        return 0
    if ns.command == "tools":
        return _tools(tools, ns.format)
    spec: ToolDefinition | None = getattr(ns, "tool_spec", None)
    arguments = tool_arguments(ns.command_parser, spec, ns) if spec is not None else {}
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="zpm: %(levelname)s: %(message)s"
    )
    services = services or default_services()
    if spec is None:
        return _RUN[ns.command](ns, services)
    return run_tool(spec, arguments, ns, services)


def build_parser(
    tools: Sequence[ToolDefinition] = TOOLS, only: str | None = None
) -> argparse.ArgumentParser:
    """The full parser: built-in commands, then one subcommand per tool; with
    ``only``, the same parser with that subcommand alone (it parses that
    command's arguments exactly as the full one does, at a fraction of the
    cost of building them all)."""
    parser = Parser(
        prog="zpm",
        description="A durable, queryable Prolog knowledge base as memory for AI agents.",
        epilog=_EPILOG,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action=VersionAction, help="print the version and exit")
    add_global_options(parser, top=True)
    commands = parser.add_subparsers(
        title="COMMANDS", dest="command", metavar="COMMAND", required=True
    )
    for module in COMMANDS:
        if only in (None, module.NAME):
            module.add(commands)
    if only in (None, "tools"):
        add_global_options(command(commands, "tools", "list the tools"))
    if only is None:
        completion = command(commands, "completion", "print a shell completion script")
        completion.add_argument(
            "shell", choices=("bash", "zsh"), metavar="SHELL", help="bash or zsh"
        )
    if only in (None, "version"):
        command(commands, "version", "print the version")
    for spec in tools:
        if only in (None, spec.cli_name):
            add_tool_command(commands, spec)
    return parser


def _two_words(args: list[str]) -> list[str]:
    """``args`` with a command of two words (``history prune``, beside the
    ``history`` tool's command) made the one word its module is named."""
    for module in COMMANDS:
        words = getattr(module, "WORDS", None)
        if words is None:
            continue
        place = _command_place(args)
        if place is not None and tuple(args[place : place + 2]) == words:
            return [*args[:place], module.NAME, *args[place + 2 :]]
    return args


def _command_place(args: Sequence[str]) -> int | None:
    """Where the command's name is in ``args``: the first argument that is
    neither an option nor an option's value (``None``: none is)."""
    probe = argparse.ArgumentParser(add_help=False)
    add_global_options(probe, top=True)
    valued = {
        option for action in probe._actions if action.nargs != 0 for option in action.option_strings
    }
    skip = False
    for place, arg in enumerate(args):
        if skip:
            skip = False
        elif arg in valued:
            skip = True
        elif not arg.startswith("-"):
            return place
    return None


def _named_command(args: Sequence[str], tools: Sequence[ToolDefinition]) -> str | None:
    """The subcommand ``args`` name, when the parser needs no other: a
    command's name as the first argument that is neither an option nor an
    option's value; ``None`` (the full parser) for anything else: help, no
    command, an unknown name (the full parser suggests one), ``completion``
    (its script lists every command)."""
    place = _command_place(args)
    before = args if place is None else args[:place]
    if place is None or any(arg in ("-h", "--help", "--version") for arg in before):
        return None
    names = {module.NAME for module in COMMANDS} | {spec.cli_name for spec in tools}
    aliases = {alias: spec.cli_name for spec in tools for alias in spec.cli_aliases}
    named = aliases.get(args[place], args[place])
    return named if named in names | {"tools", "version"} else None


def _tools(tools: Sequence[ToolDefinition], output_format: str) -> int:
    """``zpm tools``: each tool with its subcommand and first sentence (JSON: as tools/list)."""
    if output_format == "json":
        print(json.dumps([tool_listing(spec) for spec in tools], ensure_ascii=False))
        return 0
    width = max(len(spec.cli_name) for spec in tools)
    for spec in tools:
        print(f"{spec.cli_name:<{width}}  {first_sentence(spec.description)}")
    return 0
