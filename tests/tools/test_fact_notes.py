"""A stored fact that keeps a capitalised variable gets a note naming it.

``owner(payments, Alice)`` is a fact about everyone: afterwards
``owner(payments, bob)`` is true.  Every tool that stores a fact says so in a
note (a text item after the spec's text); ``_``-variables are deliberate and
get none, nor do rules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from zpm_app.worker.toolbox import Toolbox

ALICE = (
    "Alice is a variable (a name that starts with a capital letter is one), so the stored "
    "fact holds for any value in its place. For a constant, write 'Alice' (quoted) or alice."
)


def test_remember_fact_names_the_variable_and_how_to_write_a_constant(box: Toolbox) -> None:
    stored = box.call("remember_fact", {"fact": "owner(payments, Alice)"})
    assert (stored.text, stored.is_error, stored.notes) == (
        "Asserted: owner(payments, Alice)",
        False,
        (ALICE,),
    )
    assert box.call("query_logic", {"goal": "owner(payments, bob)"}).text == "[{}]"


def test_several_variables_are_named_in_order(box: Toolbox) -> None:
    stored = box.call("remember_fact", {"fact": "reviews(Bob, X, Bob, _Y)"})
    assert stored.notes == (
        "Bob and X are variables (a name that starts with a capital letter is one), so the "
        "stored fact holds for any values in their place. For constants, write them quoted "
        "('Bob') or in lowercase (bob).",
    )


@pytest.mark.parametrize("fact", ["owner(payments, alice)", "owner(payments, 'Alice')"])
def test_a_ground_fact_gets_no_note(box: Toolbox, fact: str) -> None:
    assert box.call("remember_fact", {"fact": fact}).notes == ()


@pytest.mark.parametrize("fact", ["likes(_, tea)", "likes(_Who, tea)", "pair(_A, _A)"])
def test_underscore_variables_are_deliberate_and_get_no_note(box: Toolbox, fact: str) -> None:
    stored = box.call("remember_fact", {"fact": fact})
    assert not stored.is_error and stored.notes == ()


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        (
            "assume_fact",
            {"fact": "owner(payments, Alice)", "assumption": "guess"},
            "Assumed: owner(payments, Alice) under assumption 'guess'",
        ),
        ("upsert_fact", {"fact": "owner(payments, Alice)"}, "Upserted: owner(payments, Alice)"),
    ],
)
def test_every_tool_that_stores_a_fact_adds_the_note(
    box: Toolbox, tool: str, arguments: dict[str, str], text: str
) -> None:
    stored = box.call(tool, arguments)
    assert (stored.text, stored.notes) == (text, (ALICE,))


def test_assert_adds_the_note_beside_its_structured_answer(box: Toolbox) -> None:
    first = box.call("assert", {"sentence": "owner(payments, Alice)"})
    assert first.notes == (ALICE,)
    assert first.structured == {"handle": first.structured["handle"], "already_there": False}
    again = box.call("assert", {"sentence": "owner(payments, Alice)"})
    assert '"already_there":true' in again.text and again.notes == (ALICE,)
    assert box.call("assert", {"sentence": "owner(payments, alice)"}).notes == ()


def test_update_fact_notes_only_the_variables_the_replaced_fact_leaves_open(
    box: Toolbox,
) -> None:
    box.call("remember_fact", {"fact": "age(bob, 42)"})
    carried = box.call("update_fact", {"old_fact": "age(bob, A)", "new_fact": "age(robert, A)"})
    assert (carried.text, carried.notes) == ("Updated: age(bob, A) -> age(robert, A)", ())
    assert box.call("query_logic", {"goal": "age(robert, N)"}).text == '[{"N":42}]'
    opened = box.call("update_fact", {"old_fact": "age(robert, _)", "new_fact": "age(Alice, 1)"})
    assert opened.notes == (ALICE,)


def test_rules_keep_their_variables_without_a_note(box: Toolbox) -> None:
    defined = box.call("define_rule", {"head": "mortal(X)", "body": "human(X)"})
    assert not defined.is_error and defined.notes == ()


def test_the_variable_note_and_the_defeat_note_each_have_their_place(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    """Only a ground fact can be defeated; a fact with a variable is told about it."""
    (project / ".zpm" / "kb" / "geo.pl").write_text(
        ":- functional(capital/2).\ncapital(france, paris).\n"
    )
    box = open_box()
    open_fact = box.call("remember_fact", {"fact": "capital(france, City)"})
    assert open_fact.notes == (ALICE.replace("Alice", "City").replace("alice", "city"),)
    defeated = box.call("remember_fact", {"fact": "capital(france, lyon)"})
    assert defeated.notes == ("stored, but defeated by capital(france, paris) (kb/geo.pl:2)",)
