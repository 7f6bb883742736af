"""Proof trees: nesting flat proof steps, their texts, and the iterative encoder."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zpm_domain.ports.proofs import (
    DEFAULT_MAX_DEPTH,
    ProofNode,
    ProofStep,
    build_tree,
    encode_explanation,
    encode_tree,
)
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Struct, Term, Var
from zpm_domain.stored.clauses import Clause

RISKY = Clause.from_term(read_term("risky(X) :- untested(X), in_production(X)"))
UNTESTED = Clause.from_term(read_term("untested(deploy_v3)"))
IN_PRODUCTION = Clause.from_term(read_term("in_production(deploy_v3)"))


def t(text: str) -> Term:
    return read_term(text)


def as_json(node: ProofNode) -> dict[str, Any]:
    """The node as ``json.dumps`` would see it (recursive: small trees only)."""
    out: dict[str, Any] = {
        "goal": node.goal,
        "rule_applied": node.rule_applied,
        "children": [as_json(c) for c in node.children],
    }
    if node.truncated:
        out["truncated"] = True
    return out


def test_the_spec_example_nests_and_reads_as_the_spec_shows() -> None:
    steps = [
        ProofStep(0, t("risky(deploy_v3)"), RISKY),
        ProofStep(1, t("untested(deploy_v3)"), UNTESTED),
        ProofStep(1, t("in_production(deploy_v3)"), IN_PRODUCTION),
    ]
    assert encode_explanation("risky(deploy_v3)", build_tree(steps)) == (
        '{"fact":"risky(deploy_v3)","proven":true,"proof_tree":{"goal":"risky(deploy_v3)",'
        '"rule_applied":"risky(X) :- untested(X), in_production(X)","children":['
        '{"goal":"untested(deploy_v3)","rule_applied":"fact","children":[]},'
        '{"goal":"in_production(deploy_v3)","rule_applied":"fact","children":[]}]}}'
    )


def test_not_proven_has_a_null_tree_and_echoes_the_fact_verbatim() -> None:
    assert encode_explanation(' risky( "x" ) .', None) == (
        '{"fact":" risky( \\"x\\" ) .","proven":false,"proof_tree":null}'
    )


def test_unnamed_variables_are_numbered_over_the_whole_proof_in_pre_order() -> None:
    a, b = Var(None), Var(None)
    steps = [
        ProofStep(0, Struct("p", (a, b)), Clause.from_term(t("p(X, Y) :- q(X), r(Y)"))),
        ProofStep(1, Struct("q", (a,)), None),
        ProofStep(1, Struct("r", (b,)), None),
    ]
    tree = build_tree(steps)
    assert [tree.goal, *(c.goal for c in tree.children)] == ["p(_G1, _G2)", "q(_G1)", "r(_G2)"]
    assert [c.rule_applied for c in tree.children] == ["builtin", "builtin"]
    assert tree.rule_applied == "p(X, Y) :- q(X), r(Y)"


def test_a_truncated_node_has_no_children_and_says_so_after_them() -> None:
    tree = build_tree([ProofStep(0, t("risky(deploy_v3)"), RISKY, truncated=True)])
    assert encode_tree(tree) == (
        '{"goal":"risky(deploy_v3)","rule_applied":"risky(X) :- untested(X), in_production(X)",'
        '"children":[],"truncated":true}'
    )


def test_steps_that_do_not_form_a_tree_are_refused() -> None:
    with pytest.raises(ValueError):
        build_tree([])
    with pytest.raises(ValueError):
        build_tree([ProofStep(1, t("a"), None)])
    with pytest.raises(ValueError):
        build_tree([ProofStep(0, t("a"), RISKY), ProofStep(2, t("b"), None)])
    with pytest.raises(ValueError):
        build_tree([ProofStep(0, t("a"), None), ProofStep(0, t("b"), None)])


def test_a_ten_thousand_deep_proof_builds_and_encodes_without_recursion() -> None:
    rule = Clause.from_term(t("chain(X) :- link(X, Y), chain(Y)"))
    steps = []
    for i in range(10_000):
        steps.append(ProofStep(i, t(f"chain(n{i})"), rule))
        steps.append(ProofStep(i + 1, t(f"link(n{i}, n{i + 1})"), None))
    text = encode_tree(build_tree(steps))
    nest: dict[str, Any] = {}
    deepest = nest
    for _ in range(10_000):
        child: dict[str, Any] = {}
        deepest["children"] = [child]
        deepest = child
    with pytest.raises(RecursionError):  # what a recursive encoder would do
        json.dumps(nest)
    assert text.startswith('{"goal":"chain(n0)","rule_applied":"chain(X) :- link(X, Y), chain(Y)"')
    assert text.count('"goal":') == 20_000
    assert text.endswith('"children":[]}' + "]}" * 10_000)


@st.composite
def trees(draw: st.DrawFn) -> list[ProofStep]:
    """Pre-order steps of a random small tree, some nodes truncated."""
    clauses = [RISKY, UNTESTED, None]
    steps = [ProofStep(0, t("root"), draw(st.sampled_from(clauses)))]
    for i in range(draw(st.integers(0, 12))):
        depth = draw(st.integers(1, steps[-1].depth + 1))
        goal = Struct("g", (i, draw(st.sampled_from(["a", 'q"uote', "ünï", "\\"]))))
        steps.append(
            ProofStep(depth, goal, draw(st.sampled_from(clauses)), truncated=draw(st.booleans()))
        )
    return steps


@given(trees())
def test_the_encoder_writes_what_json_dumps_writes_compactly(steps: list[ProofStep]) -> None:
    tree = build_tree(steps)
    assert encode_tree(tree) == json.dumps(as_json(tree), separators=(",", ":"), ensure_ascii=False)


def test_the_default_depth_limit_lets_a_ten_thousand_step_proof_through() -> None:
    assert DEFAULT_MAX_DEPTH >= 10_000
