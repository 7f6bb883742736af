"""The verb tools through the toolbox, on a real project: what the spec walk
(zpm_contract/scenarios/verbs.py, VERB_EXAMPLES) does not show."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from zpm_app.worker.toolbox import Toolbox
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause

Open = Callable[..., Toolbox]
DEFAULT = 2 << 32
"""Handles of the default memory of a fresh project (its id is 2)."""


def value(box: Toolbox, tool: str, **arguments: Any) -> Any:
    result = box.call(tool, arguments)
    assert not result.is_error, result
    if (
        tool != "query"
    ):  # its structured justifications are flat (tests/tools/test_structured_output)
        assert result.structured == json.loads(result.text)
    return json.loads(result.text)


def error(box: Toolbox, tool: str, **arguments: Any) -> str:
    result = box.call(tool, arguments)
    assert result.is_error, result
    return result.text


def journal_lines(project: Path) -> list[dict[str, Any]]:
    wal = project / ".zpm" / "data" / "journal.wal"
    return [json.loads(line) for line in wal.read_text().splitlines()]


def test_withdrawals_survive_restarts_snapshots_and_restores(open_box: Open) -> None:
    box = open_box()
    for name in ("a", "b", "c"):
        value(box, "assert", sentence=f"p({name})")
    assert value(box, "unassert-handle", sentex_handle=DEFAULT + 2) == {
        "excepting_handle": DEFAULT + 4
    }
    box.close()
    again = open_box()
    assert again.call("query_logic", {"goal": "p(X)"}).text == '[{"X":"a"},{"X":"c"}]'
    assert value(again, "unassert-handle", sentex_handle=DEFAULT + 2) == {"excepting_handle": None}
    again.call("save_snapshot", {"name": "s1"})
    value(again, "unassert", sentence="p(a)")
    again.call("restore_snapshot", {"name": "s1"})
    assert again.call("query_logic", {"goal": "p(X)"}).text == '[{"X":"a"},{"X":"c"}]'
    assert value(again, "unassert-handle", sentex_handle=DEFAULT + 2) == {"excepting_handle": None}
    history = again.memories.default.history.records()
    assert [(w.record, w.clause.handle) for w in history] == [(DEFAULT + 4, DEFAULT + 2)]
    again.close()
    third = open_box()
    assert [w.record for w in third.memories.default.history.records()] == [DEFAULT + 4]
    added = value(third, "assert", sentence="p(d)")
    assert added == {"handle": DEFAULT + 6, "already_there": False}, "no handle is given twice"


def test_unassert_withdraws_every_unifying_fact_in_one_batch(box: Toolbox, project: Path) -> None:
    for fact in ("q(1, x)", "q(2, y)", "q(3, x)", "r(1)"):
        value(box, "assert", sentence=fact)
    box.call("define_rule", {"head": "q(X, z)", "body": "r(X)"})
    before = len(journal_lines(project))
    assert value(box, "unassert", sentence="q(N, x)") == {
        "excepting_handles": [DEFAULT + 6, DEFAULT + 7]
    }
    batches = journal_lines(project)[before:]
    assert [[op["op"] for op in batch["ops"]] for batch in batches] == [["withdraw", "withdraw"]]
    assert box.call("query_logic", {"goal": "q(N, V)"}).text == '[{"N":2,"V":"y"},{"N":1,"V":"z"}]'
    assert value(box, "unassert", sentence="q(9, x)") == {"excepting_handles": []}
    assert len(journal_lines(project)) == before + 1, "nothing withdrawn, nothing written"


def test_a_rule_is_withdrawn_by_its_handle(box: Toolbox) -> None:
    box.call("remember_fact", {"fact": "r(1)"})
    box.call("define_rule", {"head": "s(X)", "body": "r(X)"})
    assert value(box, "unassert-handle", sentex_handle=DEFAULT + 2) == {
        "excepting_handle": DEFAULT + 3
    }
    assert box.call("query_logic", {"goal": "s(X)"}).text == "[]"


def test_withdrawing_an_assumed_fact_drops_its_supports(box: Toolbox) -> None:
    box.call("assume_fact", {"fact": "up(db)", "assumption": "healthy"})
    box.call("remember_fact", {"fact": "up(db)"})
    assert value(box, "unassert", sentence="up(db)") == {"excepting_handles": [DEFAULT + 3]}
    assert box.call("list_assumptions", {}).text == '{"assumptions":[]}'
    status = json.loads(box.call("get_belief_status", {"fact": "up(db)"}).text)
    assert status["status"] == "out"


def test_withdrawing_a_plain_second_copy_keeps_the_assumed_first(box: Toolbox) -> None:
    box.call("assume_fact", {"fact": "up(db)", "assumption": "healthy"})
    box.call("remember_fact", {"fact": "up(db)"})  # plain support, no copy
    box.call("remember_fact", {"fact": "up(db)"})  # a second copy, as assertz
    rows = value(box, "matching", pattern="up(X)")["rows"]
    assert [(r["asserted"], r["provenance"]["assumptions"]) for r in rows] == [
        (True, ["healthy"]),
        (True, []),
    ]
    value(box, "unassert-handle", sentex_handle=rows[1]["handle"])
    assert box.call("get_justification", {"assumption": "healthy"}).text == ('{"facts":["up(db)"]}')
    assert box.call("query_logic", {"goal": "up(X)"}).text == '[{"X":"db"}]'


def test_knowledge_file_clauses_are_monotonic(open_box: Open, project: Path) -> None:
    (project / ".zpm" / "kb" / "geo.pl").write_text(
        ":- dynamic(capital/2).\ncapital(france, paris).\n"
    )
    box = open_box()
    rows = value(box, "matching", pattern="capital(C, X)")["rows"]
    assert len(rows) == 1
    assert rows[0]["provenance"] == {
        "tool": None,
        "client": None,
        "file": "kb/geo.pl",
        "line": 2,
        "at": None,
        "assumptions": [],
    }
    monotonic = "Cannot withdraw monotonic knowledge: capital(france, paris) (from kb/geo.pl:2)"
    assert error(box, "unassert", sentence="capital(france, X)") == monotonic
    assert error(box, "unassert-handle", sentex_handle=rows[0]["handle"]) == monotonic
    assert value(box, "assert", sentence="capital(france, paris)") == {
        "handle": rows[0]["handle"],
        "already_there": True,
    }
    value(box, "assert", sentence="capital(peru, lima)")
    assert error(box, "unassert", sentence="capital(C, X)") == monotonic
    assert len(value(box, "matching", pattern="capital(C, X)")["rows"]) == 2


def test_matching_stops_at_its_limit_and_pages(box: Toolbox) -> None:
    for n in range(7):
        value(box, "assert", sentence=f"n({n})")
    first = value(box, "matching", pattern="n(X)", limit=3)
    assert [r["sentence"] for r in first["rows"]] == ["n(0)", "n(1)", "n(2)"]
    assert first["truncated"] is True
    pages = [first]
    while pages[-1]["truncated"]:
        after = pages[-1]["rows"][-1]["handle"]
        pages.append(value(box, "matching", pattern="n(X)", limit=3, after_handle=after))
    assert [r["sentence"] for page in pages for r in page["rows"]] == [f"n({n})" for n in range(7)]
    assert value(box, "matching", pattern="n(X)", limit=7)["truncated"] is False
    result = box.call("matching", {"pattern": "n(X)", "after_handle": 7})
    assert (result.text, result.is_error) == ("InvalidArguments", True)
    assert result.hint == "after_handle 7 is not a fact of n/1 in memory default"


def test_matching_shows_facts_as_stored_with_their_variable_names(box: Toolbox) -> None:
    value(box, "assert", sentence="pair(A, B)")
    value(box, "assert", sentence="pair(C, C)")
    assert value(box, "assert", sentence="pair(X, X)")["already_there"] is True
    rows = value(box, "matching", pattern="pair(x, Y)")["rows"]
    assert [r["sentence"] for r in rows] == ["pair(A, B)", "pair(C, C)"]


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        ("unassert-handle", {"sentex_handle": 0}, "InvalidArguments"),
        ("unassert-handle", {"sentex_handle": True}, "InvalidArguments"),
        ("unassert-handle", {"sentex_handle": 2**64}, "InvalidArguments"),
        ("unassert-handle", {"sentex_handle": None}, "InvalidArguments"),
        ("unassert", {"sentence": "X"}, "sentence must be a fact (use define_rule to add rules)"),
        ("unassert", {"sentence": "(a, b)"}, None),
        ("unassert", {"sentence": "member(X, Y)"}, None),
        ("matching", {"pattern": "(a ; b)"}, None),
        ("matching", {"pattern": "a :- b"}, None),
        ("matching", {"pattern": "\\+ a"}, None),
        ("matching", {"pattern": "p(X)", "asserted_only": "yes"}, "InvalidArguments"),
        ("assert", {"sentence": "p(1)", "strength": 3}, "InvalidArguments"),
        ("assert", {"sentence": "p(1)", "weight": 3}, "InvalidArguments"),
        ("assert", {"sentence": "'$VAR'(1) :- true"}, None),
        ("matching", {"pattern": "p(X)", "context": "ghost"}, "Memory not mounted: ghost"),
    ],
)
def test_hostile_inputs_are_clear_errors_that_change_nothing(
    box: Toolbox, project: Path, tool: str, arguments: dict[str, Any], text: str | None
) -> None:
    value(box, "assert", sentence="p(1)")
    before = journal_lines(project)
    result = box.call(tool, arguments)
    assert result.is_error, result
    if text is not None:
        assert result.text == text
    assert journal_lines(project) == before
    assert box.call("query_logic", {"goal": "p(X)"}).text == '[{"X":1}]'


def test_query_justifies_each_answer_with_the_handles_it_used(
    open_box: Open, project: Path
) -> None:
    (project / ".zpm" / "kb" / "base.pl").write_text(":- dynamic(edge/2).\nedge(a, b).\n")
    box = open_box()
    box.call("create_memory", {"name": "other"})
    box.call("mount_memory", {"name": "other"})
    value(box, "assert", sentence="edge(b, c)")
    other = value(box, "assert", sentence="far(c)", context="other")["handle"]
    box.call("define_rule", {"head": "path(X, Y)", "body": "edge(X, Y)"})
    box.call("define_rule", {"head": "path(X, Y)", "body": "edge(X, Z), path(Z, Y)"})
    answers = value(box, "query", goal="path(a, Y), other:far(Y)", include_justification=True)
    (answer,) = answers["answers"]
    assert answer["bindings"] == {"Y": "c"}
    root = answer["justification"]
    assert (root["rule_applied"], "handle" in root) == ("builtin", False)
    path, far = root["children"]
    assert far == {
        "goal": "other:far(c)",
        "rule_applied": "fact",
        "handle": other,
        "children": [],
    }
    file_edge = path["children"][0]
    assert file_edge["goal"] == "edge(a, b)"
    assert file_edge["handle"] == value(box, "matching", pattern="edge(a, X)")["rows"][0]["handle"]
    assert path["children"][1]["children"][0]["handle"] == DEFAULT + 1


def test_query_answers_as_query_logic_does(box: Toolbox) -> None:
    for n in range(120):
        box.call("remember_fact", {"fact": f"n({n}, v{n})"})
    answers = value(box, "query", goal="n(N, _V)")
    logic = json.loads(box.call("query_logic", {"goal": "n(N, _V)"}).text)
    assert [a["bindings"] for a in answers["answers"]] == [{"N": str(row["N"])} for row in logic]
    assert answers["truncated"] is True and len(answers["answers"]) == 100
    assert value(box, "query", goal="n(1, V)")["answers"] == [
        {"bindings": {"V": "v1"}, "justification": None}
    ]
    assert value(box, "query", goal="n(500, V)") == {"answers": [], "truncated": False}


def test_a_justification_past_the_limits_is_null(open_box: Open, project: Path) -> None:
    """Proving through the meta-interpreter takes more inferences than solving:
    past ``max_inferences`` the answer stays, its justification is null."""
    (project / ".zpm" / "config.toml").write_text("[limits]\nmax_inferences = 400\n")
    box = open_box()
    box.call("remember_fact", {"fact": "chain(0)"})
    box.call("define_rule", {"head": "chain(N)", "body": "N > 0, M is N - 1, chain(M)"})
    short, long = (
        value(box, "query", goal=f"chain({n})", include_justification=True)["answers"]
        for n in (2, 40)
    )
    assert short[0]["justification"]["goal"] == "chain(2)"
    assert long == [{"bindings": {}, "justification": None}]


def test_assert_knows_a_variant_from_a_lookalike(box: Toolbox) -> None:
    first = value(box, "assert", sentence="p(1.0, x)")["handle"]
    assert value(box, "assert", sentence="p(1, x)")["already_there"] is False
    assert value(box, "assert", sentence="p(1.0, x)") == {"handle": first, "already_there": True}
    held = value(box, "assert", sentence="p(a, X)")["handle"]
    assert value(box, "assert", sentence="p(a, Y)") == {"handle": held, "already_there": True}
    assert value(box, "assert", sentence="p(a, b)")["already_there"] is False
    assert value(box, "assert", sentence='p("a", b)')["already_there"] is False
    assert value(box, "assert", sentence="p(X, Y)")["already_there"] is False
    assert value(box, "assert", sentence="p(A, B)")["already_there"] is True


def assert_again(box: Toolbox, fact: str) -> None:
    """``assert`` of a ground ``fact`` answers the handle of its first stored
    copy, in the order ``matching`` lists them, or stores it."""
    rows = [r for r in value(box, "matching", pattern=fact)["rows"] if r["sentence"] == fact]
    answer = value(box, "assert", sentence=fact)
    if rows:
        assert answer == {"handle": rows[0]["handle"], "already_there": True}, fact
    else:
        assert answer["already_there"] is False, fact


def test_assert_finds_the_first_stored_copy_after_every_kind_of_change(open_box: Open) -> None:
    box = open_box()
    for fact in ("f(1, a)", "f(2, b)", "f(1, a)"):
        assert_again(box, fact)
    box.call("remember_fact", {"fact": "f(1, a)"})  # a second copy
    first = value(box, "matching", pattern="f(1, a)")["rows"][0]["handle"]
    value(box, "unassert-handle", sentex_handle=first)
    assert_again(box, "f(1, a)")  # the second copy
    box.call("forget_fact", {"fact": "f(1, a)"})
    assert_again(box, "f(1, a)")  # stored again
    box.call("update_fact", {"old_fact": "f(2, b)", "new_fact": "f(2, c)"})
    for fact in ("f(2, c)", "f(2, b)"):
        assert_again(box, fact)
    box.call("upsert_fact", {"fact": "f(2, d)"})
    for fact in ("f(2, d)", "f(2, c)"):
        assert_again(box, fact)
    box.call("assume_fact", {"fact": "g(x)", "assumption": "h"})
    assert_again(box, "g(x)")  # the assumed copy
    box.call("retract_assumption", {"assumption": "h"})
    assert_again(box, "g(x)")
    box.call("clear_context", {"category": "f(_, _)"})
    assert_again(box, "f(1, a)")
    box.call("save_snapshot", {"name": "s"})
    assert_again(box, "f(3, z)")
    box.call("restore_snapshot", {"name": "s"})
    for fact in ("f(3, z)", "f(1, a)"):
        assert_again(box, fact)
    box.call("rename_predicate", {"old_functor": "f", "new_functor": "k", "arity": 2})
    for fact in ("k(1, a)", "f(1, a)"):
        assert_again(box, fact)
    box.close()
    again = open_box()
    for fact in ("k(3, z)", "f(1, a)", "g(x)"):
        assert_again(again, fact)


def test_assert_looks_up_a_ground_fact_without_reading_its_predicate(box: Toolbox) -> None:
    for n in range(50):
        value(box, "assert", sentence=f"n({n}, {n}.0)")
    kb = box.memories.default

    def unread() -> list[Clause]:
        raise AssertionError("the predicate was read again")

    assert kb.beliefs.stored_variant(read_term("n(7, 7.0)"), unread) is not None
    assert value(box, "assert", sentence="n(7, 7.0)")["already_there"] is True
    assert value(box, "assert", sentence="n(7, 7)")["already_there"] is False
    assert kb.beliefs.stored_variant(read_term("n(7, 7)"), unread) is not None
    assert value(box, "assert", sentence="nan(1.5NaN)")["already_there"] is False
    assert value(box, "assert", sentence="nan(1.5NaN)")["already_there"] is True


GEO = ":- functional(capital/2).\ncapital(france, paris).\ncapital(peru, lima).\n"


def test_a_fact_that_functional_knowledge_contradicts_is_stored_but_defeated(
    open_box: Open, project: Path
) -> None:
    (project / ".zpm" / "kb" / "geo.pl").write_text(GEO)
    box = open_box()
    told = box.call("remember_fact", {"fact": "capital(france, lyon)"})
    assert (told.text, told.is_error) == ("Asserted: capital(france, lyon)", False)
    assert told.hint == "stored, but defeated by capital(france, paris) (kb/geo.pl:2)"
    assert box.call("remember_fact", {"fact": "capital(chile, santiago)"}).hint is None
    added = value(box, "assert", sentence="capital(peru, cusco)")
    assert added["already_there"] is False
    assert value(box, "assert", sentence="capital(peru, cusco)") == {
        "handle": added["handle"],
        "already_there": True,
    }
    assert value(box, "assert", sentence="capital(peru, lima)")["already_there"] is True
    everywhere = '[{"C":"paris"}]'
    assert box.call("query_logic", {"goal": "capital(france, C)"}).text == everywhere
    assert [r["sentence"] for r in value(box, "matching", pattern="capital(X, Y)")["rows"]] == [
        "capital(france, paris)",
        "capital(peru, lima)",
        "capital(chile, santiago)",
    ]
    status = json.loads(box.call("get_belief_status", {"fact": "capital(peru, cusco)"}).text)
    assert status["status"] == "out"
    box.call("assume_fact", {"fact": "capital(france, nice)", "assumption": "guess"})
    assert box.call("list_assumptions", {}).text == '{"assumptions":[]}'
    assert value(box, "unassert-handle", sentex_handle=added["handle"])["excepting_handle"]
    assert value(box, "assert", sentence="capital(peru, cusco)")["already_there"] is False


def test_defeat_is_decided_again_at_every_start(open_box: Open, project: Path) -> None:
    geo = project / ".zpm" / "kb" / "geo.pl"
    geo.write_text(GEO)
    box = open_box()
    box.call("remember_fact", {"fact": "capital(france, lyon)"})
    box.call("save_snapshot", {"name": "s1"})
    box.call("remember_fact", {"fact": "capital(peru, cusco)"})
    box.close()
    assert open_box().call("query_logic", {"goal": "capital(X, Y)"}).text == (
        '[{"X":"france","Y":"paris"},{"X":"peru","Y":"lima"}]'
    )
    geo.write_text(":- functional(capital/2).\n")
    again = open_box()
    assert again.call("query_logic", {"goal": "capital(X, Y)"}).text == (
        '[{"X":"france","Y":"lyon"},{"X":"peru","Y":"cusco"}]'
    )
    geo.write_text(GEO)
    third = open_box()
    third.call("restore_snapshot", {"name": "s1"})
    assert third.call("query_logic", {"goal": "capital(france, Y)"}).text == '[{"Y":"paris"}]'
    assert value(third, "assert", sentence="capital(france, lyon)")["already_there"] is True


def test_functional_declarations_that_cannot_hold_are_reported(
    open_box: Open, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (project / ".zpm" / "kb" / "bad.pl").write_text(
        ":- functional(flag/0).\n:- functional(member/2).\n:- functional(nonsense).\n"
    )
    box = open_box()
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "bad.pl:1: skipped: flag/0 cannot be functional: it has no argument" in messages
    assert "bad.pl:2: skipped: " in messages and "member/2" in messages
    assert "bad.pl:3: skipped: functional/1 expects Name/Arity indicators" in messages
    assert box.call("remember_fact", {"fact": "flag"}).hint is None
