"""What a client can browse as MCP resources: the mounted memories' knowledge.

For each mounted memory ``M``:

* ``zpm://memories/M/predicates`` — its user predicates with their clause
  counts and kinds, as ``get_knowledge_schema`` shows them (JSON);
* ``zpm://memories/M/snapshots`` — its snapshots, oldest first, each with
  the time it was written (JSON);
* ``zpm://memories/M/predicates/NAME/ARITY`` (the template
  :data:`PREDICATE_TEMPLATE`) — the clauses of one predicate as Prolog text,
  one clause per line, as a listing shows them.

Names are percent-encoded in URIs (a predicate may be called ``'a b'``).
Reading a URI that names no resource (an unmounted memory, a predicate
without clauses, a malformed URI) raises ``UnknownResource``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from urllib.parse import quote, unquote

from zpm_domain.errors import UnknownResource
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.stored.clauses import render_clause
from zpm_domain.tools.jsontext import dumps
from zpm_domain.tools.query import schema_entries

JSON = "application/json"
PROLOG = "text/x-prolog"
PREDICATE_TEMPLATE = "zpm://memories/{memory}/predicates/{name}/{arity}"

_URI = re.compile(r"zpm://memories/([^/]+)/(predicates|snapshots)(?:/([^/]+)/(\d+))?\Z")


@dataclass(frozen=True)
class Resource:
    """One resource as ``resources/list`` shows it."""

    uri: str
    name: str
    description: str
    mime_type: str


def listed(memories: Memories) -> list[Resource]:
    """The resources of the mounted memories, memory by memory in name order."""
    found: list[Resource] = []
    for memory in sorted(memories.mounted(), key=lambda m: m.name):
        base = f"zpm://memories/{quote(memory.name, safe='')}"
        found.append(
            Resource(
                f"{base}/predicates",
                f"{memory.name} predicates",
                f"The predicates of memory {memory.name}: clause counts and kinds.",
                JSON,
            )
        )
        found.append(
            Resource(
                f"{base}/snapshots",
                f"{memory.name} snapshots",
                f"The snapshots of memory {memory.name}, oldest first.",
                JSON,
            )
        )
    return found


def read(memories: Memories, uri: str) -> tuple[str, str]:
    """``(mime type, text)`` of resource ``uri``, after the memory caught up
    with changes made by other processes."""
    found = _URI.match(uri)
    if found is None:
        raise UnknownResource(uri)
    memory = _mounted(memories, unquote(found[1]), uri)
    memory.sync()
    if found[2] == "snapshots":
        if found[3] is not None:
            raise UnknownResource(uri)
        return JSON, dumps({"snapshots": _snapshots(memory)})
    if found[3] is None:
        entries = schema_entries(memory)
        return JSON, dumps({"predicates": entries, "total": len(entries)})
    clauses = memory.clauses(unquote(found[3]), int(found[4]))
    if not clauses:
        raise UnknownResource(uri)
    return PROLOG, "".join(f"{render_clause(clause)}.\n" for clause in clauses)


def _mounted(memories: Memories, name: str, uri: str) -> Memory:
    for memory in memories.mounted():
        if memory.name == name:
            return memory
    raise UnknownResource(uri)


def _snapshots(memory: Memory) -> list[dict[str, str]]:
    infos = sorted(memory.snapshot_infos(), key=lambda info: (info.written, info.name))
    return [{"name": info.name, "written": _iso(info.written)} for info in infos]


def _iso(seconds: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))
