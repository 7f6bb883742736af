"""``docs/tools.md`` is the reference generated from the tool definitions."""

from __future__ import annotations

from pathlib import Path

from zpm_app.catalogue.tool_catalogue import TOOLS
from zpm_app.catalogue.tool_docs import render_tool_docs
from zpm_contract.scenarios.spec_walk import documented_examples

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tools.md"


def test_the_checked_in_reference_is_current() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_tool_docs(examples=documented_examples()), (
        "docs/tools.md is stale: run `.venv/bin/python tools/write_tool_docs.py`"
    )


def test_every_tool_has_a_section_with_its_schema_and_command() -> None:
    text = render_tool_docs()
    for spec in TOOLS:
        assert f"\n## {spec.name}\n" in text
        assert f"zpm {spec.cli_name}" in text
        assert spec.description in text


def test_every_tool_has_an_example_call_and_answer() -> None:
    examples = documented_examples()
    assert set(examples) == {spec.name for spec in TOOLS}
    text = render_tool_docs(examples=examples)
    assert text.count("Example (the spec's)") == len(TOOLS)
    assert "status: active\ndir: <dir>\nlast_snapshot: none" in text
