"""Every hook is typed, documented in its docstring and in the plugin guide."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from zpm_app.engines import hookspecs

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "writing-an-engine-plugin.md"
HOOKS = [
    name
    for name, value in vars(hookspecs).items()
    if callable(value) and hasattr(value, f"{hookspecs.PROJECT}_spec")
]


def test_there_are_hooks() -> None:
    assert HOOKS == ["zpm_register_engines"]


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_is_documented_in_the_guide(hook: str) -> None:
    headings = [line for line in GUIDE.read_text().splitlines() if line.startswith("### ")]
    assert any(line.removeprefix("### ").startswith(f"{hook}(") for line in headings), hook


@pytest.mark.parametrize("hook", HOOKS)
def test_hook_has_a_docstring_and_annotations(hook: str) -> None:
    function = getattr(hookspecs, hook)
    assert (inspect.getdoc(function) or "").strip(), hook
    signature = inspect.signature(function)
    assert all(p.annotation is not inspect.Parameter.empty for p in signature.parameters.values())
    assert signature.return_annotation is not inspect.Signature.empty


def test_guide_names_the_entry_point_group_and_the_engine_port() -> None:
    text = GUIDE.read_text()
    example = (GUIDE.parents[1] / "examples" / "zpm-example-engine" / "pyproject.toml").read_text()
    declared = '[project.entry-points.zpm]\ntimed = "zpm_example_engine"'
    assert declared in text and declared in example
    assert "src/zpm_domain/ports/engine.py" in text
