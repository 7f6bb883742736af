"""Hypothesis strategies for tool-call arguments (Prolog text the reader accepts).

Facts use a fixed signature per name (``FACT_ARITY``) so that queries meet
existing clauses often.  ``link/2`` facts always go from a smaller to a larger
integer, so the recursive ``reach/2`` rules over them terminate.

Memories and snapshots come from small pools (``MEMORY_NAMES``,
``SNAPSHOT_NAMES``) so that mounts, restores and qualified goals meet what
earlier calls created; a few names that never exist (``ghost``, ``nope``)
exercise the error paths.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

FACT_ARITY: dict[str, int] = {"p": 1, "q": 1, "likes": 2, "link": 2, "item": 3, "capital": 2}
FUNCTIONAL_KNOWLEDGE = ':- functional(capital/2).\ncapital(a, b).\ncapital(tea, "s").\n'
"""A knowledge file of every lockstep project: facts a client gives ``capital/2``
with the first argument ``a`` or ``tea`` and another second one are defeated."""
RULE_NAMES = ("r1", "r2", "r3")

MEMORY_NAMES = ("alpha", "beta")
"""Memories the machine creates and mounts besides ``default``."""
SNAPSHOT_NAMES = ("s1", "s2", "before_refactor", "before-refactor", "v1.2", "S1")
"""Snapshot names: with ``_``, ``-`` and an inner dot; ``S1`` and ``s1`` differ only
in case, so whichever is saved second is refused."""

memory_names = st.sampled_from([*MEMORY_NAMES, *MEMORY_NAMES, "default", "ghost"])
"""Names for create/mount/unmount: mostly the pool; ``default`` (always mounted,
reserved) and ``ghost`` (never created) now and then."""
fork_names = st.sampled_from(["fork_a", "fork_a", "fork_b"])
"""Names the machine forks memories under (``fork_memory``, ``merge_memory``)."""
memory_targets = st.sampled_from([None, None, None, None, "default", "alpha", "alpha", "beta"])
"""The ``memory`` argument of knowledge and snapshot tools (``None``: left out)."""
qualifiers = st.sampled_from([None, None, None, None, "default", "alpha", "alpha", "beta", "ghost"])
"""The ``m`` of a cross-memory goal ``m:G`` (``None``: an unqualified goal)."""
scopes = st.sampled_from([None, "project", "global"])
modes = st.sampled_from([None, "rw", "rw", "ro"])
snapshot_names = st.sampled_from(SNAPSHOT_NAMES)
restored_names = st.sampled_from([*SNAPSHOT_NAMES, "nope"])
"""Names to restore: the pool, and ``nope``, never saved."""
sample_sizes = st.sampled_from([None, 0, 1, 2, 50, -3, 100])
match_limits = st.sampled_from([None, None, 1, 2, 3, 0, 1001])
"""``matching``'s limit: mostly small, so pages and truncation occur; some out of range."""

ASSUMPTION_NAMES = ("infra_a", "infra_b", "plan", "h1")
"""Assumptions the machine makes: shared between facts, and matched by ``GLOBS``."""
assumption_names = st.sampled_from([*ASSUMPTION_NAMES, "never_made"])
globs = st.sampled_from(["infra_*", "h?", "*", "infra_?", "none_*", "p*n"])
rename_targets = st.sampled_from(["renamed_a", "renamed_b", "renamed_a", "q", "likes"])
"""New names for rename_predicate: mostly fresh, sometimes taken (a collision)."""
reference_scopes = st.sampled_from([None, None, "default", "alpha", "__all__", "ghost"])


def with_memory(arguments: dict[str, Any], memory: str | None) -> dict[str, Any]:
    """``arguments`` plus ``memory`` unless it is ``None`` (the argument left out)."""
    return arguments if memory is None else {**arguments, "memory": memory}


def with_context(arguments: dict[str, Any], memory: str | None) -> dict[str, Any]:
    """``arguments`` plus the verb tools' ``context`` unless it is ``None``."""
    return arguments if memory is None else {**arguments, "context": memory}


