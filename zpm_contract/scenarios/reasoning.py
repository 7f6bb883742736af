"""The reasoning tools: trace_dependency, verify_consistency and explain_why.

The spec's examples, and rules and calls that no evaluation finishes."""

from __future__ import annotations

from typing import Any

from zpm_contract.scenarios.sandbox import refusal_text
from zpm_contract.scenarios.steps import ERR, INVALID, OK, Step

SPEC_PROOF = (
    '{"fact":"risky(deploy_v3)","proven":true,"proof_tree":{"goal":"risky(deploy_v3)",'
    '"rule_applied":"risky(X) :- untested(X), in_production(X)","children":['
    '{"goal":"untested(deploy_v3)","rule_applied":"fact","children":[]},'
    '{"goal":"in_production(deploy_v3)","rule_applied":"fact","children":[]}]}}'
)

REASONING_EXAMPLES: list[Step] = [
    ("trace_dependency", {"start_node": "a"}, "[]", OK),
    ("verify_consistency", {}, '{"violations":[]}', OK),
    (
        "explain_why",
        {"fact": "risky(deploy_v3)"},
        '{"fact":"risky(deploy_v3)","proven":false,"proof_tree":null}',
        OK,
    ),
    ("remember_fact", {"fact": "untested(deploy_v3)"}, "Asserted: untested(deploy_v3)", OK),
    (
        "remember_fact",
        {"fact": "in_production(deploy_v3)"},
        "Asserted: in_production(deploy_v3)",
        OK,
    ),
    (
        "define_rule",
        {"head": "risky(X)", "body": "untested(X), in_production(X)"},
        "Asserted rule: risky(X) :- untested(X), in_production(X)",
        OK,
    ),
    ("explain_why", {"fact": "risky(deploy_v3)"}, SPEC_PROOF, OK),
    ("explain_why", {"fact": "risky(deploy_v3)", "max_depth": 5}, SPEC_PROOF, OK),
    (
        "explain_why",
        {"fact": "risky(X)", "max_depth": 0},
        '{"fact":"risky(X)","proven":true,"proof_tree":{"goal":"risky(deploy_v3)",'
        '"rule_applied":"risky(X) :- untested(X), in_production(X)","children":[],'
        '"truncated":true}}',
        OK,
    ),
    (
        "define_rule",
        {"head": "safe(X)", "body": "catch(untested(X), _, fail), G = in_production(X), G"},
        "Asserted rule: safe(X) :- catch(untested(X), _, fail), G = in_production(X), G",
        OK,
    ),
    ("save_snapshot", {"name": "proofs"}, "Snapshot 'proofs' saved successfully.", OK),
    ("restore_snapshot", {"name": "proofs"}, "Snapshot 'proofs' restored successfully.", OK),
    (
        "explain_why",
        {"fact": "safe(X)"},
        '{"fact":"safe(X)","proven":true,"proof_tree":{"goal":"safe(deploy_v3)",'
        '"rule_applied":"safe(X) :- catch(untested(X), _, fail), G = in_production(X), G",'
        '"children":[{"goal":"catch(untested(deploy_v3), _G1, fail)","rule_applied":"builtin",'
        '"children":[]},{"goal":"in_production(deploy_v3) = in_production(deploy_v3)",'
        '"rule_applied":"builtin","children":[]},{"goal":"call(in_production(deploy_v3))",'
        '"rule_applied":"builtin","children":[]}]}}',
        OK,
    ),
    # A renamed rule is still a rule to the proof interpreters, its body (which
    # the SWI codec rewrites) read back as the client wrote it.
    (
        "rename_predicate",
        {"old_functor": "safe", "new_functor": "sound", "arity": 1},
        '{"renamed_facts": 0, "rewritten_rule_bodies": 0, "affected_rule_ids": [], '
        '"cross_memory_impact": {"rewritten": [], "warnings": [], '
        '"skipped_readonly": []}, "is_error": false}',
        OK,
    ),
    (
        "explain_why",
        {"fact": "sound(X)"},
        '{"fact":"sound(X)","proven":true,"proof_tree":{"goal":"sound(deploy_v3)",'
        '"rule_applied":"sound(X) :- catch(untested(X), _, fail), G = in_production(X), G",'
        '"children":[{"goal":"catch(untested(deploy_v3), _G1, fail)","rule_applied":"builtin",'
        '"children":[]},{"goal":"in_production(deploy_v3) = in_production(deploy_v3)",'
        '"rule_applied":"builtin","children":[]},{"goal":"call(in_production(deploy_v3))",'
        '"rule_applied":"builtin","children":[]}]}}',
        OK,
    ),
    (
        "define_rule",
        {"head": "integrity_violation(X)", "body": "risky(X)"},
        "Asserted rule: integrity_violation(X) :- risky(X)",
        OK,
    ),
    ("verify_consistency", {}, '{"violations":["deploy_v3"]}', OK),
    (
        "define_rule",
        {"head": "integrity_violation(deployment, X)", "body": "untested(X)"},
        "Asserted rule: integrity_violation(deployment, X) :- untested(X)",
        OK,
    ),
    ("verify_consistency", {}, '{"violations":["deploy_v3"]}', OK),  # each violation once
    ("verify_consistency", {"scope": "deployment"}, '{"violations":["deploy_v3"]}', OK),
    ("verify_consistency", {"scope": "security"}, '{"violations":[]}', OK),
    ("remember_fact", {"fact": "depends_on(a, b)"}, "Asserted: depends_on(a, b)", OK),
    ("remember_fact", {"fact": "depends_on(b, c)"}, "Asserted: depends_on(b, c)", OK),
    (
        "define_rule",
        {"head": "path(X, Y)", "body": "depends_on(X, Y)"},
        "Asserted rule: path(X, Y) :- depends_on(X, Y)",
        OK,
    ),
    (
        "define_rule",
        {"head": "path(X, Y)", "body": "depends_on(X, Z), path(Z, Y)"},
        "Asserted rule: path(X, Y) :- depends_on(X, Z), path(Z, Y)",
        OK,
    ),
    ("trace_dependency", {"start_node": "a"}, '["b","c"]', OK),
    ("trace_dependency", {"start_node": "c"}, "[]", OK),
    ("remember_fact", {"fact": "depends_on(c, a)"}, "Asserted: depends_on(c, a)", OK),
    ("trace_dependency", {"start_node": "a"}, '["b","c","a"]', OK),
    (
        "explain_why",
        {"fact": "path(a, a)"},
        '{"fact":"path(a, a)","proven":true,"proof_tree":{"goal":"path(a, a)",'
        '"rule_applied":"path(X, Y) :- depends_on(X, Z), path(Z, Y)","children":['
        '{"goal":"depends_on(a, b)","rule_applied":"fact","children":[]},'
        '{"goal":"path(b, a)","rule_applied":"path(X, Y) :- depends_on(X, Z), path(Z, Y)",'
        '"children":[{"goal":"depends_on(b, c)","rule_applied":"fact","children":[]},'
        '{"goal":"path(c, a)","rule_applied":"path(X, Y) :- depends_on(X, Y)","children":['
        '{"goal":"depends_on(c, a)","rule_applied":"fact","children":[]}]}]}]}}',
        OK,
    ),
    (
        "explain_why",
        {"fact": "path(a, zz)"},
        '{"fact":"path(a, zz)","proven":false,"proof_tree":null}',
        OK,
    ),
    ("trace_dependency", {}, INVALID, ERR),
    ("trace_dependency", {"start_node": ""}, INVALID, ERR),
    ("trace_dependency", {"start_node": "X"}, INVALID, ERR),
    (
        "trace_dependency",
        {"start_node": "a), halt(0"},
        "Invalid Prolog syntax in start_node: unbalanced parentheses",
        ERR,
    ),
    ("trace_dependency", {"start_node": "a", "memory": "nope"}, "Memory not mounted: nope", ERR),
    ("verify_consistency", {"scope": "f(x)"}, INVALID, ERR),
    ("verify_consistency", {"scope": 3}, INVALID, ERR),
    ("verify_consistency", {"bogus": "x"}, INVALID, ERR),
    ("explain_why", {}, INVALID, ERR),
    ("explain_why", {"fact": ""}, INVALID, ERR),
    ("explain_why", {"fact": "risky(X)", "max_depth": -1}, INVALID, ERR),
    ("explain_why", {"fact": "risky(X)", "max_depth": "2"}, INVALID, ERR),
    ("explain_why", {"fact": "p(X"}, "Invalid Prolog syntax in fact: unbalanced parentheses", ERR),
    ("explain_why", {"fact": "shell(ls)"}, refusal_text("shell/1"), ERR),
    ("explain_why", {"fact": "X is 1 / 0"}, "Prolog error: evaluation_error(zero_divisor)", ERR),
    ("query_logic", {"goal": "'$zpm_explain'(default, true, 5, S)"}, "[]", OK),
    ("query_logic", {"goal": "'$zpm_trace'(default, path(a, Y), A)"}, "[]", OK),
]
"""The spec's examples of the three reasoning tools, in one server, with cyclic
dependencies, depth limits, scopes and refusals around them."""

RUNAWAY_REASONING: list[tuple[str, str]] = [
    ("inf(X)", "inf(s(X))"),
    ("path(X, Y)", "Y = X ; path(s(X), Y)"),
    ("integrity_violation(X)", "repeat, fail"),
]
"""Rules no evaluation finishes (with the goals of ``RUNAWAY_CALLS``)."""

RUNAWAY_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("explain_why", {"fact": "repeat, fail"}),
    ("explain_why", {"fact": "inf(0)"}),
    ("trace_dependency", {"start_node": "0"}),
    ("verify_consistency", {}),
]
