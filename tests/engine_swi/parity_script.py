"""Checks that an SWI engine answers as the python engine, run in a
subprocess by test_parity_swi.py: ``python parity_script.py ENGINE``.

Prints one JSON object: ``{"mismatches": [...], "checked": N, "instances":
[...]}``.  Each query runs on both engines in namespace ``default`` (namespace
``other`` mounted); ``instances`` lists what went wrong with two engines of that kind
in one process.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace

from swi_engines import new_engine

from zpm_adapters.engine_python.engine import PythonEngine
from zpm_domain.errors import ZpmError
from zpm_domain.limits import DEFAULT_LIMITS, Limits
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Var
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause

SHORT = replace(DEFAULT_LIMITS, time_s=0.3)

# Module qualification built at run time (gap: it reached SWI's own modules).
RUNTIME_QUALIFIED = [
    "X = default, call(X:p(A))",
    "X = other, call(X:q(A))",
    "G =.. [:, default, p(A)], call(G)",
    "G =.. [:, nosuch, true], call(G)",
    "X = nosuch, call(X:foo)",
    "X = system, G =.. [halt], call(X:G)",
    "X = system, call(X:true)",
    "X = lists, call(X:append([a], [b], L))",
    "X = user, call(X:p(A))",
    "G = (Y = other, Y:q(A)), call(G)",
    "G = (Y = nosuch, Y:q(A)), findall(A, G, L)",
    "M = other, maplist(M:q, [b])",
    "M = nosuch, catch(maplist(M:q, [b]), E, true)",
    "P = call(nosuch:true), call(P)",
    "findall(A, (M = other, call(M:q(A))), L)",
    "X = other, \\+ X:q(zz)",
    "G = forall(Y:q(A), true), Y = other, call(G)",
    "X = default, Y = other, call(X:call(Y:q(A)))",
    "G = (Y = default:p(A)), G, call(Y)",
]

# SWI predicates on neither list: unknown, so they fail.
UNLISTED = [
    "char_type(a, alpha)",
    "G = char_type(a, alpha), call(G)",
    "maplist(char_type, [a], [alpha])",
    "limit(2, member(X, [a, b, c]))",
    "nb_current(K, V)",
    "numbervars(f(X), 0, E, [])",
    "true, flush_output",
    "G = (true, thread_self(T)), call(G)",
    "apply(true, [])",
    "findall(X, (G = atomic_concat(a, b, X), G), L)",
    "text_concat(a, b, X)",
    "term_size(f(x), S)",
    "G = nth0(0, [a], E, R), call(G)",
    "call(succ_or_fail)",
    "G = tab(2), call(G)",
    "catch(call(tab, 2), E, true)",
    "G = nb_getval(a, V), catch(G, _, true)",
]

# Calls that SWI-Prolog's own compiler or meta-calls would resolve behind the
# namespace's back: a system predicate named in a clause body or a conjunction
# built at run time, a qualified goal that arrives as data at a library
# meta-predicate, a name the compiler turns into an instruction.
ESCAPES = [
    "A = assertz, Z =.. [A, foo(1)], G = (true, Z), call(G)",
    "X = user:assertz(h2), maplist(call, [X])",
    "call(',', user:assertz(x3), true)",
    "maplist(once, [user:assertz(x5)])",
    "foldl(call, [user:assertz(h3)], a, _)",
    "X = user:true, maplist(call, [X])",
    "findall(L, call(findall(a), user:true, L), Ls)",
    "call(',', fail, 3)",
    "catch(call(',', fail, 3), E, true)",
    "G = (fail | true), call(G)",
    "T =.. ['$call_cleanup'], G = (true, T), call(G)",
    "T =.. ['$cut'], G = (true, T), call(G)",
    "G = (true, $(member(X, [a, b]))), call(G)",
    "G = (true, @(X, user)), call(G)",
    "call(p, 1, 2, 3, 4, 5, 6, 7, 8)",
    "X = f(X), catch(call((true, p(X))), E, true)",
    "X = (a, X), catch(call(X), error(E, _), true)",
    "G = (true ; G), catch(findall(x, G, L), error(E, _), true)",
    "catch((G = (fail, 1), (true, G)), E, true)",
]

# Limits and refusals cannot be caught.
UNCATCHABLE = [
    "catch(findall(X, (repeat, between(1, 3, X)), L), _, true)",
    "catch((repeat, fail), E, true)",
    "repeat, catch((length(L, N), N > 100000000), _, true), fail",
    "catch(throw(time_limit_exceeded), E, true)",
    "catch(call(halt), E, true)",
    "G = halt, catch(G, _, true)",
    "catch(call(nosuch:true), E, true)",
]

# Terms and built-ins where SWI-Prolog differs from the python engine.
TERMS = [
    "X =.. [[], a]",
    "X =.. [[], a], X =.. [N|_], N == []",
    "X = '[]'(a), X =.. L",
    "X = '[]'(a, b), functor(X, N, A)",
    "catch(succ(1, a), E, true)",
    "catch(succ(0, -1), E, true)",
    "succ(1, 1.0)",
    "succ(X, 4)",
    "G = Y^member(X-Y, [1-a, 2-b]), bagof(X, G, L)",
    "G = member(X-Y, [1-a, 2-b]), bagof(X, G, L)",
    "bagof(X, Y^G, L)",
    "catch(once(_), E, true)",
    "catch(call(_, a), E, true)",
    "catch((true, G), E, true)",
    "catch(maplist(_, [a], X), E, true)",
    "catch(call(_:bar), E, true)",
    "catch(call(1:bar), E, true)",
    "catch(call((fail, 1)), E, true)",
    "G = catch(throw(x), y, true), catch(G, E, true)",
    "catch((member(X, [1, 2, 3]), X > 1), _, true)",
    "G = (member(X, [1, 2, 3]), !), call(G)",
    "findall(X-Y, (member(X, [1, 2]), G = member(Y, [a, b]), G), L)",
    "G = aggregate_all(count, member(_, [a, b]), C), G",
    "maplist(halt, [1])",
]

# The answer-size limit (SMALL_ANSWERS) is met at the same answer on every engine.
CELL_LIMITED = [
    "numlist(1, 9, L)",
    "numlist(1, 10, L)",
    "between(1, 3, X), numlist(1, 3, L)",
    "between(1, 3, X), length(L, 2)",
    "X = f(g(h(i(j(k(l(m(n(o))))))))), Y = a",
    "X = f(g(h(i(j(k(l(m(n(o(p)))))))))), Y = a",
    "findall(X, between(1, 100000, X), L), length(L, N)",
    "member(X, [[a], [b, c], [d, e, f], [g]])",
]
SMALL_ANSWERS = replace(DEFAULT_LIMITS, max_answer_cells=10)

CLAUSES = ["p(1)", "p(2)", "r(X) :- Y = other, Y:q(X)", "s(G) :- call(G)"]
OTHER = ["q(a)", "q(b)"]
CLAUSE_QUERIES = ["r(X)", "s(other:q(X))", "s(nosuch:q(X))", "M = nosuch, s(M:q(X))"]


def outcome(engine: Engine, goal: str, limits: Limits) -> list[str]:
    names: dict[str, Var] = {}
    term = read_term(goal, names)
    out: list[str] = []
    try:
        for solution in engine.solve("default", term, limits):
            out.append(", ".join(f"{n} = {render(solution[v])}" for n, v in names.items()))
    except ZpmError as error:
        out.append(f"{type(error).__name__}: {error}")
    return out


def setup(engine: Engine) -> None:
    for ns, texts in (("default", CLAUSES), ("other", OTHER)):
        engine.ensure_namespace(ns)
        for text in texts:
            engine.add_clause(ns, Clause.from_term(read_term(text)))


def instance_problems(name: str) -> list[str]:
    """Two engines in one process keep separate namespaces of the same name."""
    first, second = new_engine(name), new_engine(name)
    problems: list[str] = []
    for engine, value in ((first, "1"), (second, "2")):
        engine.ensure_namespace("default")
        engine.ensure_namespace("other")
        engine.add_clause("default", Clause.from_term(read_term(f"p({value})")))
        engine.add_clause("other", Clause.from_term(read_term(f"q({value})")))

    def check(engine: Engine, goal: str, want: list[str]) -> None:
        got = outcome(engine, goal, DEFAULT_LIMITS)
        if got != want:
            problems.append(f"{goal}: {got} (want {want})")

    check(first, "p(X)", ["X = 1"])
    check(second, "p(X)", ["X = 2"])
    check(first, "other:q(X)", ["X = 1"])
    check(second, "M = other, M:q(X)", ["M = other, X = 2"])
    second.drop_namespace("other")
    check(second, "other:q(X)", ["MemoryNotMounted: Memory not mounted: other"])
    check(first, "M = other, M:q(X)", ["M = other, X = 1"])
    second.ensure_namespace("other")
    check(second, "other:q(X)", [])
    return problems


def main(name: str) -> None:
    swi, python = new_engine(name), PythonEngine()
    setup(swi)
    setup(python)
    mismatches = []
    queries = (
        RUNTIME_QUALIFIED + UNLISTED + ESCAPES + UNCATCHABLE + TERMS + CLAUSE_QUERIES + CELL_LIMITED
    )
    for goal in queries:
        limits = (
            SHORT
            if goal in UNCATCHABLE
            else SMALL_ANSWERS
            if goal in CELL_LIMITED
            else DEFAULT_LIMITS
        )
        want, got = outcome(python, goal, limits), outcome(swi, goal, limits)
        if want != got:
            mismatches.append({"query": goal, "python": want, name: got})
    report = {
        "mismatches": mismatches,
        "checked": len(queries),
        "instances": instance_problems(name),
    }
    sys.stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
