"""The pieces every ``zpm`` subcommand's parser is built from.

* :class:`Parser`: argparse whose usage errors exit 2 and suggest the
  closest command, choice or flag;
* :func:`command`: add a subcommand that remembers its own parser
  (``ns.command_parser``), for errors that name it;
* :func:`add_global_options`: ``--project``, ``--engine``, ``--storage``,
  ``--space`` and ``--format``, which may come before or after the subcommand
  (:func:`apply_storage_options` makes the storage ones the settings' own);
* argument types (``integer``, ``number``, ``boolean``, ``age``).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from difflib import get_close_matches
from typing import Any, NoReturn

from zpm_app.cli.printing import USAGE_ERROR


class Parser(argparse.ArgumentParser):
    """argparse whose usage errors exit 2 and suggest the closest command or choice."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR, f"{self.prog}: error: {_suggesting(message)}\n")


def command(commands: Any, name: str, help_text: str, **kwargs: Any) -> argparse.ArgumentParser:
    """Add subcommand ``name`` to ``commands`` (an argparse subparsers action)."""
    sub: argparse.ArgumentParser = commands.add_parser(
        name, help=help_text, allow_abbrev=False, **kwargs
    )
    sub.set_defaults(command_parser=sub)
    return sub


def actions(parser: argparse.ArgumentParser, dest: str) -> Any:
    """The required sub-subcommands of ``parser`` (``zpm forks list``), named in ``dest``."""
    found = parser.add_subparsers(title="ACTIONS", dest=dest, metavar="ACTION")
    found.required = True
    return found


def add_global_options(
    parser: argparse.ArgumentParser, *, top: bool = False, formats: bool = True
) -> None:
    """``--project``, ``--engine``, ``--storage``, ``--space``, ``--as`` and
    ``--format``: on the top-level parser with
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
    parser.add_argument(
        "--storage",
        metavar="URL",
        default=default,
        help="where memories are kept: 'file' (the project's .zpm/, the default) or a "
        "PostgreSQL URL (stands for ZPM_STORAGE_URL)",
    )
    parser.add_argument(
        "--space",
        metavar="NAME",
        default=default,
        help="the project's space in the database of --storage (stands for ZPM_SPACE)",
    )
    parser.add_argument(
        "--as",
        dest="as_name",
        metavar="NAME",
        default=default,
        help="the client what this command stores is recorded under (default: cli:USER@HOST)",
    )
    if formats:
        parser.add_argument(
            "--format",
            choices=("text", "json"),
            default="text" if top else argparse.SUPPRESS,
            help="output format (default: text)",
        )


def apply_storage_options(ns: argparse.Namespace) -> None:
    """``--storage`` and ``--space`` stand for ``ZPM_STORAGE_URL`` and
    ``ZPM_SPACE`` for this command: set them so that every place that
    resolves the settings (``zpm_app.bootstrap.config``) sees them."""
    for option, variable in (("storage", "ZPM_STORAGE_URL"), ("space", "ZPM_SPACE")):
        value = getattr(ns, option, None)
        if value is not None:
            os.environ[variable] = value


def unrecognized(parser: argparse.ArgumentParser, extras: list[str]) -> NoReturn:
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


class VersionAction(argparse.Action):
    """``--version``, reading the installed version only when used."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        from zpm_app.version import package_version

        print(f"zpm {package_version()}")
        parser.exit(0)


def integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer: {text!r}") from None


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None


def boolean(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, not {text!r}")


def age(text: str) -> float:
    """``7d``, ``12h``, ``30m``, ``45s`` or a number of seconds, as seconds."""
    units = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
    count, unit = (text[:-1], units[text[-1]]) if text[-1:] in units else (text, 1.0)
    try:
        value = float(count) * unit
    except ValueError:
        message = f"not an age: {text!r} (use 7d, 12h, 30m or seconds)"
        raise argparse.ArgumentTypeError(message) from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"not an age: {text!r} (it must be 0 or more)")
    return value


def first_sentence(text: str) -> str:
    head, _, _ = text.partition(". ")
    return head.rstrip(".")
