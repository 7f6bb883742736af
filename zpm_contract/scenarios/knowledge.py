"""The knowledge tools: the spec's examples, bad input, and the answers and errors of built-ins."""

from __future__ import annotations

from zpm_contract.scenarios.steps import ERR, OK, Step

SPEC_EXAMPLES: list[Step] = [
    ("echo", {"message": "Hello, world!"}, "Hello, world!", OK),
    ("get_knowledge_schema", {}, '{"predicates":[],"total":0}', OK),
    ("remember_fact", {"fact": "human(socrates)"}, "Asserted: human(socrates)", OK),
    (
        "define_rule",
        {"head": "mortal(X)", "body": "human(X)"},
        "Asserted rule: mortal(X) :- human(X)",
        OK,
    ),
    (
        "define_rule",
        {"head": "mortal(X", "body": "human(X)"},
        "Invalid Prolog syntax in rule: unbalanced parentheses",
        ERR,
    ),
    ("remember_fact", {"fact": "fruit(apple)"}, "Asserted: fruit(apple)", OK),
    ("remember_fact", {"fact": "fruit(banana)"}, "Asserted: fruit(banana)", OK),
    ("query_logic", {"goal": "fruit(X)"}, '[{"X":"apple"},{"X":"banana"}]', OK),
    ("query_logic", {"goal": "fruit(cherry)"}, "[]", OK),
    ("query_logic", {"goal": "mortal(socrates)"}, "[{}]", OK),
    ("forget_fact", {"fact": "human(socrates)"}, "Retracted: human(socrates)", OK),
    (
        "forget_fact",
        {"fact": "human(socrates)"},
        "No matching clause found for: human(socrates)",
        ERR,
    ),
    ("remember_fact", {"fact": "project(beta, one)"}, "Asserted: project(beta, one)", OK),
    (
        "clear_context",
        {"category": "project(beta, _)"},
        "Cleared all facts matching: project(beta, _)",
        OK,
    ),
    (
        "clear_context",
        {"category": "nonexistent(_, _)"},
        "Cleared all facts matching: nonexistent(_, _)",
        OK,
    ),
    ("remember_fact", {"fact": 'server(alpha, "1.0")'}, 'Asserted: server(alpha, "1.0")', OK),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "1.0")', "new_fact": 'server(alpha, "2.0")'},
        'Updated: server(alpha, "1.0") -> server(alpha, "2.0")',
        OK,
    ),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "1.0")', "new_fact": 'server(alpha, "2.0")'},
        'No matching clause for: server(alpha, "1.0")',
        ERR,
    ),
    (
        "update_fact",
        {"old_fact": 'server(alpha, "2.0")', "new_fact": "server(alpha, X) :- x(X)"},
        "new_fact must not contain rule syntax",
        ERR,
    ),
    ("upsert_fact", {"fact": "deploy(prod, v2)"}, "Upserted: deploy(prod, v2)", OK),
    ("upsert_fact", {"fact": "deploy(prod, v2) :- true"}, "fact must not contain rule syntax", ERR),
    (
        "get_knowledge_schema",
        {},
        '{"predicates":[{"name":"mortal","arity":1,"type":"rule","count":1},'
        '{"name":"fruit","arity":1,"type":"fact","count":2},'
        '{"name":"server","arity":2,"type":"fact","count":1},'
        '{"name":"deploy","arity":2,"type":"fact","count":1}],"total":4}',
        OK,
    ),
]

# Bad input: every tool fails closed with the same text on every engine.
BAD_INPUT: list[Step] = [
    ("echo", {}, "InvalidArguments", ERR),
    ("echo", {"message": None}, "InvalidArguments", ERR),
    ("remember_fact", {}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": ""}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": 3}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": "p(a)", "extra": 1}, "InvalidArguments", ERR),
    ("define_rule", {"head": "mortal(X)"}, "InvalidArguments", ERR),
    ("query_logic", {"goal": ""}, "InvalidArguments", ERR),
    ("forget_fact", {"fact": ""}, "InvalidArguments", ERR),
    ("clear_context", {}, "InvalidArguments", ERR),
    ("update_fact", {"old_fact": "a"}, "InvalidArguments", ERR),
    ("upsert_fact", {"fact": ""}, "InvalidArguments", ERR),
    ("remember_fact", {"fact": "p("}, "Invalid Prolog syntax in fact: unbalanced parentheses", ERR),
    ("query_logic", {"goal": "p(X"}, "Invalid Prolog syntax in goal: unbalanced parentheses", ERR),
    ("remember_fact", {"fact": "P"}, "fact must be an atom or a compound term, not P", ERR),
    (
        "remember_fact",
        {"fact": "foo :- bar"},
        "fact must not contain rule syntax (use define_rule to add rules)",
        ERR,
    ),
    (
        "remember_fact",
        {"fact": "append(a, b, c)"},
        "Cannot modify built-in predicate: append/3",
        ERR,
    ),
    ("query_logic", {"goal": "p(X)", "memory": "nope"}, "Memory not mounted: nope", ERR),
]

# Prolog errors and answers of built-ins, rendered by the domain on every engine.
QUERIES: list[Step] = [
    ("query_logic", {"goal": "X is 1/0"}, "Prolog error: evaluation_error(zero_divisor)", ERR),
    ("query_logic", {"goal": "X is foo + 1"}, "Prolog error: type_error(evaluable, foo/0)", ERR),
    ("query_logic", {"goal": "atom_length(X, Y)"}, "Prolog error: instantiation_error", ERR),
    ("query_logic", {"goal": "undefined_pred(X)"}, "[]", OK),
    (
        "query_logic",
        {"goal": "X is 7 / 2, Y is 2 ** 100"},
        '[{"X":3.5,"Y":1267650600228229401496703205376}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": "findall(X, between(1, 5, X), L), sum_list(L, S)"},
        '[{"X":"_G1","L":[1,2,3,4,5],"S":15}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": "atom_concat(ab, X, abc), atom_codes(X, C)"},
        '[{"X":"c","C":[99]}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": 'X = f(Y, _Z, "s", 1.5, [a|T])'},
        '[{"X":"f(_G1, _G2, \\"s\\", 1.5, [a|_G3])","Y":"_G1","T":"_G3"}]',
        OK,
    ),
    (
        "query_logic",
        {"goal": "member(X, [c, a, b]), \\+ X == a"},
        '[{"X":"c"},{"X":"b"}]',
        OK,
    ),
]