def qualified(name: str, memory: str | None) -> str:
    """``memory:name`` (a predicate of another memory), or ``name`` for ``None``."""
    return name if memory is None else f"{memory}:{name}"


def with_present(**arguments: Any) -> dict[str, Any]:
    """The keyword arguments whose value is not ``None`` (optional ones left out)."""
    return {key: value for key, value in arguments.items() if value is not None}


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
    "current_predicate(N/A)",
    "current_predicate(N, {a})",
    "predicate_property({a}, P)",
    "findall(N/A-P, (current_predicate(N/A), functor(H, N, A), predicate_property(H, P)), L)",
    "setup_call_cleanup(S = 1, {a}, C = 2)",
    "catch(setup_call_cleanup(true, {a}, throw(done)), E, true)",
    "subsumes_term({b}, {a})",
    "unifiable({a}, {b}, U)",
    "copy_term({a}, C), numbervars(C, 0, E)",
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
    ("save_snapshot", {}),
    ("save_snapshot", {"name": ""}),
    ("save_snapshot", {"name": "../s1"}),
    ("save_snapshot", {"name": "a/b"}),
    ("save_snapshot", {"name": "/tmp/zpm-escape"}),
    ("save_snapshot", {"name": "s1\x00"}),
    ("save_snapshot", {"name": "s" * 200}),
    ("save_snapshot", {"name": 1}),
    ("save_snapshot", {"name": "s1", "path": "/tmp"}),
    ("restore_snapshot", {"name": None}),
    ("restore_snapshot", {"name": "../s1"}),
    ("restore_snapshot", {"name": "s1.pl"}),
    ("list_snapshots", {"memory": "../alpha"}),
    ("list_snapshots", {"memory": ["alpha"]}),
    ("create_memory", {"name": "../alpha"}),
    ("create_memory", {"name": "/tmp/alpha"}),
    ("create_memory", {"name": "Alpha"}),
    ("create_memory", {"name": "default"}),
    ("create_memory", {"name": "a" * 200}),
    ("create_memory", {"name": "alpha", "scope": "planet"}),
    ("create_memory", {"name": "alpha", "scope": 1}),
    ("mount_memory", {"name": "alpha", "mode": "rwx"}),
    ("mount_memory", {"name": "alpha/../beta"}),
    ("mount_memory", {"name": "alpha", "mode": False}),
    ("unmount_memory", {"name": "default"}),
    ("unmount_memory", {"name": "../alpha"}),
    ("unmount_memory", {}),
    ("list_memories", {"scope": "global"}),
    ("get_persistence_status", {"memory": "default"}),
    ("get_kb_overview", {"sample_size": "2"}),
    ("get_kb_overview", {"memory": "alpha"}),
    ("assert", {"sentence": "p(X) :- q(X)"}),
    ("assert", {"sentence": "Y"}),
    ("assert", {"sentence": "p(a)", "strength": "monotonic"}),
    ("assert", {"sentence": "p(a)", "context": "../alpha"}),
    ("assert", {"sentence": "atom_length(a, 1)"}),
    ("unassert", {"sentence": "member(X, Y)"}),
    ("unassert", {"sentence": ""}),
    ("unassert-handle", {"sentex_handle": -1}),
    ("unassert-handle", {"sentex_handle": 2**60}),
    ("unassert-handle", {"sentex_handle": 4.5}),
    ("unassert-handle", {"sentex_handle": "42"}),
    ("unassert-handle", {"sentex_handle": 42, "context": "ghost"}),
    ("query", {"goal": "shell(ls)"}),
    ("query", {"goal": "p(X)", "include_justification": "yes"}),
    ("matching", {"pattern": "X"}),
    ("argue", {"closed_goal": "likes(a, X)"}),
    ("argue", {"closed_goal": "X = f(X)"}),
    ("argue", {"closed_goal": "likes(a, b), shell(ls)"}),
    ("argue", {"closed_goal": "likes(a, b)", "context": "ghost"}),
    ("argue", {"closed_goal": 7}),
    ("fork_memory", {"name": "default"}),
    ("fork_memory", {"name": "x", "from": "ghost"}),
    ("fork_memory", {"name": "Bad"}),
    ("merge_memory", {"name": "default"}),
    ("merge_memory", {"name": "ghost_fork"}),
    ("merge_memory", {"name": "x", "dry_run": "no"}),
    ("matching", {"pattern": "(a, b)"}),
    ("matching", {"pattern": "findall(X, p(X), L)"}),
    ("matching", {"pattern": "p(X)", "limit": 0}),
    ("matching", {"pattern": "p(X)", "limit": 1001}),
    ("matching", {"pattern": "p(X)", "limit": "10"}),
    ("matching", {"pattern": "p(X)", "after_handle": -5}),
]


