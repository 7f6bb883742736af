"""The catalogue against the tool reference.

``catalogue_reference.jsonl`` holds, for each tool of the catalogue in the
reference's order, the reference's name, description, annotation marks and
input schema, copied verbatim from the tool reference.  The catalogue keeps
all of it, with two kinds of deliberate change: every schema refuses
arguments it does not declare (``additionalProperties: false``), and the
descriptions in ``CORRECTED`` say what zpm really does where the
reference's are not true of it; and the read tools take ``as_of`` (a moment
of the memory's history), last.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zpm_app.catalogue.tool_catalogue import MEMORY_DESCRIPTION, TOOLS, ToolDefinition, find_tool

REFERENCE_FILE = Path(__file__).parent / "catalogue_reference.jsonl"
REFERENCE = [json.loads(line) for line in REFERENCE_FILE.read_text("utf-8").splitlines()]
STANDARD_MEMORY = {"type": "string", "description": MEMORY_DESCRIPTION}

CORRECTED = {
    "remember_fact": "facts are journaled, not kept for the duration of a session",
    "query_logic": "answers stop at the answer limit; goals need not be deterministic",
    "trace_dependency": "says path/2's first argument is the start, and how cycles end",
    "verify_consistency": "says which predicates are asked, in which order, and the cap",
    "explain_why": "a meta-interpreter, not clause/2 queries; depth limit and cycles",
    "save_snapshot": "knowledge files are not copied; read-only mounts",
    "restore_snapshot": "knowledge-file clauses stay: the state is not replaced entirely",
    "create_memory": "knowledge.pl gets a commented header, not a module directive",
    "assume_fact": "says how assumptions and plain assertions share a fact",
    "get_belief_status": "plain facts are in; sources include file; derived facts are not beliefs",
    "list_assumptions": "states the order",
    "retract_assumption": "says which facts stay and what the count counts",
    "find_predicate_references": "says what counts as a use of the predicate",
    "retract_assumptions": "states the glob syntax and that one record holds the retraction",
}

MEMORY_TOOLS = frozenset(
    """remember_fact upsert_fact assume_fact forget_fact update_fact rename_predicate
    query_logic define_rule explain_why trace_dependency retract_assumption
    retract_assumptions list_assumptions get_belief_status get_justification
    verify_consistency clear_context get_knowledge_schema find_predicate_references
    save_snapshot restore_snapshot list_snapshots""".split()
)
"""The tools the reference says take ``memory`` (architecture §8.3)."""
"""Tools whose description is not the reference's, and why."""


AS_OF_TOOLS = frozenset(
    """query_logic explain_why trace_dependency verify_consistency get_knowledge_schema
    find_predicate_references search_facts get_belief_status get_justification
    list_assumptions query matching argue""".split()
)
"""The read tools that answer as the memory was at a moment (``as_of``)."""
AS_OF = {
    "type": "string",
    "description": "A cursor from history or an ISO 8601 time: answer as of then (default: now)",
}


def expected_schema(entry: dict[str, Any]) -> dict[str, Any]:
    """The reference's schema plus ``memory`` on every knowledge tool (architecture §8.3)
    and ``as_of`` on the read tools."""
    schema: dict[str, Any] = json.loads(json.dumps(entry["inputSchema"]))
    if entry["name"] in MEMORY_TOOLS:
        schema["properties"].setdefault("memory", STANDARD_MEMORY)
    if entry["name"] in AS_OF_TOOLS:
        schema["properties"]["as_of"] = AS_OF
    schema["additionalProperties"] = False
    return schema


def test_the_read_tools_and_only_they_take_as_of() -> None:
    for spec in TOOLS:
        assert ("as_of" in spec.properties) == (spec.name in AS_OF_TOOLS), spec.name
        if spec.name in AS_OF_TOOLS:
            assert spec.read_only and list(spec.properties)[-1] == "as_of"
            assert spec.properties["as_of"] == AS_OF


def expected_hints(marks: dict[str, str]) -> tuple[bool, bool, bool]:
    """(read_only, destructive, idempotent) from the reference's marks (architecture §8.15)."""
    destructive = marks.get("Non-destructive") == "✗" or marks.get("Destructive") == "✓"
    return marks["Read-only"] == "✓", destructive, marks["Idempotent"] == "✓"


