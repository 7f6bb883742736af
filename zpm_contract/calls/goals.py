"""Query shapes over known predicates, queries over cyclic terms, and goals at the limits."""

from __future__ import annotations

from hypothesis import strategies as st

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


LIMIT_GOALS = st.one_of(
    st.integers(999741, 999746).map(lambda n: f"_X is 2 ** {n}, B is msb(_X)"),
    st.integers(599678, 599681).map(lambda n: f"_X is 3 ** {n}, B is msb(_X)"),
    st.integers(299006, 299009).map(lambda n: f"_X is 10 ^ {n}, B is msb(_X)"),
    st.integers(999933, 999938).map(lambda n: f"_X is 1 << {n}, B is msb(_X)"),
    st.integers(7423, 7426).map(
        lambda n: f"_X is (1 << {64 * n - 1}) + 1, _Y is _X * _X, B is msb(_Y)"
    ),
    st.integers(999934, 999936).map(lambda n: f"_X is (1 << {n}) * 3, _Y is _X * 5 + 1"),
    st.sampled_from(
        [
            "X is 2 ** 2000000000",
            "X is 1 << 134217728",
            "X is 1 << 134217727",
            "numlist(1, 10000000, _L)",
            "numlist(1, 300000, L), length(L, N)",
            "numlist(1, 300000, _L), length(_L, N)",
            "X = f(X)",
            "Y = 1, Z = g(X), X = f(X)",
            "_X = f(_X), Y = 1",
            "X = f(X), throw(X)",
        ]
    ),
)
"""Goals at the limits every engine shares, within a few bits of where they
change their answer."""
