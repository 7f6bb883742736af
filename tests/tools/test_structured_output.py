"""Structured output: every tool whose text is JSON declares an output schema and
returns the same data as an object that the schema accepts."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from zpm_app.catalogue.tool_catalogue import TOOLS, find_tool
from zpm_app.worker.toolbox import Toolbox
from zpm_contract.scenarios.argue import ARGUE_EXAMPLES, GEO_KNOWLEDGE
from zpm_contract.scenarios.spec_walk import SPEC_WALK

RESHAPED = {"query_logic", "trace_dependency", "explain_why", "query", "argue"}
"""Tools whose structured form is not their text's value (see ``tools.outputs``)."""


def walk(box: Toolbox) -> list[tuple[str, Any, Any]]:
    """Every successful call of the spec walks: (tool, text value or None, structured)."""
    seen = []
    for steps in SPEC_WALK.values():
        for name, arguments, _, _ in steps:
            result = box.call(name, arguments)
            if result.is_error:
                assert result.structured is None
                continue
            try:
                value = json.loads(result.text)
            except ValueError:
                value = None
            seen.append((name, value, result.structured))
    return seen


def tree_of(nodes: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The nested proof tree the flat nodes describe (as explain_why's text shows it)."""
    built: list[dict[str, Any]] = []
    for node in nodes:
        shown: dict[str, Any] = {
            "goal": node["goal"],
            "rule_applied": node["rule_applied"],
            "children": [],
        }
        if "handle" in node:
            shown["handle"] = node["handle"]
        if node["truncated"]:
            shown["truncated"] = True
        assert node["id"] == len(built)
        if node["parent"] is not None:
            assert node["parent"] < node["id"]
            built[node["parent"]]["children"].append(shown)
        built.append(shown)
    return built[0] if built else None


def test_json_tools_return_their_data_as_schema_valid_objects(box: Toolbox) -> None:
    calls = walk(box)
    assert {name for name, value, _ in calls if value is not None} == {
        spec.name for spec in TOOLS if spec.output_schema is not None
    }
    for name, value, structured in calls:
        spec = find_tool(name)
        assert spec is not None
        if spec.output_schema is None:
            assert structured is None, name
            continue
        Draft202012Validator(spec.output_schema).validate(structured)
        if name == "query_logic":
            assert structured["answers"] == value
        elif name == "trace_dependency":
            assert structured == {"nodes": value}
        elif name == "query":
            assert structured["truncated"] == value["truncated"]
            assert len(structured["answers"]) == len(value["answers"])
            for flat, nested in zip(structured["answers"], value["answers"], strict=True):
                assert flat["bindings"] == nested["bindings"]
                proof = flat["justification"]
                shown = None if proof is None else tree_of(proof["nodes"])
                assert shown == nested["justification"]
        elif name == "argue":
            assert argued(structured) == value
        elif name == "explain_why":
            assert structured["fact"] == value["fact"]
            assert structured["proven"] == value["proven"]
            assert tree_of(structured["nodes"]) == value["proof_tree"]
        elif name == "verify_consistency":
            assert structured == {**value, "truncated": False}
        else:
            assert structured == value, name


def argued(structured: dict[str, Any]) -> dict[str, Any]:
    """The text's value of an ``argue`` answer, from its structured form: trees
    nested again, a ``defeat`` node back to the defeat object it carries."""
    proof = structured["for_justification"]
    against = structured["against_justification"]
    if against is not None and against["kind"] == "inference":
        nodes = against["tree"]["nodes"]
        defeats = {n["id"]: n["defeat"] for n in nodes if "defeat" in n}
        tree = tree_of([{k: v for k, v in n.items() if k != "defeat"} for n in nodes])
        assert tree is not None
        if defeats:
            assert list(defeats) == [1] and tree["rule_applied"] == "conjunction"
            tree["children"] = [defeats[1]]
        against = {"kind": "inference", "tree": tree}
    return {
        "verdict": structured["verdict"],
        "for_justification": None if proof is None else tree_of(proof["nodes"]),
        "against_justification": against,
    }


def test_argue_answers_travel_flat_and_schema_valid(project: Path, open_box: Any) -> None:
    (project / ".zpm" / "kb" / "geo.pl").write_text(GEO_KNOWLEDGE)
    box = open_box()
    schema = find_tool("argue")
    assert schema is not None and schema.output_schema is not None
    kinds = set()
    for name, arguments, _, _ in ARGUE_EXAMPLES:
        result = box.call(name, arguments)
        if name != "argue" or result.is_error:
            continue
        assert result.structured is not None
        Draft202012Validator(schema.output_schema).validate(result.structured)
        assert argued(result.structured) == json.loads(result.text)
        against = result.structured["against_justification"]
        kinds.add(None if against is None else against["kind"])
    assert kinds == {None, "inference", "defeat"}


def test_output_schemas_are_valid_json_schema() -> None:
    for spec in TOOLS:
        if spec.output_schema is not None:
            Draft202012Validator.check_schema(spec.output_schema)
            assert spec.output_schema["type"] == "object"


@pytest.mark.parametrize(("limit", "truncated"), [(3, False), (2, True)])
def test_query_logic_says_when_the_answer_limit_cut_the_answers(
    project: Path, open_box: Any, limit: int, truncated: bool
) -> None:
    (project / ".zpm" / "config.toml").write_text(f"[limits]\nmax_solutions = {limit}\n")
    box = open_box()
    for fruit in ("apple", "banana"):
        box.call("remember_fact", {"fact": f"fruit({fruit})"})
    answer = box.call("query_logic", {"goal": "fruit(X)"})
    assert answer.structured == {
        "answers": [{"X": "apple"}, {"X": "banana"}][:limit],
        "truncated": truncated,
    }


def test_a_deep_proof_travels_flat(box: Toolbox) -> None:
    box.call("remember_fact", {"fact": "chain(n1000)"})
    box.call("define_rule", {"head": "chain(X)", "body": "link(X, Y), chain(Y)"})
    for i in range(1000):
        box.call("remember_fact", {"fact": f"link(n{i}, n{i + 1})"})
    answer = box.call("explain_why", {"fact": "chain(n0)"})
    assert answer.structured is not None
    nodes = answer.structured["nodes"]
    assert len(nodes) == 2001 and nodes[-1]["parent"] == 1998
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)  # the text nests 1,001 levels: json.loads recurses
    try:
        assert tree_of(nodes) == json.loads(answer.text)["proof_tree"]
    finally:
        sys.setrecursionlimit(depth)
