"""The ``zpm`` command line.

Commands: ``init [DIR]``, ``serve``, ``tools``, ``engines``, ``completion
SHELL``, ``version`` and one subcommand per catalogue tool in kebab case
(``zpm remember-fact --fact 'p(a)'``).  Tool flags come from the tool's
input schema: ``--old-fact`` (``--old_fact`` is accepted too); integer flags
are type-checked; boolean flags take ``true`` / ``false`` (a bare flag means
true); the first required text argument may also be given positionally
(``zpm define-rule 'mortal(X)' --body 'human(X)'``).  The options
``--project DIR``, ``--engine NAME`` and ``--format text|json`` may come
before or after the subcommand.

Output of a tool command (see ``output``): the result text on stdout, or
with ``--format json`` the tool's JSON value itself; a tool error exits 1.
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
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path
from typing import Any, NoReturn

from zpm_app.catalogue import TOOLS, ToolDefinition, ToolRunner, package_version, tool_listing
from zpm_app.completion import completion_script
from zpm_app.output import USAGE_ERROR, fail, print_outcome
from zpm_domain.errors import ZpmError

# Namespace names the CLI uses itself; a tool argument may not take them.
_RESERVED = frozenset(
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
_EPILOG = (
    "Tool commands print the result text on stdout; --format json prints the tool's "
    "JSON value itself. A tool error prints 'ERROR: <text>' ({\"error\": ...} in JSON) "
    "and exits 1; usage errors exit 2."
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
    project_dir: Callable[[str | None], Path] = lambda chosen: Path(chosen or ".").resolve()
    """The folder ``--project`` (or the environment, or the working directory) names."""
    open_session: Callable[[str | None, str | None], ToolRunner] | None = None
    """``open_runner`` for ``zpm serve --fork``: the tools work on a fresh
    fork of ``default`` (``None``: not offered)."""
    open_server: Callable[[str | None, str | None], ToolRunner] | None = None
    """``open_runner`` for ``zpm serve`` (``None``: ``open_runner`` itself).
    Tool commands also reach forks that are not mounted (a person inspects
    or edits a session's fork); a server reaches only mounted memories."""


class StartupFailed(Exception):
    """The project was found but could not be opened; the text says why."""


def default_services() -> Services:
    """The production wiring; the knowledge base is imported only to open it."""
    from zpm_app import config

    def opener(
        session_fork: bool = False, lend_forks: bool = False
    ) -> Callable[[str | None, str | None], ToolRunner]:
        def open_runner(project: str | None, engine: str | None) -> ToolRunner:
            settings = config.resolve_settings(project=project, engine=engine)
            from zpm_app import bootstrap, engines

            try:
                runner: ToolRunner = bootstrap.open_toolbox(
                    settings, session_fork=session_fork, lend_forks=lend_forks
                )
            except (bootstrap.StartupError, engines.EngineError) as error:
                raise StartupFailed(str(error)) from error
            return runner

        return open_runner

    return Services(
        opener(lend_forks=True),
        config.init_project,
        config.ProjectNotFound,
        (config.ConfigError, StartupFailed, ZpmError, OSError),
        config.project_dir,
        open_session=opener(session_fork=True),
        open_server=opener(),
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
    parser = build_parser(tools)
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    ns, extras = parser.parse_known_args(args)
    if extras:
        _unrecognized(getattr(ns, "command_parser", parser), extras)
    if ns.command == "version":
        print(f"zpm {package_version()}")
        return 0
    if ns.command == "completion":
        print(completion_script(parser, ns.shell), end="")
        return 0
    if ns.command == "tools":
        return _tools(tools, ns.format)
    spec: ToolDefinition | None = getattr(ns, "tool", None)
    arguments = _tool_arguments(ns.command_parser, spec, ns) if spec is not None else {}
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="zpm: %(levelname)s: %(message)s"
    )
    if ns.command == "engines":
        return _engines(ns.format)
    services = services or default_services()
    if ns.command == "init":
        return _init(services, ns.directory)
    if ns.command == "serve":
        return _serve(ns, services)
    if ns.command == "forks":
        return _forks(ns, services)
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
    _add_global_options(parser, top=True)
    commands = parser.add_subparsers(
        title="COMMANDS", dest="command", metavar="COMMAND", required=True
    )
    init = _command(commands, "init", "create .zpm/ in DIR (default: the current directory)")
    init.add_argument("directory", nargs="?", metavar="DIR", help="the project folder")
    serve = _command(commands, "serve", "serve the tools over MCP on stdin/stdout")
    serve.add_argument(
        "--init",
        action="store_true",
        help="create the project (the folder and .zpm/) when missing; "
        "what was created is removed again if the server cannot start",
    )
    serve.add_argument(
        "--fork",
        action="store_true",
        help="work on a fresh fork of the default memory (session_YYYYMMDD_HHMMSS_xxxx), "
        "every other memory read-only; the fork stays for a person to inspect, merge "
        "(zpm merge-memory --name ...) or prune (zpm forks prune)",
    )
    _add_global_options(serve, formats=False)
    _add_global_options(_command(commands, "tools", "list the tools"))
    engines = _command(
        commands,
        "engines",
        "list the Prolog engines, whether each can run here, and how to fix it",
    )
    _add_global_options(engines)
    forks = _command(commands, "forks", "list or prune the project's forks")
    actions = forks.add_subparsers(title="ACTIONS", dest="forks_action", metavar="ACTION")
    actions.required = True
    _add_global_options(
        _command(actions, "list", "list the forks: name, base, last change, mounted or not")
    )
    prune = _command(actions, "prune", "delete the forks unchanged for a while; lists them")
    prune.add_argument(
        "--older-than",
        metavar="AGE",
        type=_age,
        required=True,
        help="how long a fork must have been unchanged: 7d, 12h, 30m or seconds",
    )
    prune.add_argument(
        "--dry-run", action="store_true", help="list what would be deleted, delete nothing"
    )
    _add_global_options(prune)
    completion = _command(commands, "completion", "print a shell completion script")
    completion.add_argument("shell", choices=("bash", "zsh"), metavar="SHELL", help="bash or zsh")
    _command(commands, "version", "print the version")
    for spec in tools:
        _add_tool_command(commands, spec)
    return parser


def _command(commands: Any, name: str, help_text: str, **kwargs: Any) -> argparse.ArgumentParser:
    sub: argparse.ArgumentParser = commands.add_parser(
        name, help=help_text, allow_abbrev=False, **kwargs
    )
    sub.set_defaults(command_parser=sub)
    return sub


class _VersionAction(argparse.Action):
    """``--version``, reading the installed version only when used."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        print(f"zpm {package_version()}")
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors exit 2 and suggest the closest command or choice."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {_suggesting(message)}\n")


def _suggesting(message: str) -> str:
    """argparse's ``invalid choice`` message, shortened, with the closest valid choice."""
    found = re.match(r"argument (.+?): invalid choice: '(.*?)' \(choose from (.*)\)$", message)
    if found is None:
        return message
    what, given, listed = found.groups()
    choices = re.findall(r"'([^']*)'", listed)
    close = get_close_matches(given, choices, n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else f" (choose from {listed})"
    if what == "COMMAND":
        return (
            f"unknown command '{given}'{hint}"
            if close
            else (f"unknown command '{given}' (zpm --help lists the commands)")
        )
    return f"argument {what}: invalid choice: '{given}'{hint}"


def _unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> NoReturn:
    """Refuse arguments ``parser`` does not take, suggesting the closest flag."""
    flags = [flag for action in parser._actions for flag in action.option_strings]
    suggestions = []
    for extra in extras:
        if extra.startswith("--"):
            close = get_close_matches(extra.split("=", 1)[0], flags, n=1, cutoff=0.6)
            if close:
                suggestions.append(f"did you mean {close[0]} (not {extra.split('=', 1)[0]})?")
    tail = f"; {' '.join(suggestions)}" if suggestions else ""
    parser.error(f"unrecognized arguments: {' '.join(extras)}{tail}")


def _add_global_options(
    parser: argparse.ArgumentParser, *, top: bool = False, formats: bool = True
) -> None:
    """``--project``, ``--engine`` and ``--format``: on the top-level parser with
    their defaults, on a subcommand without (so a value given before the
    subcommand holds unless given again after it)."""
    default: Any = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--project",
        metavar="DIR",
        default=default,
        help="project directory (default: search upwards from the current directory)",
    )
    parser.add_argument(
        "--engine",
        metavar="NAME",
        default=default,
        help="Prolog engine (default: configured, else auto)",
    )
    if formats:
        parser.add_argument(
            "--format",
            choices=("text", "json"),
            default="text" if top else argparse.SUPPRESS,
            help="output format (default: text)",
        )


def _add_tool_command(commands: Any, spec: ToolDefinition) -> None:
    sub = _command(
        commands, spec.cli_name, _first_sentence(spec.description), description=spec.description
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
    _add_global_options(sub)


def _positional_property(spec: ToolDefinition) -> str | None:
    for name in spec.required:
        if spec.properties[name].get("type") == "string":
            return name
    return None


def _tool_arguments(
    parser: argparse.ArgumentParser, spec: ToolDefinition, ns: argparse.Namespace
) -> dict[str, Any]:
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


def _run_tool(
    spec: ToolDefinition, arguments: dict[str, Any], ns: argparse.Namespace, services: Services
) -> int:
    command = spec.cli_name
    try:
        runner = services.open_runner(ns.project, ns.engine)
    except services.project_not_found as error:
        return fail(f"zpm {command}: NotFound. {error}")
    except services.startup_errors as error:
        return fail(f"zpm {command}: {error}")
    try:
        outcome = runner.call(spec.name, arguments)
    except ZpmError as error:
        return fail(f"zpm {command}: {error}")
    finally:
        runner.close()
    return print_outcome(outcome, ns.format, json_text=spec.output_schema is not None)


def _forks(ns: argparse.Namespace, services: Services) -> int:
    """``zpm forks list`` and ``zpm forks prune --older-than AGE [--dry-run]``."""
    from zpm_domain import forks
    from zpm_domain.memories import Memories

    command = f"zpm forks {ns.forks_action}"
    try:
        runner = services.open_runner(ns.project, ns.engine)
    except services.project_not_found as error:
        return fail(f"{command}: NotFound. {error}")
    except services.startup_errors as error:
        return fail(f"{command}: {error}")
    try:
        memories = getattr(runner, "memories", None)
        if not isinstance(memories, Memories):
            return fail(f"{command}: this zpm cannot reach the project's memories")
        older_than = ns.older_than if ns.forks_action == "prune" else 0.0
        stale = forks.stale_forks(memories, older_than, time.time())
        if ns.forks_action == "prune" and not getattr(ns, "dry_run", False):
            forks.prune(memories, stale)
    except (ZpmError, OSError) as error:
        return fail(f"{command}: {error}")
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


def _age(text: str) -> float:
    """``7d``, ``12h``, ``30m``, ``45s`` or a number of seconds, as seconds."""
    units = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
    number, unit = (text[:-1], units[text[-1]]) if text[-1:] in units else (text, 1.0)
    try:
        value = float(number) * unit
    except ValueError:
        message = f"not an age: {text!r} (use 7d, 12h, 30m or seconds)"
        raise argparse.ArgumentTypeError(message) from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"not an age: {text!r} (it must be 0 or more)")
    return value


def _init(services: Services, directory: str | None) -> int:
    """``zpm init [DIR]``: DIR (created when missing, with its parents) gets ``.zpm/``."""
    folder = Path.cwd() if directory is None else Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _created, message = services.init_project(folder)
    except OSError as error:
        return fail(f"zpm init: {error}")
    print(message if directory is None else f"{message} ({folder.resolve()})")
    return 0


def _tools(tools: Sequence[ToolDefinition], output_format: str) -> int:
    """``zpm tools``: each tool with its subcommand and first sentence (JSON: as tools/list)."""
    if output_format == "json":
        print(json.dumps([tool_listing(spec) for spec in tools], ensure_ascii=False))
        return 0
    width = max(len(spec.cli_name) for spec in tools)
    for spec in tools:
        print(f"{spec.cli_name:<{width}}  {_first_sentence(spec.description)}")
    return 0


def _engines(output_format: str) -> int:
    """``zpm engines``: needs no project; a plugin problem prints on stderr, exit 1."""
    from zpm_app import engines

    try:
        records = engines.engine_records()
    except engines.PluginError as error:
        return fail(f"zpm engines: {error}")
    if output_format == "json":
        print(json.dumps(engines.engines_value(records), ensure_ascii=False))
    else:
        print(engines.engines_report(records))
    return 0


def _serve(ns: argparse.Namespace, services: Services) -> int:
    for name in ("zpm", "zpm_app", "zpm_adapters", "zpm_domain"):
        logging.getLogger(name).setLevel(logging.INFO)
    from zpm_app import server

    created: list[Path] = []
    if ns.init:
        try:
            created = _create_project(services, services.project_dir(ns.project))
        except OSError as error:
            return fail(f"zpm serve: {error}")
    open_runner = services.open_session if ns.fork else services.open_server or services.open_runner
    if open_runner is None:
        return fail("zpm serve: --fork is not available here")
    try:
        return server.serve(lambda: open_runner(ns.project, ns.engine))
    except KeyboardInterrupt:  # interrupted before serving started
        return 0
    except (services.project_not_found, *services.startup_errors) as error:
        for path in created:  # nothing was served: leave nothing behind
            shutil.rmtree(path, ignore_errors=True)
        prefix = "" if isinstance(error, services.project_not_found) else "zpm serve: "
        return fail(f"{prefix}{error}")


def _create_project(services: Services, folder: Path) -> list[Path]:
    """Make ``folder`` a project; what was created, outermost first."""
    created: list[Path] = []
    missing = folder
    while not missing.exists():
        created[:] = [missing]
        missing = missing.parent
    folder.mkdir(parents=True, exist_ok=True)
    made, _ = services.init_project(folder)
    if made and not created:
        created = [folder / ".zpm"]
    return created


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