VERBS = {
    "assert": (False, False, True),
    "unassert": (False, True, True),
    "unassert-handle": (False, True, True),
    "query": (True, False, True),
    "matching": (True, False, True),
    "argue": (True, False, True),
    "fork_memory": (False, False, False),
    "merge_memory": (False, True, False),
    "delete_memory": (False, True, False),
}
"""The verb tools of spec/verbs.md (§9), and delete_memory, with their (read_only,
destructive, idempotent)."""

RECALL = {
    "search_facts": (True, False, True),
    "describe_predicate": (False, True, True),
    "history": (True, False, True),
    "diff_memory": (True, False, True),
    "revert_memory": (False, True, False),
}
"""zpm's recall tools, which take ``memory``, and their (read_only, destructive,
idempotent): a description replaces or removes the one a predicate had; the
history and a diff only read; a revert is a change like any other."""


def test_tools_are_the_reference_tools_and_verb_tools() -> None:
    names = {spec.name for spec in TOOLS}
    reference = {entry["name"] for entry in REFERENCE}
    assert reference <= names
    assert names - reference <= set(VERBS) | set(RECALL)


@pytest.mark.parametrize("name", sorted(RECALL))
def test_recall_tools_are_annotated_as_they_act(name: str) -> None:
    spec = find_tool(name)
    assert spec is not None
    assert (spec.read_only, spec.destructive, spec.idempotent) == RECALL[name]


@pytest.mark.parametrize("name", sorted(set(VERBS) & {spec.name for spec in TOOLS}))
def test_verb_tools_have_the_annotations_of_the_verb_spec(name: str) -> None:
    spec = find_tool(name)
    assert spec is not None
    assert (spec.read_only, spec.destructive, spec.idempotent) == VERBS[name]
    assert spec.input_schema["additionalProperties"] is False


@pytest.mark.parametrize("entry", REFERENCE, ids=[entry["name"] for entry in REFERENCE])
def test_each_tool_matches_the_reference(entry: dict[str, Any]) -> None:
    spec = find_tool(entry["name"])
    assert spec is not None
    if spec.name in CORRECTED:
        first_sentence = entry["description"].split(". ")[0]
        assert spec.description != entry["description"]
        assert spec.description.startswith(first_sentence)
    else:
        assert spec.description == entry["description"]
    assert spec.input_schema == expected_schema(entry)
    assert (spec.read_only, spec.destructive, spec.idempotent) == expected_hints(
        entry["annotations"]
    )


def test_schemas_keep_the_reference_key_order() -> None:
    for entry in REFERENCE:
        spec = find_tool(entry["name"])
        assert spec is not None
        assert list(spec.input_schema) == [*entry["inputSchema"], "additionalProperties"]
        reference_props = list(entry["inputSchema"]["properties"])
        assert list(spec.properties)[: len(reference_props)] == reference_props


def test_memory_is_optional_where_the_reference_lists_it_and_absent_elsewhere() -> None:
    for spec in TOOLS:
        if spec.name in MEMORY_TOOLS or spec.name in RECALL:
            assert spec.properties["memory"]["type"] == "string"
            assert "memory" not in spec.required
        else:
            assert "memory" not in spec.properties


def test_remember_fact_is_marked_destructive_and_query_logic_read_only() -> None:
    remember, query = find_tool("remember_fact"), find_tool("query_logic")
    assert remember is not None and query is not None
    assert (remember.read_only, remember.destructive, remember.idempotent) == (False, True, False)
    assert (query.read_only, query.destructive, query.idempotent) == (True, False, True)


def test_only_echo_accepts_an_empty_message() -> None:
    """... and describe_predicate an empty description (which removes one)."""
    assert {(spec.name, name) for spec in TOOLS for name in spec.allow_empty} == {
        ("echo", "message"),
        ("describe_predicate", "description"),
    }
    echo = find_tool("echo")
    assert echo is not None and echo.allow_empty == frozenset({"message"})


def test_cli_names_are_kebab_case() -> None:
    update = find_tool("update_fact")
    assert update is not None and update.cli_name == "update-fact"
    assert find_tool("get_knowledge_schema").cli_name == "get-knowledge-schema"  # type: ignore[union-attr]


def test_unknown_names_are_not_found() -> None:
    assert find_tool("remember-fact") is None
    assert find_tool("") is None


def test_specs_are_hashable_values() -> None:
    assert len({spec for spec in TOOLS}) == len(TOOLS)
    assert isinstance(TOOLS[0], ToolDefinition)
