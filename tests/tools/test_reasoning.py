"""trace_dependency, verify_consistency and explain_why through the toolbox (python engine).

The same answers on the SWI engines are the contract suite's business
(``zpm_contract/scenarios/reasoning.py`` REASONING_EXAMPLES, lockstep); here the
behaviour itself: reachability on cyclic graphs for several definitions of
``path/2``, proofs that agree with ``query_logic``, limits, refusals.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_adapters.volatile.volatile_storage import VolatileDisk, VolatileRegistry
from zpm_app.worker.toolbox import Toolbox, ToolResult
from zpm_domain.errors import EngineUnsupported
from zpm_domain.limits import Limits
from zpm_domain.memory.mounts import Memories
from zpm_domain.memory.opening import memory_opener
from zpm_domain.ports.engine import Engine
from zpm_domain.tools.definition import ToolContext
from zpm_domain.tools.reasoning import ReasoningTools

Call = Callable[..., ToolResult]
INVALID = ToolResult("InvalidArguments", True)

RIGHT = [("path(X, Y)", "edge(X, Y)"), ("path(X, Y)", "edge(X, Z), path(Z, Y)")]
LEFT = [("path(X, Y)", "path(X, Z), edge(Z, Y)"), ("path(X, Y)", "edge(X, Y)")]
DOUBLE = [("path(X, Y)", "edge(X, Y)"), ("path(X, Y)", "path(X, Z), path(Z, Y)")]
THROUGH_STEP = [
    ("step(X, Y)", "edge(X, Y)"),
    ("path(X, Y)", "step(X, Y)"),
    ("path(X, Y)", "step(X, Z), path(Z, Y)"),
]
REACH = [
    ("reach(X, Y)", "edge(X, Y)"),
    ("reach(X, Y)", "edge(X, Z), reach(Z, Y)"),
    ("path(X, Y)", "reach(X, Y)"),
]
DEFINITIONS = {"right": RIGHT, "left": LEFT, "double": DOUBLE, "step": THROUGH_STEP, "reach": REACH}


def ok(result: ToolResult) -> Any:
    assert not result.is_error, result
    return json.loads(result.text)


def reachable(edges: list[tuple[int, int]], start: int) -> set[int]:
    seen: set[int] = set()
    todo = [b for a, b in edges if a == start]
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(b for a, b in edges if a == node)
    return seen


def load(call: Call, edges: list[tuple[int, int]], rules: list[tuple[str, str]]) -> None:
    for category in ("edge(_, _)", "path(_, _)", "step(_, _)", "reach(_, _)"):
        call("clear_context", category=category)
    for a, b in edges:
        assert not call("remember_fact", fact=f"edge(n{a}, n{b})").is_error
    for head, body in rules:
        assert not call("define_rule", head=head, body=body).is_error


# -- trace_dependency ---------------------------------------------------------------


def test_trace_follows_path_from_its_first_argument(call: Call) -> None:
    load(call, [(1, 2), (2, 3)], RIGHT)
    assert ok(call("trace_dependency", start_node="n1")) == ["n2", "n3"]
    assert ok(call("trace_dependency", start_node="n3")) == []


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_trace_ends_on_a_cycle_with_every_reachable_node_once(call: Call, name: str) -> None:
    edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 3)]
    load(call, edges, DEFINITIONS[name])
    nodes = ok(call("trace_dependency", start_node="n0"))
    assert sorted(nodes) == ["n0", "n1", "n2", "n3"]


graphs = st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=18)


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edges=graphs, name=st.sampled_from(sorted(DEFINITIONS)), start=st.integers(0, 7))
def test_trace_finds_exactly_the_reachable_nodes_of_random_cyclic_graphs(
    call: Call, edges: list[tuple[int, int]], name: str, start: int
) -> None:
    load(call, edges, DEFINITIONS[name])
    nodes = ok(call("trace_dependency", start_node=f"n{start}"))
    assert len(nodes) == len(set(nodes))
    assert set(nodes) == {f"n{n}" for n in reachable(edges, start)}


def test_trace_values_are_encoded_as_query_logic_encodes_bindings(call: Call) -> None:
    facts = ["link(a, 1)", "link(a, 2.5)", 'link(a, "s")', "link(a, f(x, Y))", "link(a, [b, c])"]
    for fact in facts:
        call("remember_fact", fact=fact)
    call("define_rule", head="path(X, Y)", body="link(X, Y)")
    assert ok(call("trace_dependency", start_node="a")) == [1, 2.5, "s", "f(x, _G1)", ["b", "c"]]


def test_trace_without_path_rules_is_empty(call: Call) -> None:
    assert ok(call("trace_dependency", start_node="a")) == []


def test_trace_of_a_compound_start_node(call: Call) -> None:
    call("remember_fact", fact="edge(task(1), task(2))")
    call("define_rule", head="path(X, Y)", body="edge(X, Y)")
    assert ok(call("trace_dependency", start_node="task(1)")) == ["task(2)"]


@pytest.mark.parametrize("start", ["X", "f(_)", "g(a, B)"])
def test_a_start_node_with_variables_is_refused(call: Call, start: str) -> None:
    assert call("trace_dependency", start_node=start) == INVALID


def test_an_injection_attempt_is_a_syntax_error_and_runs_nothing(call: Call) -> None:
    call("remember_fact", fact="kept(yes)")
    answer = call("trace_dependency", start_node="a), halt(0")
    assert answer.is_error and answer.text.startswith("Invalid Prolog syntax in start_node")
    assert ok(call("query_logic", goal="kept(X)")) == [{"X": "yes"}]


def test_trace_in_another_memory(box: Toolbox, call: Call) -> None:
    box.call("create_memory", {"name": "graph"})
    box.call("mount_memory", {"name": "graph"})
    call("remember_fact", fact="edge(a, b)", memory="graph")
    call("define_rule", head="path(X, Y)", body="edge(X, Y)", memory="graph")
    assert ok(call("trace_dependency", start_node="a")) == []
    assert ok(call("trace_dependency", start_node="a", memory="graph")) == ["b"]
    assert call("trace_dependency", start_node="a", memory="nope") == ToolResult(
        "Memory not mounted: nope", True
    )


# -- verify_consistency ---------------------------------------------------------------


def test_verify_without_scope_lists_arity_one_then_arity_two_answers(call: Call) -> None:
    assert ok(call("verify_consistency")) == {"violations": []}
    call("remember_fact", fact="deploy(v1)")
    call("remember_fact", fact="deploy(v3)")
    call("remember_fact", fact="tested(v1)")
    call("define_rule", head="integrity_violation(X)", body="deploy(X), \\+ tested(X)")
    call("define_rule", head="integrity_violation(deployment, f(X))", body="deploy(X)")
    call("define_rule", head="integrity_violation(security, X)", body="deploy(X), X == v3")
    answer = call("verify_consistency")
    assert answer == ToolResult('{"violations":["v3","f(v1)","f(v3)"]}', False)
    assert ok(call("verify_consistency", scope="deployment")) == {"violations": ["f(v1)", "f(v3)"]}
    assert ok(call("verify_consistency", scope="security")) == {"violations": ["v3"]}
    assert ok(call("verify_consistency", scope="other")) == {"violations": []}


def test_verify_lists_each_violation_once_in_the_order_first_found(call: Call) -> None:
    call("define_rule", head="integrity_violation(X)", body="member(X, [b, a, b, a])")
    answer = call("verify_consistency")
    assert answer.text == '{"violations":["b","a"]}'
    assert answer.structured == {"violations": ["b", "a"], "truncated": False}


def test_verify_says_when_the_answer_limit_cut_the_solutions(call: Call) -> None:
    """100 copies of one violation are one violation, and the limit cut them."""
    call("remember_fact", fact="depends(api, api)")
    call("define_rule", head="path(X, Y)", body="depends(X, Y)")
    call("define_rule", head="path(X, Y)", body="depends(X, Z), path(Z, Y)")
    call("define_rule", head="integrity_violation(cycle(X))", body="path(X, X)")
    answer = call("verify_consistency")
    assert answer.text == '{"violations":["cycle(api)"]}'
    assert answer.structured == {"violations": ["cycle(api)"], "truncated": True}
    call("define_rule", head="integrity_violation(s, N)", body="between(1, inf, N)")
    call("clear_context", category="depends(_, _)")
    answer = call("verify_consistency")
    assert answer.structured == {"violations": list(range(1, 101)), "truncated": True}


@pytest.mark.parametrize("scope", ["f(x)", "X", "1", '"s"', "", "a b", "a), halt(0"])
def test_a_scope_that_is_not_an_atom_is_refused(call: Call, scope: str) -> None:
    assert call("verify_consistency", scope=scope) == INVALID


def test_verify_refuses_unknown_memories(call: Call) -> None:
    answer = call("verify_consistency", memory="ghost")
    assert answer == ToolResult("Memory not mounted: ghost", True)


# -- explain_why ---------------------------------------------------------------------


def facts_and_rules(call: Call, facts: list[str], rules: list[tuple[str, str]]) -> None:
    for fact in facts:
        assert not call("remember_fact", fact=fact).is_error
    for head, body in rules:
        assert not call("define_rule", head=head, body=body).is_error


SPEC_PROOF = (
    '{"fact":"risky(deploy_v3)","proven":true,"proof_tree":{"goal":"risky(deploy_v3)",'
    '"rule_applied":"risky(X) :- untested(X), in_production(X)","children":['
    '{"goal":"untested(deploy_v3)","rule_applied":"fact","children":[]},'
    '{"goal":"in_production(deploy_v3)","rule_applied":"fact","children":[]}]}}'
)


def test_explain_the_spec_example(call: Call) -> None:
    facts_and_rules(
        call,
        ["untested(deploy_v3)", "in_production(deploy_v3)"],
        [("risky(X)", "untested(X), in_production(X)")],
    )
    assert call("explain_why", fact="risky(deploy_v3)") == ToolResult(SPEC_PROOF, False)
    assert call("explain_why", fact="risky(deploy_v4)") == ToolResult(
        '{"fact":"risky(deploy_v4)","proven":false,"proof_tree":null}', False
    )


def test_the_depth_limit_cuts_nodes_that_have_children(call: Call) -> None:
    facts_and_rules(call, ["p(1)"], [("q(X)", "p(X)"), ("r(X)", "q(X), X > 0")])
    tree = ok(call("explain_why", fact="r(X)", max_depth=1))["proof_tree"]
    assert tree["children"] == [
        {"goal": "q(1)", "rule_applied": "q(X) :- p(X)", "children": [], "truncated": True},
        {"goal": "1 > 0", "rule_applied": "builtin", "children": []},
    ]
    root = ok(call("explain_why", fact="r(X)", max_depth=0))["proof_tree"]
    assert root["children"] == [] and root["truncated"] is True
    leaf = ok(call("explain_why", fact="p(X)", max_depth=0))["proof_tree"]
    assert "truncated" not in leaf


@pytest.mark.parametrize("depth", [-1, -100])
def test_a_negative_depth_limit_is_refused(call: Call, depth: int) -> None:
    assert call("explain_why", fact="true", max_depth=depth) == INVALID


@pytest.mark.parametrize("depth", ["2", 1.5, True])
def test_a_depth_limit_that_is_not_an_integer_is_refused(call: Call, depth: object) -> None:
    assert call("explain_why", fact="true", max_depth=depth) == INVALID


CASES = [
    # goal, rules (facts p(1), p(2), q(2), s(x) are always there)
    ("r(X)", [("r(X)", "p(X), !, q(X)"), ("r(X)", "s(X)")]),
    ("r(X)", [("r(X)", "(p(X), X > 1 -> q(X) ; s(X))")]),
    ("r(X)", [("r(X)", "(q(X) *-> true ; s(X))")]),
    ("r(X)", [("r(X)", "p(X), \\+ q(X)")]),
    ("r(X)", [("r(X)", "(p(X), ! ; s(X))")]),
    ("r(L)", [("r(L)", "findall(X, p(X), L)")]),
    ("r(X)", [("r(X)", "G = q(X), G")]),
    ("r(X)", [("r(X)", "q(X)"), ("r(X)", "r(X)")]),
    ("r(X)", [("r(X)", "catch(p(X), _, true), X > 1")]),
    ("r(s(s(0)))", [("r(0)", "true"), ("r(s(X))", "r(X)")]),
    ("(p(X), q(X))", []),
    ("(q(X) ; s(X))", []),
    ("\\+ p(3)", []),
    ("p(X), !, q(X)", []),
]


@pytest.mark.parametrize(("goal", "rules"), CASES, ids=[f"{g} {r}" for g, r in CASES])
def test_a_goal_is_proven_exactly_when_query_logic_answers_it(
    call: Call, goal: str, rules: list[tuple[str, str]]
) -> None:
    facts_and_rules(call, ["p(1)", "p(2)", "q(2)", "s(x)"], rules)
    answers = ok(call("query_logic", goal=goal))
    explained = ok(call("explain_why", fact=goal))
    assert explained["proven"] == bool(answers)


def test_cut_in_a_clause_is_honoured(call: Call) -> None:
    facts_and_rules(call, ["p(1)", "p(2)", "q(2)", "s(x)"], CASES[0][1])
    assert ok(call("explain_why", fact="r(X)")) == {
        "fact": "r(X)",
        "proven": False,
        "proof_tree": None,
    }


def test_the_branch_that_succeeded_is_shown(call: Call) -> None:
    facts_and_rules(call, ["p(1)", "p(2)", "q(2)", "s(x)"], CASES[1][1])
    tree = ok(call("explain_why", fact="r(X)"))["proof_tree"]
    assert tree["goal"] == "r(2)"
    assert [c["goal"] for c in tree["children"]] == ["p(2)", "2 > 1", "q(2)"]


def test_a_goal_repeating_an_ancestor_is_not_expanded_again(call: Call) -> None:
    facts_and_rules(call, ["q(2)"], [("r(X)", "r(X)"), ("r(X)", "q(X)")])
    tree = ok(call("explain_why", fact="r(X)"))["proof_tree"]
    assert tree == {
        "goal": "r(2)",
        "rule_applied": "r(X) :- q(X)",
        "children": [{"goal": "q(2)", "rule_applied": "fact", "children": []}],
    }


def test_a_qualified_goal_is_proved_with_the_other_memory_s_rules(box: Toolbox, call: Call) -> None:
    box.call("create_memory", {"name": "audit"})
    box.call("mount_memory", {"name": "audit"})
    call("remember_fact", fact="flag(v3)", memory="audit")
    call("define_rule", head="bad(X)", body="flag(X)", memory="audit")
    call("define_rule", head="risky(X)", body="audit:bad(X)")
    tree = ok(call("explain_why", fact="risky(X)"))["proof_tree"]
    assert tree["children"] == [
        {
            "goal": "audit:bad(v3)",
            "rule_applied": "bad(X) :- flag(X)",
            "children": [{"goal": "flag(v3)", "rule_applied": "fact", "children": []}],
        }
    ]


def test_a_control_construct_at_the_root_is_a_builtin_node_over_its_goals(call: Call) -> None:
    facts_and_rules(call, ["p(1)", "q(1)"], [])
    tree = ok(call("explain_why", fact="p(X), q(X)"))["proof_tree"]
    assert tree["goal"] == "p(1), q(1)" and tree["rule_applied"] == "builtin"
    assert [c["goal"] for c in tree["children"]] == ["p(1)", "q(1)"]


def test_explain_refuses_what_a_query_refuses(call: Call) -> None:
    answer = call("explain_why", fact="shell(ls)")
    assert answer.is_error and answer.text.startswith("Not allowed in a query or rule body")
    call("define_rule", head="sneaky(G)", body="call(G)")
    answer = call("explain_why", fact="sneaky(halt)")
    assert answer.is_error and answer.text.startswith("Not allowed in a query or rule body")


@pytest.mark.parametrize(
    ("fact", "text"),
    [
        ("X", "fact must be an atom or a compound term, not X"),
        ("42", "fact must be an atom or a compound term, not 42"),
        ("p(", "Invalid Prolog syntax in fact: unbalanced parentheses"),
    ],
)
def test_explain_refuses_facts_it_cannot_run(call: Call, fact: str, text: str) -> None:
    assert call("explain_why", fact=fact) == ToolResult(text, True)


def test_explain_reports_errors_as_query_logic_does(call: Call) -> None:
    for goal in (
        "X is 1 / 0",
        "default:X",
        "call(1)",
        "X = f(X), true",
        "Y = 1, Z = g(X), X = f(X)",
        "atom_length(X, 1)",
    ):
        assert call("explain_why", fact=goal) == call("query_logic", goal=goal), goal
    assert call("explain_why", fact="ghost:p(X)") == ToolResult("Memory not mounted: ghost", True)


def test_internal_names_are_not_reachable_from_queries(call: Call) -> None:
    for goal in (
        "'$zpm_explain'(default, true, 5, S)",
        "'$zpm_trace'(default, p(a, Y), A)",
        "'$zpm_mi_clause'(default, p(X), B, R)",
        "'$zpm_mi_call'(default, true)",
        "proof_goal(true, default, none, 0, 5, _, S, [])",
    ):
        assert call("query_logic", goal=goal) == ToolResult("[]", False), goal


# -- limits ----------------------------------------------------------------------------


@pytest.fixture
def quick(open_box: Callable[..., Toolbox]) -> Call:
    box = open_box(ZPM_TIME_LIMIT="0.5")

    def _call(name: str, **arguments: Any) -> ToolResult:
        return box.call(name, arguments)

    return _call


LIMITED = ToolResult(
    "Limit exceeded: the goal did not finish within 0.5 s, 100000000 inferences "
    "and 128 MB of memory",
    True,
)


@pytest.mark.parametrize(
    ("tool", "arguments", "rules"),
    [
        ("explain_why", {"fact": "repeat, fail"}, []),
        ("explain_why", {"fact": "inf(0)"}, [("inf(X)", "inf(s(X))")]),
        ("explain_why", {"fact": "big(0)"}, [("big(N)", "N < 10000000, M is N + 1, big(M)")]),
        ("trace_dependency", {"start_node": "0"}, [("path(X, Y)", "Y = X ; path(s(X), Y)")]),
        ("trace_dependency", {"start_node": "a"}, [("path(X, Y)", "repeat, fail")]),
        ("verify_consistency", {}, [("integrity_violation(X)", "repeat, fail")]),
    ],
)
def test_runaway_reasoning_stops_at_the_time_limit_and_the_next_call_answers(
    quick: Call, tool: str, arguments: dict[str, Any], rules: list[tuple[str, str]]
) -> None:
    quick("remember_fact", fact="kept(yes)")
    for head, body in rules:
        assert not quick("define_rule", head=head, body=body).is_error
    started = time.monotonic()
    assert quick(tool, **arguments) == LIMITED
    assert time.monotonic() - started < 5
    assert ok(quick("query_logic", goal="kept(X)")) == [{"X": "yes"}]


def test_cyclic_rules_end_without_a_limit(quick: Call) -> None:
    facts_and_rules(
        quick,
        ["e(a, b)", "e(b, a)"],
        [("conn(X, Y)", "e(X, Y)"), ("conn(X, Y)", "conn(X, Z), conn(Z, Y)")],
    )
    assert ok(quick("explain_why", fact="conn(a, zz)"))["proven"] is False
    assert ok(quick("explain_why", fact="conn(a, a)"))["proof_tree"]["goal"] == "conn(a, a)"


# -- an engine without the reasoning part of the port ------------------------------------


class BareEngine(PythonEngine):
    """A third-party engine that implements only the required part of the port."""

    name = "bare"
    explain = Engine.explain  # type: ignore[assignment]
    tabled_answers = Engine.tabled_answers  # type: ignore[assignment]


def test_an_engine_without_explain_or_tables_gives_a_clear_error() -> None:
    registry = VolatileRegistry(VolatileDisk())
    memories = Memories(registry, memory_opener(BareEngine(), registry, version="t"))
    memories.start()
    tools = ReasoningTools(ToolContext(memories, Limits(time_s=2.0)))
    with pytest.raises(EngineUnsupported) as explained:
        tools.explain_why("true")
    assert explained.value.message == (
        "explain_why is not available: the bare engine does not implement Engine.explain"
    )
    with pytest.raises(EngineUnsupported) as traced:
        tools.trace_dependency("a")
    assert traced.value.message == (
        "trace_dependency is not available: the bare engine does not implement "
        "Engine.tabled_answers"
    )
    assert tools.verify_consistency().text == '{"violations":[]}'
