"""The walks of the spec's examples give every tool of the catalogue a documented answer."""

from __future__ import annotations

from zpm_contract.scenarios.spec_walk import SPEC_WALK


def test_spec_walk_covers_every_tool() -> None:
    """Every tool of the catalogue (the spec's 29) answers at least one of the
    spec's examples successfully in the walks, and none is unknown."""
    from zpm_app.catalogue.tool_catalogue import TOOLS

    names = {tool.name for tool in TOOLS}
    steps = [step for walk in SPEC_WALK.values() for step in walk]
    walked = {tool for tool, _, _, is_error in steps if not is_error}
    assert len(names) >= 29
    assert names - walked == set()
    assert {tool for tool, *_ in steps} <= names