TERM_BUILDERS = (
    "X = f(X)",
    "X = f(X, a)",
    "X = [a|X]",
    "X = [a, b|X]",
    "X = f(W), W = g(X)",
    "X = f(X, _)",
    "X = f(a)",
    "X = [a, b]",
    "X = f(_)",
)
"""Goals that bind ``X``: cyclic terms (rational trees) and a few finite ones."""

TERM_OPS = (
    ("X == Y", "yes"),
    ("X = Y", "yes"),
    ("compare(O, X, Y)", "O"),
    ("X @< Y", "yes"),
    ("ground(X)", "yes"),
    ("copy_term(X, Z), Z = X", "yes"),
    ("term_variables(X, Vs), length(Vs, N)", "N"),
    ("X =@= Y", "yes"),
    ("acyclic_term(X)", "yes"),
    ("cyclic_term(X)", "yes"),
    ("subsumes_term(X, Y)", "yes"),
    ("unifiable(X, Y, U), length(U, N)", "N"),
    ("numbervars(X, 0, E)", "E"),
    ("msort([X, Y, a], L), length(L, N)", "N"),
    ("sort([X, Y, X], L), length(L, N)", "N"),
    ("is_list(X)", "yes"),
    ("catch(length(X, N), error(T, _), true), (var(T) -> R = N ; functor(T, R, _))", "R"),
    ("setof(Z, member(Z, [X, Y, X]), L), length(L, N)", "N"),
    ('format(atom(A), "~w", [X])', "A"),
    ('copy_term(X, C), numbervars(C, 0, _), format(atom(A), "~q ~w", [C, Y])', "A"),
    ("unify_with_occurs_check(X, Y)", "yes"),
    ("functor(X, F, A)", "F/A"),
    ("X =.. [F|_]", "F"),
    ("arg(1, X, Z), Z == X", "yes"),
    ("catch(atom_length(X, L), error(T, _), true), (var(T) -> R = L ; functor(T, R, _))", "R"),
    ("catch(call((X, true)), error(T, _), true), (var(T) -> R = ran ; functor(T, R, _))", "R"),
    ("G = (fail ; G), catch(call(G), error(T, _), true), functor(T, R, _)", "R"),
    ("findall(Z, (member(Z, [X, Y]), ground(Z)), L), length(L, N)", "N"),
    ("bagof(K-Z, member(K-Z, [X-1, Y-2, X-3]), L), length(L, N)", "N"),
)
"""Operations on ``X`` and ``Y`` and what of their result a query shows.
Every combination with :data:`TERM_BUILDERS` ends at once in SWI-Prolog."""


@st.composite
def term_goals(draw: st.DrawFn) -> str:
    """A query over two terms that are often cyclic: ``X = f(X), Y = [a|Y], X == Y``.

    Mostly the operation's result is collected with ``findall/3`` (the terms
    themselves stay out of the answer); sometimes the goal is bare, so that an
    answer binding a variable to a cyclic term (an error on every engine)
    is generated too.
    """
    bx = draw(st.sampled_from(TERM_BUILDERS))
    by = draw(st.sampled_from(TERM_BUILDERS)).replace("X", "Y").replace("W", "V")
    op, shown = draw(st.sampled_from(TERM_OPS))
    goal = f"{bx}, {by}, {op}"
    if draw(st.integers(0, 4)) == 0:
        return goal
    return f"findall({shown}, ({goal}), Rs)"


