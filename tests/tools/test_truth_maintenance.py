"""Truth maintenance through the toolbox: supports, retraction, sources, durability."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.tools.outcomes import error, ok
from zpm_app.worker.toolbox import Toolbox

Open = Callable[..., Toolbox]


def status(box: Toolbox, fact: str) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(ok(box, "get_belief_status", fact=fact))
    return value


def answers(box: Toolbox, goal: str) -> str:
    return ok(box, "query_logic", goal=goal)


def journal_bytes(project: Path) -> bytes:
    return (project / ".zpm" / "data" / "journal.wal").read_bytes()


def test_the_spec_walk_of_assumptions(box: Toolbox) -> None:
    assert ok(box, "assume_fact", fact="available(server_a)", assumption="infra_healthy") == (
        "Assumed: available(server_a) under assumption 'infra_healthy'"
    )
    assert ok(box, "get_belief_status", fact="available(server_a)") == (
        '{"status":"in","justifications":["infra_healthy"],"source":"interactive"}'
    )
    assert ok(box, "get_justification", assumption="infra_healthy") == (
        '{"facts":["available(server_a)"]}'
    )
    ok(box, "assume_fact", fact="budget(ok)", assumption="budget_approved")
    assert ok(box, "list_assumptions") == '{"assumptions":["infra_healthy","budget_approved"]}'
    assert ok(box, "retract_assumption", assumption="infra_healthy") == (
        "Retracted assumption 'infra_healthy': 1 fact(s) removed"
    )
    assert error(box, "retract_assumption", assumption="nonexistent") == (
        "Unknown assumption 'nonexistent'"
    )
    assert answers(box, "available(X)") == "[]"


def test_a_fact_also_asserted_plainly_survives_its_assumption(box: Toolbox) -> None:
    ok(box, "remember_fact", fact="up(web)")
    ok(box, "assume_fact", fact="up(web)", assumption="monitoring")
    ok(box, "assume_fact", fact="up(db)", assumption="monitoring")
    assert answers(box, "up(X)") == '[{"X":"web"},{"X":"db"}]'
    assert ok(box, "retract_assumption", assumption="monitoring") == (
        "Retracted assumption 'monitoring': 1 fact(s) removed"
    )
    assert answers(box, "up(X)") == '[{"X":"web"}]'
    assert status(box, "up(web)") == {
        "status": "in",
        "justifications": [],
        "source": "interactive",
    }
    assert status(box, "up(db)") == {"status": "out", "justifications": [], "source": "unknown"}


def test_a_fact_held_by_two_assumptions_stays_until_both_go(box: Toolbox) -> None:
    ok(box, "assume_fact", fact="risk(high)", assumption="audit")
    ok(box, "assume_fact", fact="risk(high)", assumption="pentest")
    assert answers(box, "risk(X)") == '[{"X":"high"}]'  # one clause, two supports
    assert status(box, "risk(high)")["justifications"] == ["audit", "pentest"]
    assert ok(box, "retract_assumption", assumption="audit").endswith(": 0 fact(s) removed")
    assert status(box, "risk(high)")["justifications"] == ["pentest"]
    assert ok(box, "retract_assumption", assumption="pentest").endswith(": 1 fact(s) removed")
    assert answers(box, "risk(X)") == "[]"
    assert ok(box, "list_assumptions") == '{"assumptions":[]}'


def test_assuming_again_adds_nothing(box: Toolbox, project: Path) -> None:
    ok(box, "assume_fact", fact="p(1)", assumption="h")
    before = journal_bytes(project)
    ok(box, "assume_fact", fact="p(1).", assumption="h")
    assert journal_bytes(project) == before
    assert answers(box, "p(X)") == '[{"X":1}]'


def test_remembering_an_assumed_fact_adds_plain_support_and_no_copy(box: Toolbox) -> None:
    ok(box, "assume_fact", fact="q(a)", assumption="h")
    ok(box, "remember_fact", fact="q(a)")
    assert answers(box, "q(X)") == '[{"X":"a"}]'
    ok(box, "retract_assumption", assumption="h")
    assert answers(box, "q(X)") == '[{"X":"a"}]'
    ok(box, "remember_fact", fact="q(a)")  # stored plainly twice: two clauses, as assertz
    assert answers(box, "q(X)") == '[{"X":"a"},{"X":"a"}]'


def test_assuming_a_plainly_stored_fact_keeps_one_copy(box: Toolbox) -> None:
    ok(box, "remember_fact", fact="r(b)")
    ok(box, "assume_fact", fact="r(b)", assumption="h")
    assert answers(box, "r(X)") == '[{"X":"b"}]'
    assert ok(box, "retract_assumption", assumption="h").endswith(": 0 fact(s) removed")
    assert answers(box, "r(X)") == '[{"X":"b"}]'


def test_forgetting_an_assumed_fact_removes_its_bookkeeping(box: Toolbox) -> None:
    ok(box, "assume_fact", fact="s(1)", assumption="only")
    ok(box, "forget_fact", fact="s(1)")
    assert ok(box, "list_assumptions") == '{"assumptions":[]}'
    assert ok(box, "get_justification", assumption="only") == '{"facts":[]}'
    assert error(box, "retract_assumption", assumption="only") == "Unknown assumption 'only'"
    ok(box, "assume_fact", fact="t(1)", assumption="x")
    ok(box, "assume_fact", fact="t(2)", assumption="x")
    ok(box, "clear_context", category="t(_)")
    assert ok(box, "get_justification", assumption="x") == '{"facts":[]}'
    ok(box, "assume_fact", fact="v(k, 1)", assumption="y")
    ok(box, "upsert_fact", fact="v(k, 2)")
    assert answers(box, "v(k, X)") == '[{"X":2}]'
    assert ok(box, "list_assumptions") == '{"assumptions":[]}'


def test_updating_an_assumed_fact_to_itself_keeps_it(box: Toolbox) -> None:
    ok(box, "assume_fact", fact="w(1)", assumption="h")
    ok(box, "update_fact", old_fact="w(1)", new_fact="w(1)")
    assert answers(box, "w(X)") == '[{"X":1}]'
    assert ok(box, "list_assumptions") == '{"assumptions":[]}'


def test_retract_assumptions_by_glob(box: Toolbox) -> None:
    for name in ("infra_a", "infra_b", "infrax", "other", "infra_long_name"):
        ok(box, "assume_fact", fact=f"n({name})", assumption=name)
    ok(box, "remember_fact", fact="n(infra_b)")  # now held plainly too, in its place
    assert ok(box, "retract_assumptions", pattern="infra_?") == (
        "Retracted pattern 'infra_?': 2 assumption(s) removed"
    )
    assert answers(box, "n(X)") == (
        '[{"X":"infra_b"},{"X":"infrax"},{"X":"other"},{"X":"infra_long_name"}]'
    )
    assert ok(box, "retract_assumptions", pattern="*") == (
        "Retracted pattern '*': 3 assumption(s) removed"
    )
    assert ok(box, "retract_assumptions", pattern="none_*") == (
        "Retracted pattern 'none_*': 0 assumption(s) removed"
    )
    assert answers(box, "n(X)") == '[{"X":"infra_b"}]'


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("assume_fact", {"fact": "p(1)", "assumption": "Bad"}),
        ("assume_fact", {"fact": "p(1)", "assumption": "a-b"}),
        ("assume_fact", {"fact": "p(1)", "assumption": "'q'"}),
        ("assume_fact", {"fact": "p(1)", "assumption": ""}),
        ("assume_fact", {"fact": "X", "assumption": "h"}),
        ("assume_fact", {"fact": "p(1) :- true", "assumption": "h"}),
        ("get_justification", {"assumption": "_x"}),
        ("retract_assumption", {"assumption": "a b"}),
        ("retract_assumptions", {"pattern": "A*"}),
        ("retract_assumptions", {"pattern": "?*?["}),
        ("retract_assumptions", {"pattern": "a.b"}),
        ("retract_assumptions", {"pattern": ""}),
        ("get_belief_status", {"fact": "42"}),
    ],
)
def test_hostile_arguments_change_nothing(
    box: Toolbox, project: Path, tool: str, arguments: dict[str, Any]
) -> None:
    ok(box, "assume_fact", fact="keep(me)", assumption="h")
    before = journal_bytes(project)
    result = box.call(tool, arguments)
    assert result.is_error, result.text
    assert journal_bytes(project) == before
    assert answers(box, "keep(X)") == '[{"X":"me"}]'


def test_questions_with_variables(box: Toolbox) -> None:
    ok(box, "assume_fact", fact="edge(a, b)", assumption="g1")
    ok(box, "assume_fact", fact="edge(a, c)", assumption="g2")
    assert status(box, "edge(a, X)") == {
        "status": "in",
        "justifications": ["g1", "g2"],
        "source": "interactive",
    }
    ok(box, "assume_fact", fact="open(X, Y)", assumption="g3")
    assert ok(box, "get_justification", assumption="g3") == '{"facts":["open(X, Y)"]}'
    ok(box, "assume_fact", fact="open(A, B)", assumption="g4")  # a variant: no copy
    assert answers(box, "findall(x, open(_, _), L)") == '[{"L":["x"]}]'


def test_sources(open_box: Open, project: Path) -> None:
    (project / ".zpm" / "kb" / "facts.pl").write_text(":- dynamic(k/1).\nk(file).\n")
    box = open_box()
    ok(box, "assume_fact", fact="k(tool)", assumption="h")
    ok(box, "remember_fact", fact="saved(yes)")
    assert status(box, "k(file)")["source"] == "file"
    assert status(box, "k(tool)")["source"] == "interactive"
    box.close()
    box = open_box()
    assert status(box, "k(tool)") == {"status": "in", "justifications": ["h"], "source": "journal"}
    ok(box, "save_snapshot", name="s")
    ok(box, "remember_fact", fact="later(yes)")
    box.close()
    box = open_box()
    assert status(box, "k(tool)") == {"status": "in", "justifications": ["h"], "source": "snapshot"}
    assert status(box, "saved(yes)")["source"] == "snapshot"
    assert status(box, "later(yes)")["source"] == "journal"


def test_assumptions_survive_restarts_snapshots_and_restores(open_box: Open) -> None:
    box = open_box()
    ok(box, "assume_fact", fact="f(1)", assumption="b")
    ok(box, "assume_fact", fact="f(2)", assumption="a")
    ok(box, "assume_fact", fact="f(1)", assumption="a")
    ok(box, "remember_fact", fact="f(3)")
    ok(box, "assume_fact", fact="f(3)", assumption="c")
    expected = {
        "list_assumptions": '{"assumptions":["b","a","c"]}',
        "get_justification": '{"facts":["f(1)","f(2)"]}',
        "status": ["b", "a"],
    }

    def check(box: Toolbox) -> None:
        assert ok(box, "list_assumptions") == expected["list_assumptions"]
        assert ok(box, "get_justification", assumption="a") == expected["get_justification"]
        assert status(box, "f(1)")["justifications"] == expected["status"]

    check(box)
    ok(box, "save_snapshot", name="tms")
    box.close()
    box = open_box()
    check(box)
    ok(box, "retract_assumptions", pattern="*")
    assert answers(box, "f(X)") == '[{"X":3}]'
    ok(box, "restore_snapshot", name="tms")
    check(box)
    assert ok(box, "retract_assumption", assumption="c").endswith(": 0 fact(s) removed")
    assert answers(box, "f(X)") == '[{"X":1},{"X":2},{"X":3}]'
    box.close()
    box = open_box()
    assert ok(box, "list_assumptions") == '{"assumptions":["b","a"]}'


def test_a_read_only_memory_refuses_assumptions(box: Toolbox) -> None:
    ok(box, "create_memory", name="archive")
    ok(box, "mount_memory", name="archive", mode="ro")
    assert error(box, "assume_fact", fact="p(1)", assumption="h", memory="archive") == (
        "Memory is read-only: archive"
    )
    assert error(box, "retract_assumptions", pattern="*", memory="archive") == (
        "Memory is read-only: archive"
    )
    assert ok(box, "list_assumptions", memory="archive") == '{"assumptions":[]}'


def test_memories_keep_their_own_assumptions(box: Toolbox) -> None:
    ok(box, "create_memory", name="side")
    ok(box, "mount_memory", name="side")
    ok(box, "assume_fact", fact="p(1)", assumption="h", memory="side")
    assert ok(box, "list_assumptions") == '{"assumptions":[]}'
    assert ok(box, "list_assumptions", memory="side") == '{"assumptions":["h"]}'
    assert error(box, "retract_assumption", assumption="h") == "Unknown assumption 'h'"


def test_bookkeeping_is_not_a_predicate(box: Toolbox) -> None:
    ok(box, "assume_fact", fact="p(1)", assumption="h")
    assert ok(box, "get_knowledge_schema") == (
        '{"predicates":[{"name":"p","arity":1,"type":"fact","count":1}],"total":1}'
    )
    assert answers(box, "current_predicate(N/A)") == '[{"N":"p","A":1}]'


def test_a_second_process_sees_assumptions(open_box: Open) -> None:
    first, second = open_box(), open_box()
    ok(first, "assume_fact", fact="seen(x)", assumption="h")
    assert ok(second, "list_assumptions") == '{"assumptions":["h"]}'
    # stored by a tool of a running server: the same source in every process
    assert status(second, "seen(x)")["source"] == "interactive"
    assert status(open_box(), "seen(x)")["source"] == "journal"  # read back at start
    ok(second, "retract_assumption", assumption="h")
    assert ok(first, "list_assumptions") == '{"assumptions":[]}'
    assert answers(first, "seen(X)") == "[]"


def test_a_damaged_assumptions_section_is_refused_before_anything_changes(
    box: Toolbox, project: Path
) -> None:
    ok(box, "assume_fact", fact="p(1)", assumption="h")
    ok(box, "save_snapshot", name="s")
    path = project / ".zpm" / "kb" / "default" / "snapshots" / "s.pl"
    text = path.read_text()
    path.write_text(text.replace('{"assumption": "h"}', '{"assumption": 3}'))
    ok(box, "remember_fact", fact="after(1)")
    message = error(box, "restore_snapshot", name="s")
    assert "section assumptions" in message and "s.pl:" in message
    assert answers(box, "after(X)") == '[{"X":1}]'
