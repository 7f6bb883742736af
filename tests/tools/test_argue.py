"""The verb ``argue`` through the toolbox, on a real project: the four
verdicts, denials, defeats, conjunctions and refusals (the spec walk in
zpm_contract/scenarios/argue.py shows the documented examples on every engine)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from zpm_app.worker.toolbox import Toolbox

Open = Callable[..., Toolbox]
DEFAULT = 2 << 32
"""Handles of the default memory's stored clauses (its id is 2)."""

KNOWLEDGE = """\
:- functional(capital/2).
capital(france, paris).
bird(tweety).
bird(pingu).
penguin(pingu).
flies(X) :- bird(X), \\+ penguin(X).
neg(flies(X)) :- penguin(X).
"""


@pytest.fixture
def birds(project: Path, open_box: Open) -> Toolbox:
    (project / ".zpm" / "kb" / "birds.pl").write_text(KNOWLEDGE)
    return open_box()


def argue(box: Toolbox, goal: str, **more: Any) -> dict[str, Any]:
    result = box.call("argue", {"closed_goal": goal, **more})
    assert not result.is_error, result
    answer: dict[str, Any] = json.loads(result.text)
    assert result.structured is not None
    assert result.structured["verdict"] == answer["verdict"]
    return answer


def handle_of(box: Toolbox, pattern: str) -> int:
    rows = json.loads(box.call("matching", {"pattern": pattern}).text)["rows"]
    assert len(rows) == 1, rows
    return int(rows[0]["handle"])


def test_a_proved_goal_is_true_with_its_proof_and_handles(birds: Toolbox) -> None:
    answer = argue(birds, "flies(tweety)")
    assert answer["verdict"] == "true"
    assert answer["against_justification"] is None
    proof = answer["for_justification"]
    assert proof["goal"] == "flies(tweety)"
    assert proof["rule_applied"] == "flies(X) :- bird(X), \\+ penguin(X)"
    bird, negation = proof["children"]
    assert bird["handle"] == handle_of(birds, "bird(tweety)")
    assert "handle" not in negation, "negation leaves name no clause"


def test_a_derived_denial_makes_it_false(birds: Toolbox) -> None:
    answer = argue(birds, "flies(pingu)")
    assert answer["verdict"] == "false"
    assert answer["for_justification"] is None
    against = answer["against_justification"]
    assert against["kind"] == "inference"
    assert against["tree"]["goal"] == "neg(flies(pingu))"
    assert against["tree"]["rule_applied"] == "neg(flies(X)) :- penguin(X)"


def test_a_stated_denial_beside_a_proof_is_both(birds: Toolbox) -> None:
    birds.call("remember_fact", {"fact": "neg(bird(tweety))"})
    answer = argue(birds, "bird(tweety)")
    assert answer["verdict"] == "both"
    assert answer["for_justification"]["rule_applied"] == "fact"
    tree = answer["against_justification"]["tree"]
    assert (tree["goal"], tree["handle"]) == ("neg(bird(tweety))", DEFAULT + 1)


def test_neither_side_is_unknown(birds: Toolbox) -> None:
    assert argue(birds, "swims(tweety)") == {
        "verdict": "unknown",
        "for_justification": None,
        "against_justification": None,
    }


def test_a_defeated_fact_is_false_by_defeat(birds: Toolbox) -> None:
    stored = birds.call("remember_fact", {"fact": "capital(france, lyon)"})
    assert stored.hint == "stored, but defeated by capital(france, paris) (kb/birds.pl:2)"
    answer = argue(birds, "capital(france, lyon)")
    assert answer == {
        "verdict": "false",
        "for_justification": None,
        "against_justification": {
            "kind": "defeat",
            "loser": {
                "handle": DEFAULT + 1,
                "sentence": "capital(france, lyon)",
                "context": "default",
            },
            "winners": [
                {
                    "handle": handle_of(birds, "capital(france, X)"),
                    "sentence": "capital(france, paris)",
                    "context": "default",
                    "defeat_class": "functional",
                    "rules": ["capital/2 is functional (kb/birds.pl:1)"],
                }
            ],
            "placed_in": ["default"],
        },
    }
    birds.call("unassert-handle", {"sentex_handle": DEFAULT + 1})
    assert argue(birds, "capital(france, lyon)")["verdict"] == "unknown", "withdrawn: no loser"


