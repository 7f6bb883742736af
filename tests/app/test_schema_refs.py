"""Output schemas in tools/list: repeated parts once, in ``$defs``, accepting
exactly what the full schemas accept."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from zpm_app.catalogue.schema_refs import MIN_SIZE, with_refs
from zpm_app.catalogue.tool_catalogue import TOOLS, find_tool, tool_listing

WITH_OUTPUT = [spec for spec in TOOLS if spec.output_schema is not None]

HANDLE = {"description": "A clause handle, stable for its lineage.", "type": "integer"}
PAIR = {
    "type": "object",
    "properties": {"left": HANDLE, "right": HANDLE},
    "required": ["left", "right"],
    "additionalProperties": False,
}
SCHEMA = {
    "type": "object",
    "properties": {"first": PAIR, "rest": {"type": "array", "items": PAIR}, "one": HANDLE},
    "required": ["first", "rest"],
    "additionalProperties": False,
}


def size(schema: Any) -> int:
    return len(json.dumps(schema, separators=(",", ":")))


def test_a_part_used_twice_is_defined_once_and_referred_to() -> None:
    compact = with_refs(SCHEMA)
    assert list(compact["$defs"]) == ["first", "left"]
    assert compact["properties"]["first"] == {"$ref": "#/$defs/first"}
    assert compact["properties"]["rest"]["items"] == {"$ref": "#/$defs/first"}
    # handle is repeated only inside the pair (and once outside): one definition
    assert compact["$defs"]["first"]["properties"]["left"] == {"$ref": "#/$defs/left"}
    assert compact["properties"]["one"] == {"$ref": "#/$defs/left"}
    assert size(compact) < size(SCHEMA)


def test_small_or_single_parts_stay_inline() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}
    assert size({"type": "string"}) < MIN_SIZE
    assert with_refs(schema) == schema


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=3),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(st.sampled_from(["left", "right", "first", "rest", "one"]), inner)
        ),
        max_leaves=12,
    )
)
def test_the_compact_schema_accepts_what_the_full_one_accepts(document: Any) -> None:
    full = Draft202012Validator(SCHEMA).is_valid(document)
    assert Draft202012Validator(with_refs(SCHEMA)).is_valid(document) == full


@pytest.mark.parametrize("spec", WITH_OUTPUT, ids=[s.name for s in WITH_OUTPUT])
def test_every_listed_output_schema_is_a_valid_schema(spec: Any) -> None:
    listed = tool_listing(spec)["outputSchema"]
    Draft202012Validator.check_schema(listed)
    assert size(listed) <= size(spec.output_schema)


def test_argue_lists_its_defeat_once() -> None:
    spec = find_tool("argue")
    assert spec is not None and spec.output_schema is not None
    listed = tool_listing(spec)["outputSchema"]
    assert "defeat" in listed["$defs"]
    assert size(listed) < 0.75 * size(spec.output_schema)
