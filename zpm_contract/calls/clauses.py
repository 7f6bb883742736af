"""Facts and rules: the predicates, their arguments, and the calls and patterns of them.

Facts use a fixed signature per name (``FACT_ARITY``) so that queries meet
existing clauses often.  ``link/2`` facts always go from a smaller to a larger
integer, so the recursive ``reach/2`` rules over them terminate.
"""

from __future__ import annotations

from hypothesis import strategies as st

FACT_ARITY: dict[str, int] = {"p": 1, "q": 1, "likes": 2, "link": 2, "item": 3, "capital": 2}
FUNCTIONAL_KNOWLEDGE = ':- functional(capital/2).\ncapital(a, b).\ncapital(tea, "s").\n'
"""A knowledge file of every lockstep project: facts a client gives ``capital/2``
with the first argument ``a`` or ``tea`` and another second one are defeated."""
RULE_NAMES = ("r1", "r2", "r3")


atoms = st.sampled_from(["a", "b", "c", "tea", "'Hello World'", "[]", "x1", "'don''t'"])
numbers = st.one_of(
    st.integers(-3, 12),
    st.sampled_from(["1.5", "0.1", "-2.0", "100000000000000000000", "3.141592653589793"]),
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


SERIES_PREDICATES = ("p", "likes", "item")
"""The predicates that get several facts at once (``store_series``)."""
series_firsts = st.lists(st.sampled_from(["a", "b"]), max_size=2).map(
    lambda more: ["a", "b", "a", '"a"', *more]
)
"""The first arguments of a series: ``a``, ``b``, ``a``, the string ``"a"``
and up to two more, so they repeat and interleave."""
SERIES_SEQUELS = ("nothing", "repeat", "middle", "rename")
"""What may follow a series: nothing, the withdrawal of its repeated fact or
of the fact in its middle, a rule for its predicate and a rename."""
FACT_RULES = {
    "likes(V0, V1)": "link(V0, V1)",
    "p(V0)": "q(V0)",
    "q(V0)": "link(V0, _)",
    "item(V0, V1, V2)": "likes(V0, V1), V2 = derived",
}
"""Rules for predicates that have facts: ``p`` calls ``q``, ``q`` and
``likes`` call ``link``, ``item`` calls ``likes``, so no generated program loops
(until a rename gives one of them another's name: ``p`` renamed ``q``)."""


def rule_head(name: str) -> str:
    """The head of ``FACT_RULES``' rule for predicate ``name``."""
    return next(head for head in FACT_RULES if head.startswith(f"{name}("))


OPEN_FACT_ARITY = {"p": 1, "q": 1, "item": 3}
"""The predicates that get facts with variables (never ``link/2``, whose facts keep
``reach/2`` finite, nor ``likes/2`` and ``capital/2``, which reasoning and
defeat read)."""
fact_variables = st.sampled_from(["X", "Who", "Alice", "_", "_W"])
"""Variables of stored facts: capitalised ones get a note, ``_``-ones do not."""


@st.composite
def open_facts(draw: st.DrawFn) -> str:
    """A fact of ``OPEN_FACT_ARITY``'s predicates with at least one variable."""
    name = draw(st.sampled_from(sorted(OPEN_FACT_ARITY)))
    arity = OPEN_FACT_ARITY[name]
    args = [draw(st.one_of(fact_variables, constants)) for _ in range(arity)]
    args[draw(st.integers(0, arity - 1))] = draw(fact_variables)
    return f"{name}({', '.join(args)})"


def call_of(name: str, arity: int, first: int = 0, prefix: str = "V") -> str:
    """``name(V<first>, ..., )`` with fresh variables (bare ``name`` at arity
    0); ``prefix="_V"``: variables that answers do not show."""
    if arity == 0:
        return name
    return f"{name}({', '.join(f'{prefix}{first + i}' for i in range(arity))})"


def open_call(fact: str) -> str:
    """The call of ``fact``'s predicate with fresh variables (``likes(V0, V1)``)."""
    name = fact.split("(", 1)[0]
    return call_of(name, FACT_ARITY[name])


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