# -- the reasoning tools ----------------------------------------------------------------

PATH_RULES: dict[str, list[tuple[str, str]]] = {
    "right": [("path(X, Y)", "likes(X, Y)"), ("path(X, Y)", "likes(X, Z), path(Z, Y)")],
    "left": [("path(X, Y)", "path(X, Z), likes(Z, Y)"), ("path(X, Y)", "likes(X, Y)")],
    "double": [("path(X, Y)", "likes(X, Y)"), ("path(X, Y)", "path(X, Z), path(Z, Y)")],
    "links": [("path(X, Y)", "reach(X, Y)"), ("path(X, Y)", "likes(X, Z), path(Z, Y)")],
}
"""Definitions of ``path/2`` for trace_dependency; ``likes/2`` facts hold any
constants, so their graphs are often cyclic."""

VIOLATION_RULES: list[tuple[str, str]] = [
    ("integrity_violation(X)", "p(X), \\+ q(X)"),
    ("integrity_violation(likes, X)", "likes(X, X)"),
    ("integrity_violation(items, X)", "item(X, _, _)"),
]
"""``integrity_violation/1,2`` rules over the generated facts."""

violation_scopes = st.sampled_from([None, None, "likes", "items", "nope", "f(x)"])
"""verify_consistency scopes: none, the rules', one without rules, one that is no atom."""
max_depths = st.sampled_from([None, None, 0, 1, 2])
"""explain_why depth limits (``None``: left out)."""

search_queries = st.sampled_from(
    [
        "tea",
        "hello world",
        "likes tea",
        "item two words",
        "link 3",
        "capital",
        "don x1",
        "reach r1 r2",
        "renamed likes",
        "who shelf",
        "HELLO",
        "meaning",
    ]
)
"""``search_facts`` queries: words of the generated facts' atoms, strings, predicate
names and of ``DESCRIPTIONS``, whole, as prefixes and in other cases."""
search_limits = st.sampled_from([None, None, 1, 2, 3, 0, 101])
search_cursors = st.sampled_from([None, None, 0, 1, 2, 5, -1])
search_memories = st.sampled_from([None, None, None, "default", "alpha", "beta", "ghost"])
history_limits = st.sampled_from([None, None, 1, 2, 5, 0])
history_orders = st.sampled_from([None, None, "newest", "oldest", "sideways"])
history_moments = st.sampled_from(
    ["0", "1", "2.1", "3", "99999", "2025-12-01T10:42:11Z", "2025-12-01T10:42:12", "soon"]
)
"""Moments ``history`` is asked from or until besides the cursors answers gave:
the start, early batches and events, one far ahead (refused), the time every
server tells (``lockstep.CLOCK``) and the second after it, and a mistake."""
history_clients = st.sampled_from([None, None, None, "zpm-lockstep", "someone"])
history_tools = st.sampled_from([None, None, None, "remember_fact", "assert", "merge_memory"])
CONSTRAINED = ("likes", "link", "item", "p")
"""The predicates the machine declares functional (``capital/2`` is, in its knowledge file)."""
DESCRIPTIONS = ("who likes whom", "items on the shelf", "the meaning of p", "")
"""Descriptions given to predicates (the empty one removes a description)."""
vocabulary = st.sampled_from([("shelf_item", 2), ("atom_length", 2)])
"""Predicates described without clauses (vocabulary first), and a built-in (refused)."""

echo_messages = st.sampled_from(
    ["hello", "", " ", "héllo wörld ✓", "two\nlines", "tab\there", "'quoted' \"both\"", "x" * 300]
)
"""``echo`` messages: empty, blank, non-ASCII, control characters, quotes, long."""
