"""The tool catalogue: the one list of tools that zpm offers.

``TOOLS`` drives everything that names a tool: the MCP ``tools/list``
answer, argument validation before dispatch, the CLI subcommands and their
flags, and the documentation.  Names, descriptions, input schemas and
annotations are those of the tool reference (architecture §8.3 and §8.15):

* every knowledge tool advertises an optional ``memory`` string; where the
  reference's schema omits it, it is appended with the standard description;
* ``readOnlyHint`` / ``idempotentHint`` follow "Read-only" / "Idempotent";
  ``destructiveHint`` is true where the reference says "Non-destructive: ✗"
  or "Destructive: ✓".

The module also holds the name and version zpm announces, and states the
two small interfaces that the server and the CLI
need from whatever executes tools (``ToolRunner`` and ``ToolOutcome``), so
neither depends on how tools are implemented.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

SERVER_NAME = "zpm"
MEMORY_DESCRIPTION = "Target memory segment (optional, defaults to default memory)"


def package_version() -> str:
    """The version zpm announces (``serverInfo.version``, ``zpm version``): the installed one."""
    from importlib.metadata import PackageNotFoundError, version  # costly: only when asked

    try:
        return version("zpm")
    except PackageNotFoundError:
        return "0+unknown"


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its wire name, description, JSON input schema and annotations.

    ``input_schema`` is a plain JSON Schema object (``type``, ``properties``,
    ``required``) exactly as clients see it; treat it as read-only.
    ``allow_empty`` names the string arguments for which ``""`` is a valid
    value (``echo.message``); every other required string must carry text.
    """

    name: str
    description: str
    input_schema: dict[str, Any] = field(hash=False)
    read_only: bool
    destructive: bool
    idempotent: bool
    allow_empty: frozenset[str] = frozenset()

    @property
    def cli_name(self) -> str:
        """The CLI subcommand: the name in kebab case (``remember-fact``)."""
        return self.name.replace("_", "-")

    @property
    def properties(self) -> Mapping[str, Mapping[str, Any]]:
        """Argument name -> its JSON Schema, in declaration order."""
        props: Mapping[str, Mapping[str, Any]] = self.input_schema.get("properties", {})
        return props

    @property
    def required(self) -> tuple[str, ...]:
        """Names of the required arguments, in schema order."""
        return tuple(self.input_schema.get("required", ()))


class ToolOutcome(Protocol):
    """The result of one tool call: one text, flagged as an error or not."""

    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...


class ToolRunner(Protocol):
    """What the server and the CLI need from the object that executes tools.

    ``call`` validates the arguments itself and reports tool-level failures
    as outcomes with ``is_error`` set; it is blocking and not thread-safe,
    so callers run it from one thread, one call at a time.  ``close``
    releases the knowledge base (flushes persistence).
    """

    @property
    def specs(self) -> tuple[ToolSpec, ...]: ...

    def call(self, name: str, arguments: Mapping[str, Any] | None) -> ToolOutcome: ...

    def close(self) -> None: ...


# Annotation triples (read_only, destructive, idempotent).
_QUERY = (True, False, True)
_CHANGE = (False, True, False)
_CHANGE_IDEMPOTENT = (False, True, True)


