"""Every tool's output schema exactly as tools/list sends it.

``output_schemas.json`` holds, for each tool with structured output, its
``outputSchema`` as ``tools/list`` shows it (repeated parts in ``$defs``).
The schemas are derived from the tools' typed results; these tests pin
the derivation to the recorded text, key order included, since the order
is part of the bytes a client receives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest

from zpm_app.catalogue.output_schemas import RECORD, output_schema, record_text
from zpm_app.catalogue.tool_catalogue import TOOLS, tool_listing
from zpm_domain.tools.outputs import TYPE_LIST, Doc, Minimum

RECORDED: dict[str, Any] = json.loads(
    Path(__file__).with_name("output_schemas.json").read_text(encoding="utf-8")
)
LISTED = {spec.name: tool_listing(spec) for spec in TOOLS}


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_the_tools_with_structured_output_are_the_recorded_ones() -> None:
    assert [name for name, tool in LISTED.items() if "outputSchema" in tool] == list(RECORDED)


@pytest.mark.parametrize("name", list(RECORDED))
def test_a_listed_output_schema_is_the_recorded_text(name: str) -> None:
    assert _text(LISTED[name]["outputSchema"]) == _text(RECORDED[name])


class _Part(TypedDict):
    """A part."""

    size: Annotated[int, Doc("How big.", first=True), Minimum(1)]
    label: NotRequired[Annotated[str | None, TYPE_LIST, Doc("Its label.")]]
    kind: Literal["a", "b"] | None


def test_a_shape_reads_as_a_closed_schema_in_the_fixed_key_order() -> None:
    assert _text(output_schema(_Part)) == _text(
        {
            "type": "object",
            "properties": {
                "size": {"description": "How big.", "type": "integer", "minimum": 1},
                "label": {"type": ["string", "null"], "description": "Its label."},
                "kind": {"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]},
            },
            "required": ["size", "kind"],
            "additionalProperties": False,
            "description": "A part.",
        }
    )


def test_metadata_the_derivation_does_not_know_is_refused() -> None:
    class Odd(TypedDict):
        value: Annotated[int, "no marker"]

    with pytest.raises(TypeError, match="no marker"):
        output_schema(Odd)


def test_the_recorded_schemas_are_those_derived_now() -> None:
    """Servers read the schemas from ``src/zpm_app/catalogue/output_schemas.json``;
    after a change to a tool's result shape, record them again with
    ``tools/record_output_schemas.py``."""
    shapes = {spec.output for spec in TOOLS if spec.output is not None}
    assert RECORD.read_text(encoding="utf-8") == record_text(shapes), (
        "the recorded output schemas are stale: run .venv/bin/python tools/record_output_schemas.py"
    )
