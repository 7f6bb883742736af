"""``zpm init [DIR]``: make a folder a zpm project (give it ``.zpm/``)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zpm_app.cli.parsing import command
from zpm_app.cli.printing import fail
from zpm_app.cli.wiring import Services

NAME = "init"


def add(commands: Any) -> None:
    init = command(commands, NAME, "create .zpm/ in DIR (default: the current directory)")
    init.add_argument("directory", nargs="?", metavar="DIR", help="the project folder")


def run(ns: argparse.Namespace, services: Services) -> int:
    """DIR (created when missing, with its parents) gets ``.zpm/``."""
    directory: str | None = ns.directory
    folder = Path.cwd() if directory is None else Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _created, message = services.init_project(folder)
    except OSError as error:
        return fail(f"zpm init: {error}")
    print(message if directory is None else f"{message} ({folder.resolve()})")
    return 0


def create_project(services: Services, folder: Path) -> list[Path]:
    """Make ``folder`` a project; what was created, outermost first (for
    ``zpm serve --init`` to remove again when the server cannot start)."""
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
