"""Functional constraints checked when a fact is written: the two-agent
owner story ends in a refusal, a supersession or a kept conflict, as the
constraint's policy says (``zpm_domain.constraints``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from zpm_app.bootstrap.config import ConfigError, resolve_settings
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.constraints import policy
from zpm_domain.memory.call_context import CallContext
from zpm_domain.stored import descriptions

HANDLE = r"handle \d+"
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def team(project: Path, open_box: Callable[..., Toolbox], directive: str) -> Toolbox:
    """A project whose knowledge file ``kb/team.pl`` holds ``directive``."""
    (project / ".zpm" / "kb" / "team.pl").write_text(f"{directive}\nowner(billing, carol).\n")
    return open_box()


def owners(box: Toolbox, service: str = "auth_service") -> str:
    return box.call("query_logic", {"goal": f"owner({service}, X)"}).text


def test_refuse_names_the_fact_it_conflicts_with_and_how_to_replace_it(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2, refuse).")
    first = box.call(
        "remember_fact", {"fact": "owner(auth_service, alice)"}, CallContext(client="agent-a")
    )
    assert not first.is_error and first.notes == ()
    second = box.call(
        "remember_fact", {"fact": "owner(auth_service, bob)"}, CallContext(client="agent-b")
    )
    assert second.is_error
    assert re.fullmatch(
        rf"Refused: owner\(auth_service, bob\) conflicts with owner\(auth_service, alice\) "
        rf"\({HANDLE}, stored by agent-a with remember_fact at {STAMP}\); owner/2 is "
        rf"functional \(kb/team.pl:1, policy refuse\)",
        second.text,
    ), second.text
    assert second.notes[0].startswith(
        "To replace it, call update_fact with old_fact owner(auth_service, alice) and "
        "new_fact owner(auth_service, bob)"
    )
    assert owners(box) == '[{"X":"alice"}]'
    other = box.call("remember_fact", {"fact": "owner(search, bob)"}, CallContext(client="agent-b"))
    assert not other.is_error  # another service
    replaced = box.call(
        "update_fact",
        {"old_fact": "owner(auth_service, alice)", "new_fact": "owner(auth_service, bob)"},
    )
    assert not replaced.is_error and replaced.notes == ()
    again = box.call(
        "remember_fact", {"fact": "owner(auth_service, bob)"}, CallContext(client="agent-b")
    )
    assert not again.is_error  # the same owner again: no conflict
    assert json.loads(owners(box)) == [{"X": "bob"}, {"X": "bob"}]


def test_a_refused_write_stores_nothing_and_a_restart_agrees(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2, refuse).")
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    now = json.loads(box.call("history", {"limit": 1}).text)["now"]
    for tool, arguments in [
        ("remember_fact", {"fact": "owner(auth_service, bob)"}),
        ("assume_fact", {"fact": "owner(auth_service, bob)", "assumption": "a1"}),
        ("assert", {"sentence": "owner(auth_service, bob)"}),
        ("upsert_fact", {"fact": "owner(auth_service, bob)"}),  # replaces: no conflict
    ]:
        answer = box.call(tool, arguments)
        assert answer.is_error == (tool != "upsert_fact"), (tool, answer)
    assert json.loads(box.call("history", {"limit": 1}).text)["now"] == str(int(now) + 1)
    box.close()
    assert owners(open_box()) == '[{"X":"bob"}]'


def test_supersede_withdraws_the_old_fact_and_the_history_keeps_both(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2, supersede).")
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"}, CallContext(client="agent-a"))
    before = json.loads(box.call("history", {"limit": 1}).text)["now"]
    second = box.call(
        "remember_fact", {"fact": "owner(auth_service, bob)"}, CallContext(client="agent-b")
    )
    assert not second.is_error and second.text == "Asserted: owner(auth_service, bob)"
    assert re.fullmatch(
        rf"superseded owner\(auth_service, alice\) \({HANDLE}, stored by agent-a with "
        rf"remember_fact at {STAMP}\)",
        second.notes[0],
    ), second.notes
    assert owners(box) == '[{"X":"bob"}]'
    then = box.call("query_logic", {"goal": "owner(auth_service, X)", "as_of": before})
    assert then.text == '[{"X":"alice"}]'
    events = json.loads(box.call("history", {"predicate": "owner/2", "limit": 2}).text)
    assert [(e["event"], e["text"], e["client"], e["tool"]) for e in events["events"]] == [
        ("stored", "owner(auth_service, bob)", "agent-b", "remember_fact"),
        (
            "withdrawn",
            "owner(auth_service, alice) (superseded by owner(auth_service, bob))",
            "agent-b",
            "remember_fact",
        ),
    ]
    box.call("save_snapshot", {"name": "s1"})
    box.call("restore_snapshot", {"name": "s1"})
    records = box.memories.default.history.records()
    assert [r.reason for r in records] == ["superseded by owner(auth_service, bob)"]
    box.close()
    box = open_box()
    assert owners(box) == '[{"X":"bob"}]'
    events = json.loads(box.call("history", {"predicate": "owner/2", "limit": 5}).text)
    texts = [event["text"] for event in events["events"]]
    assert "owner(auth_service, alice) (superseded by owner(auth_service, bob))" in texts


def test_keep_stores_both_and_says_which_fact_the_new_one_conflicts_with(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2, keep).")
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"}, CallContext(client="agent-a"))
    second = box.call(
        "remember_fact", {"fact": "owner(auth_service, bob)"}, CallContext(client="agent-b")
    )
    assert not second.is_error
    assert re.fullmatch(
        rf"stored, but conflicts with owner\(auth_service, alice\) \({HANDLE}, stored by "
        rf"agent-a with remember_fact at {STAMP}\); owner/2 is functional \(kb/team.pl:1, "
        rf"policy keep\)",
        second.notes[0],
    ), second.notes
    assert json.loads(owners(box)) == [{"X": "alice"}, {"X": "bob"}]
    assumed = box.call("assume_fact", {"fact": "owner(auth_service, dan)", "assumption": "a1"})
    assert len(assumed.notes) == 2  # with alice and with bob


def test_the_configuration_gives_the_policy_of_a_constraint_declared_without_one(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    (project / ".zpm" / "config.toml").write_text('[constraints]\npolicy = "refuse"\n')
    box = team(project, open_box, ":- functional(owner/2).")
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    refused = box.call("remember_fact", {"fact": "owner(auth_service, bob)"})
    assert refused.is_error and refused.text.endswith("(kb/team.pl:1, policy refuse)")
    (project / ".zpm" / "config.toml").write_text('[constraints]\npolicy = "ignore"\n')
    with pytest.raises(ConfigError, match="'constraints.policy' must be one of"):
        resolve_settings(project=str(project))


def test_without_a_declaration_or_a_policy_nothing_changes(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2).")  # the default: keep
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    kept = box.call("remember_fact", {"fact": "owner(auth_service, bob)"})
    assert kept.notes and kept.notes[0].endswith("policy keep)")
    open_fact = box.call("remember_fact", {"fact": "owner(auth_service, _)"})
    assert all("conflicts" not in note for note in open_fact.notes)  # a variable: not constrained
    free = box.call("remember_fact", {"fact": "member(auth_service, alice)"})
    more = box.call("remember_fact", {"fact": "member(auth_service, bob)"})
    assert free.notes == more.notes == ()
    defeated = box.call("remember_fact", {"fact": "owner(billing, dan)"})
    assert defeated.notes == ("stored, but defeated by owner(billing, carol) (kb/team.pl:2)",)


def test_a_policy_that_is_not_one_of_the_three_skips_the_declaration(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- dynamic(owner/2).\n:- functional(owner/2, ignore).")
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    second = box.call("remember_fact", {"fact": "owner(auth_service, bob)"})
    assert not second.is_error and second.notes == ()
    defeated = box.call("remember_fact", {"fact": "owner(billing, dan)"})
    assert defeated.notes == ()  # not functional: nothing defeats it either


def test_the_schema_lists_each_constraint_with_its_policy(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = open_box()
    assert "constraints" not in json.loads(box.call("get_knowledge_schema", {}).text)
    box.close()
    (project / ".zpm" / "config.toml").write_text('[constraints]\npolicy = "supersede"\n')
    box = team(project, open_box, ":- functional(owner/2).\n:- functional(lead/3, refuse).")
    schema = json.loads(box.call("get_knowledge_schema", {}).text)
    assert schema["constraints"] == [
        {
            "predicate": "owner/2",
            "kind": "functional",
            "policy": "supersede",
            "declared": "kb/team.pl:1",
        },
        {
            "predicate": "lead/3",
            "kind": "functional",
            "policy": "refuse",
            "declared": "kb/team.pl:2",
        },
    ]


def test_describe_predicate_declares_a_constraint_that_history_forks_and_restarts_keep(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = open_box()
    said = box.call("describe_predicate", {"predicate": "owner/2", "functional": True})
    assert said.text == (
        "owner/2 is functional: its stored facts follow the policy the project's default"
    )
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    kept = box.call("remember_fact", {"fact": "owner(auth_service, bob)"})
    assert kept.notes[0].endswith("owner/2 is functional (describe_predicate, policy keep)")
    described = box.call(
        "describe_predicate",
        {"predicate": "owner/2", "description": "who owns a service", "policy": "refuse"},
    )
    assert described.text == "Described owner/2: who owns a service"
    assert described.notes == ("owner/2 is functional: its stored facts follow the policy refuse",)
    box.close()
    box = open_box()  # replayed from the journal
    refused = box.call("remember_fact", {"fact": "owner(auth_service, carol)"})
    assert refused.is_error and refused.text.endswith("(describe_predicate, policy refuse)")
    schema = json.loads(box.call("get_knowledge_schema", {}).text)
    assert schema["predicates"][0]["description"] == "who owns a service"
    assert schema["constraints"] == [
        {
            "predicate": "owner/2",
            "kind": "functional",
            "policy": "refuse",
            "declared": "describe_predicate",
        }
    ]
    box.call("save_snapshot", {"name": "s1"})
    forked = box.call("fork_memory", {"name": "try", "from": "default"})
    assert not forked.is_error, forked.text
    in_fork = box.call("remember_fact", {"fact": "owner(auth_service, dan)", "memory": "try"})
    assert in_fork.is_error  # the fork carries the constraint
    events = json.loads(box.call("history", {"predicate": "owner/2", "limit": 1}).text)
    assert events["events"][0]["event"] == "described"
    gone = box.call("describe_predicate", {"predicate": "owner/2", "functional": False})
    assert gone.text == "owner/2 is no longer functional"
    assert not box.call("remember_fact", {"fact": "owner(auth_service, carol)"}).is_error
    box.call("restore_snapshot", {"name": "s1"})
    assert box.call("remember_fact", {"fact": "owner(auth_service, erin)"}).is_error


def test_describe_predicate_says_what_is_wrong_with_a_declaration(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2, refuse).")
    cases = [
        ({"predicate": "owner/2", "functional": False}, "declared functional in kb/team.pl:1"),
        ({"predicate": "lead/2", "policy": "refuse"}, "lead/2 is not functional"),
        ({"predicate": "lead/2", "functional": True, "policy": "drop"}, "policy must be"),
        ({"predicate": "flag/0", "functional": True}, "flag/0 cannot be functional"),
        ({"predicate": "lead/2"}, "give a description, functional or a policy"),
    ]
    for arguments, hint in cases:
        answer = box.call("describe_predicate", arguments)
        assert answer.is_error and answer.text == "InvalidArguments", (arguments, answer)
        assert hint in answer.notes[0], (arguments, answer.notes)
    described = box.call(
        "describe_predicate", {"predicate": "owner/2", "description": "who owns it"}
    )
    assert described.text == "Described owner/2: who owns it" and described.notes == ()


def test_a_description_keeps_the_policies_the_constraints_know() -> None:
    assert descriptions.POLICIES == policy.NAMES


def test_verify_consistency_reports_the_conflicts_a_keep_policy_holds(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = open_box()
    box.call("define_rule", {"head": "integrity_violation(no_owner)", "body": "\\+ owner(_, _)"})
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    box.call("remember_fact", {"fact": "owner(auth_service, bob)"})  # before the declaration
    box.call("describe_predicate", {"predicate": "owner/2", "functional": True})
    box.call("remember_fact", {"fact": "owner(auth_service, carol)"})  # kept: the default
    box.call("remember_fact", {"fact": "owner(search, dan)"})
    found = json.loads(box.call("verify_consistency", {}).text)["violations"]
    assert found == [
        "conflict(owner(auth_service, alice), owner(auth_service, bob))",
        "conflict(owner(auth_service, alice), owner(auth_service, carol))",
    ]
    scoped = json.loads(box.call("verify_consistency", {"scope": "deployment"}).text)
    assert scoped["violations"] == []
    box.call("unassert-handle", {"sentex_handle": _handle(box, "owner(auth_service, alice)")})
    found = json.loads(box.call("verify_consistency", {}).text)["violations"]
    assert found == ["conflict(owner(auth_service, bob), owner(auth_service, carol))"]


def _handle(box: Toolbox, fact: str) -> int:
    handle: int = json.loads(box.call("matching", {"pattern": fact}).text)["rows"][0]["handle"]
    return handle


def test_argue_answers_both_for_a_fact_a_keep_policy_holds_beside_another(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2, keep).")
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    box.call("remember_fact", {"fact": "owner(auth_service, bob)"})
    box.call("remember_fact", {"fact": "owner(search, bob)"})
    argued = box.call("argue", {"closed_goal": "owner(auth_service, bob)"})
    answer = json.loads(argued.text)
    assert answer["verdict"] == "both"
    against = answer["against_justification"]
    assert against["kind"] == "conflict" and against["placed_in"] == ["default"]
    assert against["fact"]["sentence"] == "owner(auth_service, bob)"
    assert [(c["sentence"], c["rules"]) for c in against["conflicting"]] == [
        ("owner(auth_service, alice)", ["owner/2 is functional (kb/team.pl:1, policy keep)"])
    ]
    assert argued.structured is not None
    assert argued.structured["against_justification"] == against
    alone = json.loads(box.call("argue", {"closed_goal": "owner(search, bob)"}).text)
    assert alone["verdict"] == "true" and alone["against_justification"] is None
    both = box.call("argue", {"closed_goal": "(owner(search, bob), owner(auth_service, alice))"})
    nodes = both.structured["against_justification"]["tree"]["nodes"]  # type: ignore[index]
    assert nodes[1]["rule_applied"] == "conflict"
    assert nodes[1]["conflict"]["fact"]["sentence"] == "owner(auth_service, alice)"


def test_an_assumption_supersedes_nothing_so_retracting_it_leaves_the_stored_facts(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = team(project, open_box, ":- functional(owner/2, supersede).")
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"}, CallContext(client="agent-a"))
    assumed = box.call("assume_fact", {"fact": "owner(auth_service, bob)", "assumption": "reorg"})
    assert not assumed.is_error
    assert assumed.notes[0].startswith("stored, but conflicts with owner(auth_service, alice)")
    assert assumed.notes[0].endswith(
        "(kb/team.pl:1, policy supersede): an assumption supersedes nothing"
    )
    assert json.loads(owners(box)) == [{"X": "alice"}, {"X": "bob"}]
    box.call("retract_assumption", {"assumption": "reorg"})
    assert owners(box) == '[{"X":"alice"}]'
    stored = box.call("remember_fact", {"fact": "owner(auth_service, carol)"})
    assert stored.notes[0].startswith("superseded owner(auth_service, alice)")
    assert owners(box) == '[{"X":"carol"}]'


@pytest.mark.parametrize("policy", ["refuse", "supersede", "keep"])
def test_a_merge_lists_the_facts_that_contradict_the_base_and_follows_the_policy(
    project: Path, open_box: Callable[..., Toolbox], policy: str
) -> None:
    box = team(project, open_box, f":- functional(owner/2, {policy}).")
    box.call("fork_memory", {"name": "try", "from": "default"})
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"}, CallContext(client="agent-a"))
    box.call("remember_fact", {"fact": "owner(auth_service, bob)", "memory": "try"})
    box.call("remember_fact", {"fact": "owner(search, bob)", "memory": "try"})
    planned = json.loads(box.call("merge_memory", {"name": "try", "dry_run": True}).text)
    assert [(c["fact"], c["conflicts_with"], c["policy"]) for c in planned["constraints"]] == [
        ("owner(auth_service, bob)", "owner(auth_service, alice)", policy)
    ]
    merged = box.call("merge_memory", {"name": "try", "dry_run": False})
    expected = {
        "refuse": [{"X": "alice"}],
        "supersede": [{"X": "bob"}],
        "keep": [{"X": "alice"}, {"X": "bob"}],
    }[policy]
    assert merged.is_error == (policy == "refuse"), merged.text
    if policy == "refuse":
        assert merged.text.startswith("Refused: owner(auth_service, bob) conflicts with")
        assert owners(box, "search") == "[]"  # nothing of the merge is applied
    else:
        assert json.loads(merged.text)["constraints"][0]["policy"] == policy
        assert owners(box, "search") == '[{"X":"bob"}]'
    assert json.loads(owners(box)) == expected


@pytest.mark.parametrize("policy", ["refuse", "supersede", "keep"])
def test_a_rename_to_a_functional_name_follows_its_policy(
    project: Path, open_box: Callable[..., Toolbox], policy: str
) -> None:
    (project / ".zpm" / "kb" / "team.pl").write_text(f":- functional(owner/2, {policy}).\n")
    box = open_box()
    for fact in ("boss(auth_service, alice)", "boss(auth_service, bob)", "boss(search, bob)"):
        box.call("remember_fact", {"fact": fact})
    renamed = box.call("rename_predicate", {"old_functor": "boss", "new_functor": "owner"})
    assert renamed.is_error == (policy == "refuse"), renamed.text
    if policy == "refuse":
        assert renamed.text.startswith(
            "Refused: owner(auth_service, bob) conflicts with boss(auth_service, alice)"
        )
        assert box.call("query_logic", {"goal": "owner(X, Y)"}).text == "[]"
        return
    expected = {"supersede": ["bob"], "keep": ["alice", "bob"]}[policy]
    assert [row["X"] for row in json.loads(owners(box))] == expected
    assert renamed.notes and renamed.notes[0].startswith(
        "superseded" if policy == "supersede" else "stored, but conflicts"
    )


def test_a_revert_that_would_bring_a_contradiction_back_follows_the_policy(
    project: Path, open_box: Callable[..., Toolbox]
) -> None:
    box = open_box()
    box.call("remember_fact", {"fact": "owner(auth_service, alice)"})
    box.call("remember_fact", {"fact": "owner(auth_service, bob)"})
    both = json.loads(box.call("history", {"limit": 1}).text)["now"]
    box.call("forget_fact", {"fact": "owner(auth_service, bob)"})
    box.close()
    box = team(project, open_box, ":- functional(owner/2, refuse).")
    planned = json.loads(box.call("revert_memory", {"to": both}).text)
    assert [(c["fact"], c["conflicts_with"], c["policy"]) for c in planned["constraints"]] == [
        ("owner(auth_service, bob)", "owner(auth_service, alice)", "refuse")
    ]
    refused = box.call("revert_memory", {"to": both, "dry_run": False})
    assert refused.is_error and refused.text.startswith("Refused: owner(auth_service, bob)")
    assert owners(box) == '[{"X":"alice"}]'
    box.close()
    box = team(project, open_box, ":- functional(owner/2, supersede).")
    done = box.call("revert_memory", {"to": both, "dry_run": False})
    assert not done.is_error and json.loads(done.text)["constraints"][0]["policy"] == "supersede"
    assert json.loads(owners(box)) == [{"X": "alice"}, {"X": "bob"}]  # the moment, exactly
