"""The review page's reads of predicates and clauses (``zpm_domain.review``)
through a real toolbox, on every engine: pages in clause order by a handle
cursor, each clause's state and provenance, what the caller may see."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from zpm_app.bootstrap.config import init_project, resolve_settings
from zpm_app.bootstrap.startup import open_toolbox
from zpm_app.worker.toolbox import Toolbox
from zpm_domain.errors import InvalidArguments, MemoryNotMounted, ZpmError
from zpm_domain.memory.access import Access
from zpm_domain.memory.call_context import CallContext
from zpm_domain.review import graphs
from zpm_domain.review.clauses import ClausePage, clause_page, predicate_rows
from zpm_domain.review.graphs import dependency_graph, relation_graph
from zpm_domain.review.history import history
from zpm_domain.review.queries import query_answers

ENGINES = ["python", "janus"]
"""pyswip cannot share a process with janus (one libswipl); the contract suite
compares the two through the tools that read clauses (``matching``, ``query``)."""


@pytest.fixture(params=ENGINES)
def box(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Toolbox]:
    init_project(tmp_path)
    (tmp_path / ".zpm" / "kb" / "colours.pl").write_text(
        ":- dynamic(colour/1).\ncolour(red).\ncolour(green).\n", encoding="utf-8"
    )
    toolbox = open_toolbox(
        resolve_settings(project=str(tmp_path), env={"ZPM_ENGINE": request.param})
    )
    yield toolbox
    toolbox.close()


def call(box: Toolbox, tool: str, **arguments: Any) -> Any:
    result = box.call(tool, arguments)
    assert not result.is_error, result.text
    return result


def page(box: Toolbox, name: str, arity: int, after: int | None = None) -> ClausePage:
    return box.review(lambda context: clause_page(context, "default", name, arity, after))


def test_pages_follow_the_clause_order_by_a_handle_cursor(box: Toolbox) -> None:
    for i in range(250):
        call(box, "remember_fact", fact=f"p({i})")
    call(box, "remember_fact", fact="p(first)")  # clause order is not handle order
    box.call("assert", {"sentence": "p(front)"})
    seen: list[str] = []
    after = None
    sizes = []
    while True:
        shown = page(box, "p", 1, after)
        sizes.append(len(shown.rows))
        seen += [row.text for row in shown.rows]
        if shown.next_after is None:
            break
        assert shown.next_after == shown.rows[-1].handle
        after = shown.next_after
    assert sizes == [100, 100, 52]
    expected = [f"p({i})" for i in range(250)] + ["p(first)", "p(front)"]
    assert seen == expected
    assert all(row.state == "believed" and row.provenance.tool for row in page(box, "p", 1).rows)


def test_each_clause_says_its_state_and_what_holds_it(box: Toolbox) -> None:
    call(box, "remember_fact", fact="colour(blue)")
    call(box, "assume_fact", fact="colour(grey)", assumption="guess")
    call(box, "remember_fact", fact="colour(pink)")
    call(box, "unassert", sentence="colour(pink)")
    shown = page(box, "colour", 1)
    assert [(r.text, r.state, r.where) for r in shown.files] == [
        ("colour(red)", "file", "kb/colours.pl:2"),
        ("colour(green)", "file", "kb/colours.pl:3"),
    ]
    assert [(r.text, r.assumptions) for r in shown.rows] == [
        ("colour(blue)", ()),
        ("colour(grey)", ("guess",)),
    ]
    assert [(r.text, r.state) for r in shown.withdrawn] == [("colour(pink)", "withdrawn")]
    assert shown.withdrawn[0].taken_by is not None
    assert shown.withdrawn[0].taken_by.tool == "unassert"
    assert shown.removed == []
    box.call("forget_fact", {"fact": "colour(blue)"}, CallContext(client="alice"))
    box.call("clear_context", {"category": "colour(_)"}, CallContext(client="bob"))
    gone = page(box, "colour", 1).removed
    assert [(r.text, r.state) for r in gone] == [
        ("colour(grey)", "removed"),  # newest first; the pattern's clause by its text
        ("colour(blue)", "removed"),
    ]
    assert all(r.handle is not None for r in gone)
    assert [(r.taken_by.tool, r.taken_by.client) for r in gone if r.taken_by] == [
        ("clear_context", "bob"),
        ("forget_fact", "alice"),
    ]
    call(box, "remember_fact", fact="colour(blue)")
    listed = box.review(lambda context: predicate_rows(context, "default"))
    rows = {(r.name, r.arity): r for r in listed}
    assert rows[("colour", 1)].clauses == 3 and rows[("colour", 1)].from_files == 2


def test_a_cursor_whose_clause_went_asks_to_start_again(box: Toolbox) -> None:
    for i in range(3):
        call(box, "remember_fact", fact=f"q({i})")
    gone = page(box, "q", 1).rows[1].handle
    call(box, "forget_fact", fact="q(1)")
    with pytest.raises(InvalidArguments) as raised:
        page(box, "q", 1, gone)
    assert "start again" in (raised.value.hint or "")


def test_a_memory_the_caller_does_not_see_is_not_there(box: Toolbox) -> None:
    call(box, "create_memory", name="secret")
    call(box, "mount_memory", name="secret")
    with pytest.raises(MemoryNotMounted):
        box.review(
            lambda context: predicate_rows(context, "secret"),
            CallContext(access=Access(memories=frozenset({"default"}))),
        )
    with pytest.raises(MemoryNotMounted):
        box.review(
            lambda context: clause_page(context, "secret", "p", 1),
            CallContext(access=Access(memories=frozenset({"default"}))),
        )


def test_a_query_answers_as_query_logic_with_each_answer_s_proved_goal(box: Toolbox) -> None:
    call(box, "remember_fact", fact="likes(ann, tea)")
    call(box, "remember_fact", fact="likes(bob, [a, 'B c'])")
    call(box, "define_rule", head="happy(X)", body="likes(X, _)")
    answers = box.review(lambda context: query_answers(context, "default", "likes(Who, What)"))
    assert answers.columns == ["Who", "What"]
    assert answers.rows == [["ann", "tea"], ["bob", "[a, 'B c']"]]
    assert answers.proved == ["likes(ann, tea)", "likes(bob, [a, 'B c'])"]
    assert not answers.truncated
    free = box.review(lambda context: query_answers(context, "default", "happy(P), Q = P"))
    assert free.columns == ["P", "Q"] and free.proved[0] == "happy(ann), ann = ann"
    with pytest.raises(ZpmError, match="Not allowed in a query"):
        box.review(lambda context: query_answers(context, "default", "shell(ls)"))
    with pytest.raises(ZpmError, match="Invalid Prolog syntax"):
        box.review(lambda context: query_answers(context, "default", "likes("))


def test_the_pictures_data_rules_to_predicates_and_a_relation_around_a_node(
    box: Toolbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    for fact in ("dep(a, b)", "dep(b, c)", "dep(c, a)", "dep(c, d)", "dep(d, e)"):
        call(box, "remember_fact", fact=fact)
    call(box, "define_rule", head="reach(X, Y)", body="dep(X, Y)")
    call(box, "define_rule", head="reach(X, Z)", body="dep(X, Y), reach(Y, Z)")
    call(box, "define_rule", head="ok(X)", body="reach(X, _), \\+ other:dep(X, X), X \\== z")
    uses = box.review(lambda context: dependency_graph(context, "default"))
    assert uses.nodes == ["reach/2", "dep/2", "ok/1"] and not uses.cut
    assert uses.edges == [("reach/2", "dep/2"), ("reach/2", "reach/2"), ("ok/1", "reach/2")]
    near = box.review(lambda context: relation_graph(context, "default", "dep", "a", 2))
    assert near.nodes == ["a", "b", "c"] and near.edges == [("a", "b"), ("b", "c")]
    far = box.review(lambda context: relation_graph(context, "default", "dep", "a", 4))
    assert far.nodes == ["a", "b", "c", "d", "e"] and ("c", "a") in far.edges
    derived = box.review(lambda context: relation_graph(context, "default", "reach", "d", 1))
    assert derived.edges == [("d", "e")]
    monkeypatch.setattr(graphs, "MOST_NODES", 3)
    cut = box.review(lambda context: relation_graph(context, "default", "dep", "a", 4))
    assert cut.cut and len(cut.nodes) == 3
    for name, start in (("shell", "a"), ("dep", "X"), ("dep", "a(")):
        with pytest.raises(ZpmError):
            box.review(lambda context, n=name, s=start: relation_graph(context, "default", n, s, 2))


def test_the_history_of_a_predicate_follows_it_through_a_rename(box: Toolbox) -> None:
    call(box, "remember_fact", fact="likes(ann, tea)")
    call(box, "remember_fact", fact="likes(bob, tea)")
    call(box, "unassert", sentence="likes(bob, tea)")
    call(box, "save_snapshot", name="s1")
    box.call(
        "update_fact",
        {"old_fact": "likes(ann, tea)", "new_fact": "likes(ann, milk)"},
        CallContext(client="alice"),
    )
    call(box, "describe_predicate", predicate="likes/2", description="who likes what")
    box.call(
        "rename_predicate",
        {"old_functor": "likes", "new_functor": "enjoys", "arity": 2},
        CallContext(client="carol"),
    )
    call(box, "remember_fact", fact="other(1)")
    past = box.review(lambda context: history(context, "default", ("enjoys", 2)))
    assert past.since is None  # every change is kept, from before the save too
    assert [(e.what, e.text) for e in past.events] == [
        ("stored", "likes(ann, tea)"),
        ("stored", "likes(bob, tea)"),
        ("withdrawn", "likes(bob, tea)"),
        ("removed", "likes(ann, tea)"),
        ("stored", "likes(ann, milk)"),
        ("described", "likes/2: who likes what"),
        ("renamed", "likes/2 → enjoys/2"),
    ]
    assert past.events[2].tool == "unassert" and past.events[4].tool == "update_fact"
    # who removed it, and who renamed it: the batch's author (the clause carries none)
    assert (past.events[3].tool, past.events[3].client) == ("update_fact", "alice")
    assert (past.events[6].tool, past.events[6].client) == ("rename_predicate", "carol")
    stored = past.events[4].handle
    assert stored is not None
    one = box.review(lambda context: history(context, "default", handle=stored))
    assert [(e.what, e.text) for e in one.events] == [("stored", "likes(ann, milk)")]
    gone = past.events[0].handle
    assert gone is not None
    removed = box.review(lambda context: history(context, "default", handle=gone))
    assert [(e.what, e.client) for e in removed.events] == [
        ("stored", None),
        ("removed", "alice"),
    ]


def test_a_merge_shows_as_merged_in_when_and_by_whom_it_was_made(box: Toolbox) -> None:
    call(box, "remember_fact", fact="likes(ann, tea)")
    call(box, "fork_memory", name="f")
    box.call(
        "remember_fact", {"fact": "likes(bob, tea)", "memory": "f"}, CallContext(client="alice")
    )
    box.call("forget_fact", {"fact": "likes(ann, tea)", "memory": "f"}, CallContext(client="alice"))
    box.call("merge_memory", {"name": "f"}, CallContext(client="bob"))
    past = box.review(lambda context: history(context, "default", ("likes", 2)))
    assert [(e.what, e.text, e.tool, e.client) for e in past.events[1:]] == [
        ("merged in: removed", "likes(ann, tea)", "merge_memory", "bob"),  # in the merge's order
        ("merged in: stored", "likes(bob, tea)", "merge_memory", "bob"),
    ]
    assert past.events[0].when <= past.events[-1].when
    fork = box.review(lambda context: history(context, "f", ("likes", 2)))
    assert ("stored", "likes(bob, tea)", "remember_fact", "alice") in [
        (e.what, e.text, e.tool, e.client) for e in fork.events
    ]
