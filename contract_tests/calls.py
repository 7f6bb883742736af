"""Hypothesis strategies for tool-call arguments (Prolog text the reader accepts).

Facts use a fixed signature per name (``FACT_ARITY``) so that queries meet
existing clauses often.  ``link/2`` facts always go from a smaller to a larger
integer, so the recursive ``reach/2`` rules over them terminate.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

FACT_ARITY: dict[str, int] = {"p": 1, "q": 1, "likes": 2, "link": 2, "item": 3}
RULE_NAMES = ("r1", "r2", "r3")

atoms = st.sampled_from(["a", "b", "c", "tea", "'Hello World'", "[]", "x1", "'don''t'"])
numbers = st.one_of(
    st.integers(-3, 12), st.sampled_from(["1.5", "0.1", "-2.0", "100000000000000000000"])
)
strings = st.sampled_from(['"s"', '"two words"', '""'])
constants = st.one_of(atoms, numbers.map(str), strings)


@st.composite
def facts(draw: st.DrawFn) -> str:
    """A ground fact of one of ``FACT_ARITY``'s predicates."""
    name = draw(st.sampled_from(sorted(FACT_ARITY)))
    if name == "link":
        low = draw(st.integers(0, 5))
        return f"link({low}, {low + draw(st.integers(1, 3))})"
    args = [draw(constants) for _ in range(FACT_ARITY[name])]
    return f"{name}({', '.join(args)})"


def call_of(name: str, arity: int, first: int = 0) -> str:
    """``name(V<first>, ..., )`` with fresh variables (bare ``name`` at arity 0)."""
    if arity == 0:
        return name
    return f"{name}({', '.join(f'V{first + i}' for i in range(arity))})"


def pattern_of(name: str, arity: int) -> str:
    """``name(_, _)``: the clear_context category of a whole predicate."""
    return name if arity == 0 else f"{name}({', '.join('_' for _ in range(arity))})"


BODY_SHAPES = (
    "{a}",
    "{a}, {b}",
    "{a}, \\+ {b}",
    "({a} ; {b})",
    "findall(V0, {a}, L), length(L, N), N > 0",
    "aggregate_all(count, {a}, C), C >= 0",
    "{a}, V0 == V0",
)

QUERY_SHAPES = (
    "{a}",
    "{a}, {b}",
    "{a}, \\+ {b}",
    "findall(V0, {a}, L)",
    "setof(V0, V1^{a}, L)",
    "aggregate_all(count, {a}, N)",
    "forall({a}, {b})",
    "{a}, ({b} -> R = yes ; R = no)",
    'msort([c, 2, "s", b, 1.0, f(x)], L)',
    "between(1, 4, X), Y is X * X - 7 // 2",
    "atom_length('Hello World', N), atom_concat(ab, cd, A), sub_atom(A, 1, 2, _, S)",
    "atom_codes(A, [0'h, 0'i]), atom_chars(A, Cs), upcase_atom(A, U)",
    'X = point(1, "s", [a|T]), X =.. L',
    "length(L, 2), nth0(0, L, z)",
    "X is 2 ** 70 + 0.5, Y is max(3, 4.0), Z is truncate(7 / 2)",
    "catch(atom_length(X, _), E, true)",
    "sort(0, @>=, [3, 1, 2, 3], L), sum_list(L, S)",
)

BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("remember_fact", {"fact": "p(a"}),
    ("remember_fact", {"fact": "p(a) q"}),
    ("remember_fact", {"fact": "p(X) :- q(X)"}),
    ("remember_fact", {"fact": "X"}),
    ("remember_fact", {"fact": "42"}),
    ("remember_fact", {"fact": "atom_length(a, 1)"}),
    ("remember_fact", {"fact": "p(a)", "bogus": "x"}),
    ("remember_fact", {"fact": ["p(a)"]}),
    ("define_rule", {"head": "r9(X)", "body": "halt"}),
    ("define_rule", {"head": "r9(X)", "body": "p(X"}),
    ("define_rule", {"head": "member(X, Y)", "body": "true"}),
    ("define_rule", {"head": "r9(X)", "body": 7}),
    ("query_logic", {"goal": "shell(ls)"}),
    ("query_logic", {"goal": "p(X), assertz(q(X))"}),
    ("query_logic", {"goal": "G = halt, call(G)"}),
    ("query_logic", {"goal": "foo(("}),
    ("query_logic", {"goal": "X is 1 / 0"}),
    ("query_logic", {"goal": "atom_length(1, a)"}),
    ("query_logic", {"goal": "p(X)", "limit": 3}),
    ("query_logic", {"goal": None}),
    ("forget_fact", {"fact": "p("}),
    ("forget_fact", {"fact": "append(X, Y, Z)"}),
    ("clear_context", {"category": ""}),
    ("update_fact", {"old_fact": "p(a)", "new_fact": "p(b) :- true"}),
    ("upsert_fact", {"fact": "'unterminated"}),
    ("get_knowledge_schema", {"memory": "nowhere"}),
    ("get_knowledge_schema", {"verbose": True}),
]
