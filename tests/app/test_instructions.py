"""The guide a client gets at ``initialize``: it follows the tools offered."""

from __future__ import annotations

from zpm_app.catalogue.instructions import guide
from zpm_app.catalogue.tool_catalogue import TOOLSETS

ALL = frozenset(TOOLSETS["all"])


def test_the_guide_says_how_to_write_terms() -> None:
    text = guide(ALL)
    assert text.startswith("zpm is your durable memory")
    assert "lowercase atoms" in text and "'Alice'" in text and "double quotes" in text
    assert "capital letter is a variable" in text


def test_the_guide_names_offered_tools_only() -> None:
    text = guide(ALL)
    for name in ("remember_fact", "query_logic", "save_snapshot", "assume_fact", "argue"):
        assert name in text, name
    core = guide(frozenset(TOOLSETS["core"]))
    assert "argue" not in core and "fork_memory" not in core and "Clauses by handle" not in core
    verbs = guide(frozenset(TOOLSETS["verbs"]))
    assert "remember_fact" not in verbs and "argue" in verbs and "Ask:" not in verbs
    assert "create_memory" not in verbs


def test_recall_tools_are_named_where_they_fit_when_offered() -> None:
    assert "search_facts" not in guide(ALL - {"search_facts", "describe_predicate"})
    text = guide(ALL)
    assert "search_facts (keyword search over stored clauses)" in text
    assert "describe_predicate (a description and argument names for name/arity)" in text


def test_the_fork_workflow_is_told_as_the_session_works() -> None:
    assert "fork_memory copies a memory" in guide(ALL)
    assert "fork_memory copies" not in guide(frozenset(TOOLSETS["core"]))
    session = guide(ALL, "session_20250101_120000_ab12")
    assert "This session works on its own fork 'session_20250101_120000_ab12'" in session
    assert "fork_memory copies" not in session


def test_the_guide_stays_short() -> None:
    """A few hundred tokens (about four characters each): clients send it on every turn."""
    assert len(guide(ALL | {"search_facts", "describe_predicate"})) < 2000
