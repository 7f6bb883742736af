"""``zpm kb push``: a project's knowledge files become its space's knowledge texts.

In a space of a database no server reads ``kb/*.pl`` from its own disk
(architecture §11.1): the texts live in the database, where every server
finds the same ones.  A push stores the default memory's ``kb/*.pl`` and
each named project memory's ``kb/<name>/knowledge.pl`` (creating the
memories the space does not have yet; forks have no knowledge files of
their own and are left alone), each memory's files in one transaction.
A push that changes a memory's texts moves the space's version on: every
server of the space opens that memory again at its next call (its knowledge
files, then its snapshot and journal), so all of them decide defeat and
static predicates by the same texts, as a server started afterwards does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from zpm_domain.memory.names import DEFAULT_MEMORY, NAME_PATTERN, RESERVED_NAMES
from zpm_domain.ports.storage import MemoryRef


class KnowledgeSpace(Protocol):
    """A space that keeps its memories' knowledge texts (a database's)."""

    def exists(self, ref: MemoryRef) -> bool:
        """Whether the space has memory ``ref``."""

    def create(self, ref: MemoryRef) -> None:
        """Make memory ``ref`` in the space."""

    def put_knowledge(self, ref: MemoryRef, files: list[tuple[str, str]]) -> bool:
        """Make ``files`` (name, text) memory ``ref``'s knowledge texts, in one
        transaction; whether they changed."""


@dataclass(frozen=True)
class Pushed:
    """One memory's push: its name, its files, and whether they changed."""

    memory: str
    files: tuple[str, ...]
    changed: bool


class PushFailed(Exception):
    """A knowledge file could not be read; the text names it."""


def push(defaults: list[Path], kb_dir: Path, registry: KnowledgeSpace) -> list[Pushed]:
    """Push a project's knowledge files into ``registry``'s space: ``defaults``
    (the default memory's files, in ``kb_dir``), and each named memory's
    ``kb_dir/<name>/knowledge.pl``.  ``PushFailed`` names a file that cannot
    be read."""
    done = []
    default = [(f"kb/{path.name}", _read(path)) for path in defaults]
    done.append(_put(registry, DEFAULT_MEMORY, default))
    for folder in sorted(kb_dir.iterdir() if kb_dir.is_dir() else []):
        own = folder / "knowledge.pl"
        if not _named_memory(folder) or not own.is_file() or (folder / "fork.json").exists():
            continue
        ref = MemoryRef(folder.name, "project")
        if not registry.exists(ref):
            registry.create(ref)
        done.append(_put(registry, folder.name, [(f"kb/{folder.name}/knowledge.pl", _read(own))]))
    return done


def _put(registry: KnowledgeSpace, memory: str, files: list[tuple[str, str]]) -> Pushed:
    changed = registry.put_knowledge(MemoryRef(memory, "project"), files)
    return Pushed(memory, tuple(name for name, _ in files), changed)


def _named_memory(folder: Path) -> bool:
    return (
        folder.is_dir()
        and bool(NAME_PATTERN.match(folder.name))
        and folder.name not in RESERVED_NAMES
    )


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise PushFailed(f"{path}: cannot read: {error}") from None
