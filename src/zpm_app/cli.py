"""The ``zpm`` command line.

Commands: ``init``, ``serve``, ``engines``, ``version`` and one subcommand per catalogue
tool in kebab case (``zpm remember-fact --fact 'p(a)'``).  Tool flags come
from the tool's input schema: ``--old-fact`` (``--old_fact`` is accepted
too); integer flags are type-checked; boolean flags take ``true`` / ``false``
(a bare flag means true); the first required text argument may also be given
positionally (``zpm define-rule 'mortal(X)' --body 'human(X)'``).

Output of a tool command: ``--format text`` (default) prints the result text
and a newline on stdout; a tool error prints ``ERROR: <text>`` on stdout and
exits 1.  ``--format json`` prints a JSON array of the result texts (exit 1
on a tool error).  Usage errors and bootstrap failures go to stderr, exit 1.

Only ``serve`` imports the MCP SDK; tool commands stay light so a one-shot
``zpm query-logic`` starts fast.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from zpm_app.catalogue import TOOLS, ToolDefinition, ToolRunner, package_version
from zpm_app.output import fail, print_outcome
from zpm_domain.errors import ZpmError

NO_PROJECT_FOR_SERVE = "No .zpm/ directory found. Run `zpm init` to initialize a project."
# Namespace names the CLI uses itself; a tool argument may not take them.
_RESERVED = frozenset(
    {"format", "project", "engine", "command", "tool", "tool_parser", "positional"}
)
_EPILOG = (
    "Tool commands print the result text on stdout. A tool error prints "
    "'ERROR: <text>' on stdout and exits 1; --format json prints a JSON array of "
    "the result texts instead."
)


@dataclass(frozen=True)
class Services:
    """How the CLI reaches the application.

    ``open_runner(project, engine)`` finds the project (``project`` or the
    current directory upwards) and opens its tools; it raises
    ``project_not_found`` when there is no ``.zpm/`` and one of
    ``startup_errors`` (whose text says what is wrong) when the project
    cannot be opened.  ``init_project(directory)`` returns
    ``(created, message)``.
    """

    open_runner: Callable[[str | None, str | None], ToolRunner]
    init_project: Callable[[Path], tuple[bool, str]]
    project_not_found: type[BaseException]
    startup_errors: tuple[type[BaseException], ...] = (ZpmError, OSError)


class StartupFailed(Exception):
    """The project was found but could not be opened; the text says why."""


def default_services() -> Services:
    """The production wiring; the knowledge base is imported only to open it."""
    from zpm_app import config

    def open_runner(project: str | None, engine: str | None) -> ToolRunner:
        settings = config.resolve_settings(project=project, engine=engine)
        from zpm_app import bootstrap, engines

        try:
            runner: ToolRunner = bootstrap.open_toolbox(settings)
        except (bootstrap.StartupError, engines.EngineError) as error:
            raise StartupFailed(str(error)) from error
        return runner

    return Services(
        open_runner,
        config.init_project,
        config.ProjectNotFound,
        (config.ConfigError, StartupFailed, ZpmError, OSError),
    )


def main(
    argv: Sequence[str] | None = None,
    services: Services | None = None,
    tools: Sequence[ToolDefinition] = TOOLS,
) -> int:
    """Run one ``zpm`` command (``argv`` defaults to ``sys.argv[1:]``); returns the exit code.

    Usage errors raise ``SystemExit(1)`` (``--help``: ``SystemExit(0)``).
    """
    parser = build_parser(tools)
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        parser.print_help(sys.stderr)
        return 1
    ns = parser.parse_args(args)
    if ns.command == "version":
        print(f"zpm {package_version()}")
        return 0
    spec: ToolDefinition | None = getattr(ns, "tool", None)
    arguments = _tool_arguments(ns.tool_parser, spec, ns) if spec is not None else {}
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="zpm: %(levelname)s: %(message)s"
    )
    if ns.command == "engines":
        return _engines()
    services = services or default_services()
    if ns.command == "init":
        return _init(services)
    if ns.command == "serve":
        return _serve(ns, services)
    assert spec is not None
    return _run_tool(spec, arguments, ns, services)


def build_parser(tools: Sequence[ToolDefinition] = TOOLS) -> argparse.ArgumentParser:
    """The full parser: built-in commands, then one subcommand per tool."""
    parser = _Parser(
        prog="zpm",
        description="A durable, queryable Prolog knowledge base as memory for AI agents.",
        epilog=_EPILOG,
        allow_abbrev=False,
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    commands = parser.add_subparsers(
        title="COMMANDS", dest="command", metavar="COMMAND", required=True
    )
    commands.add_parser("init", help="create .zpm/ in the current directory", allow_abbrev=False)
    serve = commands.add_parser(
        "serve", help="serve the tools over MCP on stdin/stdout", allow_abbrev=False
    )
    _add_project_options(serve)
    commands.add_parser(
        "engines",
        help="list the Prolog engines, whether each can run here, and how to fix it",
        allow_abbrev=False,
    )
    commands.add_parser("version", help="print the version", allow_abbrev=False)
    for spec in tools:
        _add_tool_command(commands, spec)
    return parser


class _VersionAction(argparse.Action):
    """``--version``, reading the installed version only when used."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        print(f"zpm {package_version()}")
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """argparse with exit code 1 (not 2) for usage errors."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _add_project_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project", metavar="DIR", help="project directory (default: search upwards)"
    )
    parser.add_argument(
        "--engine", metavar="NAME", help="Prolog engine (default: configured, else auto)"
    )


def _add_tool_command(commands: Any, spec: ToolDefinition) -> None:
    sub = commands.add_parser(
        spec.cli_name,
        help=_first_sentence(spec.description),
        description=spec.description,
        allow_abbrev=False,
    )
    sub.set_defaults(tool=spec, tool_parser=sub)
    positional = _positional_property(spec)
    if positional is not None:
        sub.add_argument(
            "positional",
            nargs="?",
            metavar=positional.upper(),
            help=f"same as --{positional.replace('_', '-')}",
        )
    for name, schema in spec.properties.items():
        if name in _RESERVED:
            raise ValueError(f"tool {spec.name}: argument '{name}' clashes with a CLI option")
        kebab = f"--{name.replace('_', '-')}"
        options: dict[str, Any] = {"dest": name, "help": schema.get("description")}
        kind = schema.get("type")
        if kind == "integer":
            options.update(type=_integer, metavar="N")
        elif kind == "number":
            options.update(type=_number, metavar="X")
        elif kind == "boolean":
            options.update(type=_boolean, nargs="?", const=True, metavar="true|false")
        else:
            options.update(metavar=name.upper())
        sub.add_argument(kebab, **options)
        if f"--{name}" != kebab:
            sub.add_argument(f"--{name}", **{**options, "help": argparse.SUPPRESS})
    sub.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    _add_project_options(sub)


def _positional_property(spec: ToolDefinition) -> str | None:
    for name in spec.required:
        if spec.properties[name].get("type") == "string":
            return name
    return None


def _tool_arguments(
    parser: argparse.ArgumentParser, spec: ToolDefinition, ns: argparse.Namespace
) -> dict[str, Any]:
    arguments = {name: getattr(ns, name) for name in spec.properties}
    positional = _positional_property(spec)
    if positional is not None and ns.positional is not None:
        if arguments[positional] is not None:
            flag = positional.replace("_", "-")
            parser.error(f"{spec.cli_name}: give {positional.upper()} or --{flag}, not both")
        arguments[positional] = ns.positional
    missing = [name for name in spec.required if arguments[name] is None]
    if missing:
        flags = ", ".join(f"--{name.replace('_', '-')}" for name in missing)
        parser.error(f"{spec.cli_name}: the following arguments are required: {flags}")
    return {name: value for name, value in arguments.items() if value is not None}


def _run_tool(
    spec: ToolDefinition, arguments: dict[str, Any], ns: argparse.Namespace, services: Services
) -> int:
    command = spec.cli_name
    try:
        runner = services.open_runner(ns.project, ns.engine)
    except services.project_not_found:
        return fail(f"zpm {command}: NotFound. Run 'zpm init' first.")
    except services.startup_errors as error:
        return fail(f"zpm {command}: {error}")
    try:
        outcome = runner.call(spec.name, arguments)
    except ZpmError as error:
        return fail(f"zpm {command}: {error}")
    finally:
        runner.close()
    return print_outcome(outcome, ns.format)


def _init(services: Services) -> int:
    try:
        _created, message = services.init_project(Path.cwd())
    except OSError as error:
        return fail(f"zpm init: {error}")
    print(message)
    return 0


def _engines() -> int:
    """``zpm engines``: needs no project; a plugin problem prints on stderr, exit 1."""
    from zpm_app import engines

    try:
        records = engines.engine_records()
    except engines.PluginError as error:
        return fail(f"zpm engines: {error}")
    print(engines.engines_report(records))
    return 0


def _serve(ns: argparse.Namespace, services: Services) -> int:
    for name in ("zpm", "zpm_app", "zpm_adapters", "zpm_domain"):
        logging.getLogger(name).setLevel(logging.INFO)
    from zpm_app import server

    try:
        return server.serve(lambda: services.open_runner(ns.project, ns.engine))
    except KeyboardInterrupt:  # interrupted before serving started
        return 0
    except services.project_not_found as error:
        return fail(str(error) or NO_PROJECT_FOR_SERVE)
    except services.startup_errors as error:
        return fail(f"zpm serve: {error}")


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}") from None


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None


def _boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")


def _first_sentence(text: str) -> str:
    head, _, _ = text.partition(". ")
    return head.rstrip(".")
