"""The mount manifest ``.zpm/mounts.json``.

::

    {
      "version": 1,
      "mounts": [
        {"name": "default", "path": ".zpm/kb/default", "scope": "project", "mode": "rw"},
        {"name": "shared", "path": "/home/u/.local/share/zpm/kb/shared",
         "scope": "global", "mode": "ro"}
      ]
    }

Project memories are recorded by their path relative to the project root,
global ones by their absolute path, or ``null`` in a process that knows no
global folder (paths are for people who read the file; zpm finds memories by
name and scope).  The file is replaced atomically.  One that
cannot be read (bad JSON, another version, a bad entry) is moved aside as
``mounts.json.corrupt-<unix time>`` with a warning, and reads as no manifest.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zpm_adapters.files.durable import write_atomically
from zpm_domain.memory.names import DEFAULT_MEMORY, NAME_PATTERN, RESERVED_NAMES
from zpm_domain.ports.storage import MountEntry

log = logging.getLogger("zpm")

VERSION = 1
MAX_BYTES = 1 << 20


class ManifestDamaged(ValueError):
    pass


def read_manifest(path: Path, *, clock: Callable[[], float] = time.time) -> list[MountEntry] | None:
    """The entries of the manifest at ``path``; ``None`` when missing or damaged."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        data = b""
    try:
        if path.is_dir():
            raise ManifestDamaged("a folder, not a file")
        if len(data) > MAX_BYTES:
            raise ManifestDamaged(f"larger than {MAX_BYTES} bytes")
        return parse_manifest(data)
    except ManifestDamaged as damage:
        aside = _aside(path, int(clock()))
        os.replace(path, aside)
        log.warning(
            "%s cannot be read (%s): moved aside to %s; starting with the default memory",
            path,
            damage,
            aside,
        )
        return None


def _aside(path: Path, stamp: int) -> Path:
    """``mounts.json.corrupt-<stamp>``, or ``...-<stamp>-1`` etc. when taken."""
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 0
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    return aside


def parse_manifest(data: bytes) -> list[MountEntry]:
    try:
        obj: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise ManifestDamaged(f"not JSON: {error}") from None
    version = obj.get("version") if isinstance(obj, dict) else None
    if type(version) is not int or version != VERSION:
        raise ManifestDamaged(f"not a version {VERSION} manifest")
    mounts = obj.get("mounts")
    if not isinstance(mounts, list):
        raise ManifestDamaged("'mounts' must be a list")
    entries = []
    for index, item in enumerate(mounts):
        if not isinstance(item, dict):
            raise ManifestDamaged(f"mount {index} is not an object")
        name, scope, mode = item.get("name"), item.get("scope"), item.get("mode")
        if not isinstance(name, str) or not (
            name == DEFAULT_MEMORY or (NAME_PATTERN.match(name) and name not in RESERVED_NAMES)
        ):
            raise ManifestDamaged(f"mount {index}: bad name {name!r}")
        if scope not in ("project", "global"):
            raise ManifestDamaged(f"mount {index}: bad scope {scope!r}")
        if mode not in ("rw", "ro"):
            raise ManifestDamaged(f"mount {index}: bad mode {mode!r}")
        entries.append(MountEntry(name, scope, mode))
    return entries


def write_manifest(path: Path, entries: list[tuple[MountEntry, str | None]]) -> None:
    """Replace the manifest with ``entries``, each with the path it records
    (``None`` for a global memory where no global folder is known)."""
    obj = {
        "version": VERSION,
        "mounts": [
            {"name": e.name, "path": where, "scope": e.scope, "mode": e.mode}
            for e, where in entries
        ],
    }
    data = (json.dumps(obj, indent=2) + "\n").encode("utf-8")
    write_atomically(path.with_name(f"{path.name}.tmp-{os.getpid()}"), path, data)