def _string(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


def _tool(
    name: str,
    description: str,
    properties: dict[str, dict[str, Any]],
    required: list[str],
    hints: tuple[bool, bool, bool],
    *,
    memory: bool = True,
    allow_empty: frozenset[str] = frozenset(),
) -> ToolSpec:
    """Build a spec; ``memory`` appends the standard ``memory`` property when absent."""
    props = dict(properties)
    if memory and "memory" not in props:
        props["memory"] = _string(MEMORY_DESCRIPTION)
    read_only, destructive, idempotent = hints
    return ToolSpec(
        name=name,
        description=description,
        input_schema={"type": "object", "properties": props, "required": list(required)},
        read_only=read_only,
        destructive=destructive,
        idempotent=idempotent,
        allow_empty=allow_empty,
    )


TOOLS: tuple[ToolSpec, ...] = (
    _tool(
        "echo",
        "Echoes back a message string. Useful for testing server connectivity and tool invocation.",
        {"message": _string("The message to echo")},
        ["message"],
        _QUERY,
        memory=False,
        allow_empty=frozenset({"message"}),
    ),
    _tool(
        "remember_fact",
        "Assert a Prolog fact into the knowledge base. Facts persist in-memory for the "
        "duration of the engine session.",
        {"fact": _string('A Prolog fact to assert (e.g. "human(socrates)")')},
        ["fact"],
        _CHANGE,
    ),
    _tool(
        "define_rule",
        "Assert a Prolog rule into the knowledge base. Constructs a rule from head and body "
        "(`Head :- Body`), validates syntax (including balanced parentheses), and inserts "
        "via `assertz/1`.",
        {
            "head": _string('The rule head (e.g. "mortal(X)")'),
            "body": _string('The rule body (e.g. "human(X)")'),
        },
        ["head", "body"],
        _CHANGE,
    ),
    _tool(
        "query_logic",
        "Execute a Prolog goal and return all variable bindings as JSON. Evaluates a "
        "deterministic Prolog query against the knowledge base and returns all solutions "
        "with their variable bindings.",
        {"goal": _string('A Prolog goal to query (e.g. "fruit(X)", "parent(john, Y)")')},
        ["goal"],
        _QUERY,
    ),
    _tool(
        "get_knowledge_schema",
        "Introspect the selected memory to discover file-loaded static and asserted user "
        "predicates, their arities, clause counts, and whether they are facts, rules, or "
        "both. Returns structural metadata only — no predicate content is exposed. "
        "Read-only mounts support discovery.",
        {},
        [],
        _QUERY,
    ),
    _tool(
        "forget_fact",
        "Remove a single fact from the knowledge base by retracting the first matching "
        "clause. Uses Prolog's `retract/1` semantics — when multiple identical facts exist, "
        "only one is removed per call.",
        {"fact": _string('A Prolog fact to retract (e.g. "human(socrates)")')},
        ["fact"],
        _CHANGE,
    ),
    _tool(
        "clear_context",
        "Remove all facts from the knowledge base matching a given category or pattern. "
        "Uses Prolog's `retractall/1` semantics — clears all clauses matching the pattern "
        "in a single operation. The tool always succeeds, even when no matching facts "
        "exist (idempotent behavior).",
        {
            "category": _string(
                "A Prolog pattern to match facts for bulk deletion "
                '(e.g. "project(beta, _)", "role(_, _)")'
            )
        },
        ["category"],
        _CHANGE_IDEMPOTENT,
    ),
    _tool(
        "update_fact",
        "Atomically replace an existing Prolog fact in the knowledge base (retract "
        "old_fact, assert new_fact). Returns an error if old_fact is not found, leaving the "
        "knowledge base unchanged.",
        {
            "old_fact": _string(
                'The existing Prolog fact to retract (e.g. "server(alpha, \\"1.0\\")")'
            ),
            "new_fact": _string(
                'The new Prolog fact to assert in its place (e.g. "server(alpha, \\"2.0\\")")'
            ),
        },
        ["old_fact", "new_fact"],
        _CHANGE,
    ),
    _tool(
        "upsert_fact",
        "Insert or replace a Prolog fact in the knowledge base. Retracts all existing "
        "clauses matching the same functor and first argument, then asserts the new fact. "
        "Succeeds even if no prior fact exists.",
        {"fact": _string('A Prolog fact to insert or replace (e.g. "deploy(prod, v2)")')},
        ["fact"],
        _CHANGE_IDEMPOTENT,
    ),
)

_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


def find_tool(name: str) -> ToolSpec | None:
    """The spec named ``name`` (wire name, snake case), or ``None``."""
    return _BY_NAME.get(name)
