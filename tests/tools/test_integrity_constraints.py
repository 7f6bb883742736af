"""Integrity rules checked when a write happens (``zpm_domain.constraints.integrity``):
a write that makes a rule find a violation it did not find is refused or
kept with a note, as the rule's policy says; the violations a memory held
before are not the write's."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from zpm_app.services.importing import ProjectImport
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.errors import ConstraintViolated

RULES = """\
integrity_violation(no_owner(S)) :- service(S), \\+ owner(S, _).
integrity_violation(unapproved(D)) :- deployed(D), \\+ approved(D).
"""


def rules(project: Path, open_box: Callable[..., Toolbox], directive: str = "") -> Toolbox:
    """A project whose knowledge file ``kb/rules.pl`` holds the rules above."""
    (project / ".zpm" / "kb" / "rules.pl").write_text(f"{directive}\n{RULES}")
    return open_box()


def violations(box: Toolbox) -> list[str]:
    return json.loads(box.call("verify_consistency", {}).text)["violations"]


def test_refuse_stores_nothing_that_makes_a_new_violation(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = rules(project, open_box, ":- policy(integrity_violation/1, refuse).")
    assert not box.call("remember_fact", {"fact": "owner(api, alice)"}).is_error
    assert not box.call("remember_fact", {"fact": "service(api)"}).is_error
    refused = box.call("remember_fact", {"fact": "service(db)"})
    assert refused.is_error
    assert refused.text == (
        "Refused: the write would make integrity_violation(no_owner(db)) true; "
        "integrity_violation/1 holds integrity rules (kb/rules.pl:1, policy refuse)"
    )
    assert "verify_consistency" in refused.notes[0]
    assert box.call("query_logic", {"goal": "service(db)"}).text == "[]"
    # stored once what it needs is there: no violation
    assert not box.call("remember_fact", {"fact": "owner(db, bob)"}).is_error
    assert not box.call("remember_fact", {"fact": "service(db)"}).is_error
    # a removal may make one too
    gone = box.call("forget_fact", {"fact": "owner(db, bob)"})
    assert gone.is_error and "no_owner(db)" in gone.text
    withdrawn = box.call("update_fact", {"old_fact": "owner(db, bob)", "new_fact": "owner(x, bob)"})
    assert withdrawn.is_error
    assert box.call("query_logic", {"goal": "owner(db, X)"}).text == '[{"X":"bob"}]'
    assert violations(box) == []
    box.close()
    again = open_box()
    assert again.call("query_logic", {"goal": "service(X)"}).text == '[{"X":"api"},{"X":"db"}]'


def test_keep_stores_the_write_and_says_what_it_made(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = rules(project, open_box)  # no policy: the project's default, keep
    first = box.call("remember_fact", {"fact": "deployed(v1)"})
    assert not first.is_error
    assert first.notes == (
        "written, but it makes integrity_violation(unapproved(v1)) true; integrity_violation/1 "
        "holds integrity rules (the project's default, policy keep)",
    )
    # a write that changes nothing the rules read says nothing
    assert box.call("remember_fact", {"fact": "note(hello)"}).notes == ()
    # a violation held already is not the next write's
    assert box.call("remember_fact", {"fact": "deployed(v2)"}).notes == (
        "written, but it makes integrity_violation(unapproved(v2)) true; integrity_violation/1 "
        "holds integrity rules (the project's default, policy keep)",
    )
    assert box.call("remember_fact", {"fact": "approved(v1)"}).notes == ()
    assert violations(box) == ["unapproved(v2)"]


def test_violations_held_before_do_not_refuse_a_write(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = open_box()
    box.call("remember_fact", {"fact": "service(old)"})  # no rules yet
    box.close()
    box = rules(project, open_box, ":- policy(integrity_violation/1, refuse).")
    assert violations(box) == ["no_owner(old)"]
    assert box.call("remember_fact", {"fact": "deployed(v1)"}).is_error
    assert not box.call("remember_fact", {"fact": "approved(v2)"}).is_error
    assert not box.call("remember_fact", {"fact": "owner(api, a)"}).is_error
    assert not box.call("remember_fact", {"fact": "service(api)"}).is_error


def test_a_rule_defined_by_a_tool_starts_from_what_it_finds(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = open_box()
    box.call("remember_fact", {"fact": "service(old)"})
    declared = box.call(
        "describe_predicate", {"predicate": "integrity_violation/1", "policy": "refuse"}
    )
    assert not declared.is_error, declared.text
    assert "follows the policy refuse" in declared.text
    rule = box.call(
        "define_rule",
        {"head": "integrity_violation(no_owner(S))", "body": "service(S), \\+ owner(S, _)"},
    )
    assert not rule.is_error, rule.text  # it finds no_owner(old): the rule's, not the write's
    assert box.call("remember_fact", {"fact": "service(new)"}).is_error
    schema = json.loads(box.call("get_knowledge_schema", {}).text)
    assert {
        "predicate": "integrity_violation/1",
        "kind": "integrity",
        "policy": "refuse",
        "declared": "describe_predicate",
    } in schema["constraints"]
    supersede = box.call(
        "describe_predicate", {"predicate": "integrity_violation/1", "policy": "supersede"}
    )
    assert supersede.is_error and "refuse" in supersede.notes[0]


@pytest.mark.parametrize("body", ["G = service(S), call(G)", "current_predicate(service/1), S = x"])
def test_a_rule_that_may_call_anything_is_checked_on_every_write(
    project: Path, open_box: Callable[..., Toolbox], body: str
) -> None:
    box = open_box()
    box.call("describe_predicate", {"predicate": "integrity_violation/1", "policy": "refuse"})
    box.call("define_rule", {"head": "integrity_violation(S)", "body": body})
    assert box.call("remember_fact", {"fact": "service(api)"}).is_error
    assert not box.call("remember_fact", {"fact": "other(api)"}).is_error


def test_a_rule_through_other_rules_is_checked_for_what_they_read(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    (project / ".zpm" / "kb" / "rules.pl").write_text(
        ":- policy(integrity_violation/1, refuse).\n"
        "integrity_violation(loop(X)) :- boss(X, Y), above(Y, X).\n"
        "above(X, Y) :- boss(X, Y).\n"
    )
    box = open_box()
    assert not box.call("remember_fact", {"fact": "boss(a, b)"}).is_error
    loop = box.call("remember_fact", {"fact": "boss(b, a)"})
    assert loop.is_error
    assert "integrity_violation(loop(a)) true (and 1 more);" in loop.text


@pytest.mark.parametrize("policy", ["refuse", "keep"])
def test_a_merge_lists_the_violations_it_makes_and_follows_the_policy(
    project: Path, open_box: Callable[..., Toolbox], policy: str
) -> None:
    box = rules(project, open_box)
    box.call("fork_memory", {"name": "try", "from": "default"})
    # the base's policy, declared after the fork: the fork keeps what it stores
    box.call("describe_predicate", {"predicate": "integrity_violation/1", "policy": policy})
    box.call("remember_fact", {"fact": "service(db)", "memory": "try"})
    box.call("remember_fact", {"fact": "owner(api, ann)", "memory": "try"})
    planned = json.loads(box.call("merge_memory", {"name": "try", "dry_run": True}).text)
    assert planned["violations"] == [
        {"violation": "integrity_violation(no_owner(db))", "policy": policy}
    ]
    merged = box.call("merge_memory", {"name": "try", "dry_run": False})
    assert merged.is_error == (policy == "refuse"), merged.text
    stored = box.call("query_logic", {"goal": "owner(api, X)"}).text
    if policy == "refuse":
        assert "integrity_violation(no_owner(db))" in merged.text
        assert stored == "[]"  # nothing of the merge is applied
    else:
        assert json.loads(merged.text)["violations"] == planned["violations"]
        assert stored == '[{"X":"ann"}]'


def test_a_revert_that_would_bring_a_violation_back_follows_the_policy(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = open_box()
    box.call("remember_fact", {"fact": "service(db)"})
    bare = json.loads(box.call("history", {"limit": 1}).text)["now"]
    box.call("remember_fact", {"fact": "owner(db, ann)"})
    box.close()
    box = rules(project, open_box, ":- policy(integrity_violation/1, refuse).")
    planned = json.loads(box.call("revert_memory", {"to": bare}).text)
    assert planned["violations"] == [
        {"violation": "integrity_violation(no_owner(db))", "policy": "refuse"}
    ]
    refused = box.call("revert_memory", {"to": bare, "dry_run": False})
    assert refused.is_error
    assert refused.text.startswith(
        "Refused: the revert would make integrity_violation(no_owner(db)) true;"
    )
    assert box.call("query_logic", {"goal": "owner(db, X)"}).text == '[{"X":"ann"}]'


def test_an_import_is_checked_as_one_write(
    project: Path, open_box: Callable[..., Toolbox], tmp_path: Path
) -> None:
    box = rules(project, open_box, ":- policy(integrity_violation/1, refuse).")
    importer = ProjectImport(box.memories, lambda: 1_796_464_800.0, lambda: None)
    bad = tmp_path / "bad.pl"
    bad.write_text("service(db).\nowner(api, ann).\n")
    with pytest.raises(ConstraintViolated) as refused:
        importer.import_file(bad, None, None, report=None)
    assert "integrity_violation(no_owner(db))" in refused.value.message
    assert box.call("query_logic", {"goal": "owner(X, Y)"}).text == "[]"
    good = tmp_path / "good.pl"
    good.write_text("service(db).\nowner(db, ann).\n")
    assert importer.import_file(good, None, None, report=None).clauses == 2
    box.close()
    box = rules(project, open_box)  # keep: stored, and said
    web = tmp_path / "web.pl"
    web.write_text("service(web).\n")
    done = ProjectImport(box.memories, lambda: 1_796_464_800.0, lambda: None).import_file(
        web, None, "web", report=None
    )
    assert list(done.conflicts) == [
        f"{web}: written, but it makes integrity_violation(no_owner(web)) true; "
        "integrity_violation/1 holds integrity rules (the project's default, policy keep)"
    ]


def test_a_server_sees_the_rules_and_facts_another_server_changed(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    (project / ".zpm" / "kb" / "rules.pl").write_text(
        "integrity_violation(crowded) :- aggregate_all(count, m(_), N), N > 1.\n"
    )
    one, two = open_box(), open_box()
    assert two.call("remember_fact", {"fact": "m(1)"}).notes == ()
    crowded = two.call("remember_fact", {"fact": "m(2)"})
    assert crowded.notes and "integrity_violation(crowded)" in crowded.notes[0]
    assert not one.call("forget_fact", {"fact": "m(2)"}).is_error  # not crowded any more
    again = two.call("remember_fact", {"fact": "m(3)"})
    assert again.notes and "integrity_violation(crowded)" in again.notes[0]
    # a rule another server defines is checked here at the next write
    one.call("describe_predicate", {"predicate": "integrity_violation/2", "policy": "refuse"})
    rule = {"head": "integrity_violation(big, X)", "body": "m(X), X > 10"}
    assert not one.call("define_rule", rule).is_error
    refused = two.call("remember_fact", {"fact": "m(11)"})
    assert refused.is_error and "integrity_violation(big, 11)" in refused.text