def test_a_denial_wins_the_against_side_over_a_defeat(birds: Toolbox) -> None:
    birds.call("remember_fact", {"fact": "capital(france, lyon)"})
    birds.call("remember_fact", {"fact": "neg(capital(france, lyon))"})
    against = argue(birds, "capital(france, lyon)")["against_justification"]
    assert against["kind"] == "inference"
    assert against["tree"]["goal"] == "neg(capital(france, lyon))"


def test_a_conjunction_is_argued_conjunct_by_conjunct(birds: Toolbox) -> None:
    birds.call("remember_fact", {"fact": "capital(france, lyon)"})
    answer = argue(birds, "bird(tweety), flies(pingu), capital(france, lyon)")
    assert answer["verdict"] == "false"
    tree = answer["against_justification"]["tree"]
    assert (tree["goal"], tree["rule_applied"]) == (
        "bird(tweety), flies(pingu), capital(france, lyon)",
        "conjunction",
    )
    [child] = tree["children"]
    assert child["goal"] == "neg(flies(pingu))", "the first conjunct that has an against side"

    defeated = argue(birds, "(bird(tweety), capital(france, lyon))")["against_justification"]
    [child] = defeated["tree"]["children"]
    assert child["kind"] == "defeat"
    assert child["loser"]["sentence"] == "capital(france, lyon)"

    proved = argue(birds, "bird(tweety), flies(tweety)")
    assert proved["verdict"] == "true"
    assert proved["for_justification"]["rule_applied"] == "builtin"


def test_structured_content_is_flat(birds: Toolbox) -> None:
    birds.call("remember_fact", {"fact": "capital(france, lyon)"})
    result = birds.call("argue", {"closed_goal": "bird(tweety), capital(france, lyon)"})
    against = result.structured["against_justification"]
    assert against["kind"] == "inference"
    root, child = against["tree"]["nodes"]
    assert (root["id"], root["parent"], root["rule_applied"]) == (0, None, "conjunction")
    assert (child["id"], child["parent"], child["rule_applied"]) == (1, 0, "defeat")
    assert (
        child["defeat"] == json.loads(result.text)["against_justification"]["tree"]["children"][0]
    )
    denied = birds.call("argue", {"closed_goal": "bird(tweety), flies(pingu)"}).structured
    nodes = denied["against_justification"]["tree"]["nodes"]
    assert [(n["id"], n["parent"]) for n in nodes] == [(0, None), (1, 0), (2, 1)]
    assert nodes[2]["goal"] == "penguin(pingu)"


def test_a_qualified_goal_is_argued_in_its_memory(birds: Toolbox) -> None:
    birds.call("create_memory", {"name": "zoo"})
    birds.call("mount_memory", {"name": "zoo"})
    birds.call("remember_fact", {"fact": "neg(bird(rex))", "memory": "zoo"})
    answer = argue(birds, "zoo:bird(rex)")
    assert answer["verdict"] == "false"
    assert answer["against_justification"]["tree"]["goal"] == "zoo:neg(bird(rex))"
    assert argue(birds, "bird(rex)", context="zoo")["verdict"] == "false"
    assert argue(birds, "bird(rex)")["verdict"] == "unknown"


@pytest.mark.parametrize(
    ("goal", "message"),
    [
        ("flies(X)", "argue needs a closed (ground) goal: flies(X)"),
        ("bird(tweety), flies(_)", "argue needs a closed (ground) goal: bird(tweety), flies(_)"),
        ("X", "argue needs a closed (ground) goal: X"),
        ("shell(ls)", None),
        ("flies(", None),
    ],
)
def test_bad_goals_are_refused(birds: Toolbox, goal: str, message: str | None) -> None:
    result = birds.call("argue", {"closed_goal": goal})
    assert result.is_error
    if message is not None:
        assert result.text == message


def test_unknown_memories_and_missing_goals_are_refused(birds: Toolbox) -> None:
    assert birds.call("argue", {"closed_goal": "a", "context": "nope"}).text == (
        "Memory not mounted: nope"
    )
    assert birds.call("argue", {}).text == "InvalidArguments"


def test_a_goal_that_never_ends_hits_the_limit(open_box: Open) -> None:
    box = open_box(ZPM_TIME_LIMIT="0.5")
    box.call("define_rule", {"head": "deeper(N)", "body": "deeper(s(N))"})
    result = box.call("argue", {"closed_goal": "deeper(0)"})
    assert result.is_error
    assert "limit" in result.text.lower(), result.text
    assert argue(box, "deeper")["verdict"] == "unknown", "the server goes on"
