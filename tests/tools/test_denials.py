"""find_predicate_references and rename_predicate know denials: the ``G`` of
``neg(G)`` is a use of ``G``'s predicate, in a clause's head or in a body.

Each test runs on every selected engine (``--zpm-engine``, default: every
engine available): the python engine in this process, the SWI engines
through ``zpm serve`` (their bindings never share a process).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import pytest

from zpm_app.worker.toolbox import Toolbox
from zpm_contract.plugin import StartServer
from zpm_contract.targets import EngineTarget


class Answer(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...


class Caller(Protocol):
    """A toolbox in this process, or a running ``zpm serve``."""

    def call(self, tool: str, arguments: dict[str, Any]) -> Answer: ...

    def close(self) -> object: ...


class Session:
    """Tool calls on one project through one engine; ``restart`` stops the
    server (or closes the toolbox) and serves the same project again."""

    def __init__(self, start: Callable[[], Caller]) -> None:
        self._start = start
        self._current = start()

    def call(self, tool: str, **arguments: Any) -> Answer:
        return self._current.call(tool, arguments)

    def restart(self) -> None:
        self._current.close()
        self._current = self._start()


@pytest.fixture
def kb(
    engine_target: EngineTarget,
    project: Path,
    open_box: Callable[..., Toolbox],
    start_server: StartServer,
) -> Session:
    """A session on ``project`` through the engine under test."""
    if engine_target.name == "python":
        return Session(open_box)
    return Session(lambda: start_server(project=project))


def ok(kb: Session, tool: str, **arguments: Any) -> str:
    answer = kb.call(tool, **arguments)
    assert not answer.is_error, (tool, arguments, answer.text)
    return answer.text


def data(kb: Session, tool: str, **arguments: Any) -> Any:
    return json.loads(ok(kb, tool, **arguments))


def denials(kb: Session) -> list[tuple[str, int]]:
    """The stored denial facts, in order, with their handles."""
    rows = data(kb, "matching", pattern="neg(X)")["rows"]
    return [(row["sentence"], row["handle"]) for row in rows]


def rule_handle(kb: Session, goal: str) -> int:
    """The handle of the clause that proves ``goal`` first."""
    answers = data(kb, "query", goal=goal, include_justification=True)["answers"]
    handle: int = answers[0]["justification"]["handle"]
    return handle


def files(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def report(facts: int, rules: list[str], rewritten: list[Any] | None = None) -> dict[str, Any]:
    return {
        "renamed_facts": facts,
        "rewritten_rule_bodies": len(rules),
        "affected_rule_ids": rules,
        "cross_memory_impact": {
            "rewritten": rewritten or [],
            "warnings": [],
            "skipped_readonly": [],
        },
        "is_error": False,
    }


FLIES = {"old_functor": "flies", "new_functor": "soars", "arity": 1}


@pytest.fixture
def birds(kb: Session) -> Session:
    """Denial facts and rules of ``flies/1`` among other clauses; ``neg(flies(opus))``
    held by assumption ``a1`` only."""
    ok(kb, "remember_fact", fact="neg(flies(tweety))")
    ok(kb, "remember_fact", fact="flies(sparrow)")
    ok(kb, "remember_fact", fact="neg(swims(tweety))")
    ok(kb, "define_rule", head="neg(flies(X))", body="penguin(X)")
    ok(kb, "assume_fact", fact="neg(flies(opus))", assumption="a1")
    ok(kb, "remember_fact", fact="neg(flies(kiwi, night))")
    ok(kb, "remember_fact", fact="penguin(pingu)")
    ok(kb, "define_rule", head="grounded(X)", body="neg(flies(X))")
    return kb


def test_denials_are_uses_of_the_denied_predicate(birds: Session) -> None:
    ok(birds, "define_rule", head="odd(X)", body="neg(Y), X = flies(Y)")
    ok(birds, "define_rule", head="careful(X)", body="\\+ neg(flies(X)), bird(X)")
    assert data(birds, "find_predicate_references", functor="flies", arity=1) == {
        "target": "flies/1",
        "memory": "default",
        "rules": [
            {"head": "neg(flies(X))", "body": "penguin(X)", "memory": "default"},
            {"head": "grounded(X)", "body": "neg(flies(X))", "memory": "default"},
            {"head": "careful(X)", "body": "\\+ neg(flies(X)), bird(X)", "memory": "default"},
        ],
        "direct_facts_count": 3,
        "facts_referenced_in_assumptions": [
            {"assumption": "a1", "fact": "neg(flies(opus))", "memory": "default"}
        ],
        "cross_memory_refs": [],
    }
    any_arity = data(birds, "find_predicate_references", functor="flies")
    assert any_arity["direct_facts_count"] == 4
    swims = data(birds, "find_predicate_references", functor="swims", arity=1)
    assert (swims["direct_facts_count"], swims["rules"]) == (1, [])


def test_a_qualified_denial_call_is_a_cross_memory_use(kb: Session) -> None:
    ok(kb, "create_memory", name="zoo")
    ok(kb, "mount_memory", name="zoo")
    ok(kb, "remember_fact", fact="neg(flies(tweety))", memory="zoo")
    ok(kb, "define_rule", head="grounded(X)", body="zoo:neg(flies(X))")
    ok(kb, "remember_fact", fact="neg(flies(polly))")
    found = data(kb, "find_predicate_references", functor="flies", arity=1, memory="__all__")
    assert found["cross_memory_refs"] == [
        {
            "head": "grounded(X)",
            "body": "zoo:neg(flies(X))",
            "memory": "default",
            "qualifier": "zoo",
        }
    ]
    assert (found["rules"], found["direct_facts_count"]) == ([], 2)
    arguments = {**FLIES, "memory": "zoo", "propagate_cross_memory_refs": True}
    assert data(kb, "rename_predicate", **arguments) == report(
        1, [], rewritten=[{"memory": "default", "rules_updated": 1}]
    )
    assert ok(kb, "query_logic", goal="grounded(X)") == '[{"X":"tweety"}]'
    assert ok(kb, "query_logic", goal="neg(soars(X))", memory="zoo") == '[{"X":"tweety"}]'
    assert [sentence for sentence, _ in denials(kb)] == ["neg(flies(polly))"]


def test_rename_renames_denials_in_place_with_their_handles(birds: Session) -> None:
    facts = denials(birds)
    rule = rule_handle(birds, "neg(flies(pingu))")
    answer = data(birds, "rename_predicate", **FLIES)
    assert answer == report(3, ["neg(soars(X))", "grounded(X)"])
    assert denials(birds) == [
        ("neg(soars(tweety))", facts[0][1]),
        ("neg(swims(tweety))", facts[1][1]),
        ("neg(soars(opus))", facts[2][1]),
        ("neg(flies(kiwi, night))", facts[3][1]),
    ]
    assert rule_handle(birds, "neg(soars(pingu))") == rule
    listing = data(birds, "get_kb_overview", sample_size=5)["predicates"]
    assert [p["samples"] for p in listing if p["functor"] == "neg"] == [
        [
            "neg(soars(tweety))",
            "neg(swims(tweety))",
            "neg(soars(X)) :- penguin(X)",
            "neg(soars(opus))",
            "neg(flies(kiwi, night))",
        ]
    ]
    assert ok(birds, "query_logic", goal="grounded(X)") == (
        '[{"X":"tweety"},{"X":"pingu"},{"X":"opus"}]'
    )
    assert ok(birds, "query_logic", goal="neg(flies(X))") == "[]"


def test_supports_of_a_renamed_denial_follow_it(birds: Session) -> None:
    ok(birds, "rename_predicate", **FLIES)
    assert data(birds, "get_belief_status", fact="neg(soars(opus))") == {
        "status": "in",
        "justifications": ["a1"],
        "source": "interactive",
    }
    assert data(birds, "get_justification", assumption="a1") == {"facts": ["neg(soars(opus))"]}
    assert ok(birds, "retract_assumption", assumption="a1").endswith(": 1 fact(s) removed")
    assert [sentence for sentence, _ in denials(birds)] == [
        "neg(soars(tweety))",
        "neg(swims(tweety))",
        "neg(flies(kiwi, night))",
    ]
    assert data(birds, "get_belief_status", fact="neg(soars(opus))")["status"] == "out"


def test_supports_merge_when_the_renamed_denial_is_already_assumed(kb: Session) -> None:
    ok(kb, "assume_fact", fact="neg(soars(opus))", assumption="b1")
    ok(kb, "assume_fact", fact="neg(flies(opus))", assumption="a1")
    ok(kb, "assume_fact", fact="neg(flies(opus))", assumption="b1")
    ok(kb, "rename_predicate", **FLIES)
    status = data(kb, "get_belief_status", fact="neg(soars(opus))")
    assert status["justifications"] == ["b1", "a1"]
    assert data(kb, "get_justification", assumption="a1") == {"facts": ["neg(soars(opus))"]}
    assert ok(kb, "retract_assumption", assumption="b1").endswith(": 0 fact(s) removed")
    assert data(kb, "get_belief_status", fact="neg(soars(opus))")["justifications"] == ["a1"]


def test_a_dry_run_reports_exactly_what_the_rename_does(birds: Session, project: Path) -> None:
    before, stored = files(project / ".zpm"), denials(birds)
    preview = ok(birds, "rename_predicate", dry_run=True, **FLIES)
    assert files(project / ".zpm") == before
    assert denials(birds) == stored
    assert ok(birds, "rename_predicate", **FLIES) == preview
    assert json.loads(preview) == report(3, ["neg(soars(X))", "grounded(X)"])


def test_renamed_denials_survive_restarts_and_snapshots(birds: Session) -> None:
    ok(birds, "rename_predicate", **FLIES)
    renamed = denials(birds)
    birds.restart()
    assert denials(birds) == renamed
    assert data(birds, "get_belief_status", fact="neg(soars(opus))") == {
        "status": "in",
        "justifications": ["a1"],
        "source": "journal",
    }
    assert ok(birds, "query_logic", goal="grounded(X)") == (
        '[{"X":"tweety"},{"X":"pingu"},{"X":"opus"}]'
    )
    ok(birds, "save_snapshot", name="after")
    birds.restart()
    assert data(birds, "get_justification", assumption="a1") == {"facts": ["neg(soars(opus))"]}
    assert ok(birds, "retract_assumption", assumption="a1").endswith(": 1 fact(s) removed")
    assert [sentence for sentence, _ in denials(birds)] == [
        "neg(soars(tweety))",
        "neg(swims(tweety))",
        "neg(flies(kiwi, night))",
    ]


def test_knowledge_file_denials_do_not_change(kb: Session, project: Path) -> None:
    (project / ".zpm" / "kb" / "facts.pl").write_text("neg(flies(opus)).\n")
    kb.restart()
    ok(kb, "remember_fact", fact="flies(sparrow)")
    ok(kb, "remember_fact", fact="neg(flies(tweety))")
    found = data(kb, "find_predicate_references", functor="flies", arity=1)
    assert found["direct_facts_count"] == 3
    assert data(kb, "rename_predicate", **FLIES) == report(2, [])
    assert ok(kb, "query_logic", goal="neg(flies(X))") == '[{"X":"opus"}]'
    assert ok(kb, "query_logic", goal="neg(soars(X))") == '[{"X":"tweety"}]'
    kb.restart()
    assert ok(kb, "query_logic", goal="neg(flies(X))") == '[{"X":"opus"}]'
    assert ok(kb, "query_logic", goal="neg(soars(X))") == '[{"X":"tweety"}]'
