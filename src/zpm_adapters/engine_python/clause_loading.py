"""Adding stored clauses to a namespace of the python engine: compiled, or copied.

A clause is compiled (``cclause.compile_clause``) in the namespace it goes
to, since a rule's code is linked to that namespace's predicates; a body
that is not callable is refused with the ``PrologError`` SWI-Prolog's
``assertz/1`` gives.  A copy from another namespace (a fork) reuses what
does not depend on the namespace: whole predicates of facts, and the
compiled heads of facts.  The port checks every clause first
(``Engine.add_clause``, ``add_clauses``, ``copy_clauses``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from zpm_adapters.engine_python.cclause import compile_clause
from zpm_adapters.engine_python.compiled_clause import CClause
from zpm_adapters.engine_python.rterms import to_answer
from zpm_adapters.engine_python.runtime import PrologThrow
from zpm_adapters.engine_python.store import Namespace
from zpm_domain.ports.engine import Refusals
from zpm_domain.ports.store_checks import copy_by_predicate, whole_run
from zpm_domain.prolog.errors import PrologError
from zpm_domain.stored.clauses import Clause


def add_clause(
    namespace: Namespace, system: Namespace, clause: Clause, *, front: bool, static: bool
) -> None:
    """Add ``clause`` to ``namespace`` (first when ``front``), compiled with
    the library ``system``; ``static`` marks a clause of a knowledge file
    (``CClause.fixed``), which makes its predicate static unless it was
    declared dynamic.  ``PrologError`` when its body is not callable."""
    name, arity = clause.key
    pred = namespace.predicate(name, arity)
    try:
        compiled = compile_clause(clause, namespace, system)
    except PrologThrow as exc:
        raise PrologError(to_answer(exc.ball, {})) from None
    namespace.define(name, arity)
    compiled.fixed = static
    pred.static = pred.static or (static and not pred.declared_dynamic)
    pred.add(compiled, front)


def add_compiled(
    namespace: Namespace,
    system: Namespace,
    accepted: Sequence[tuple[int, Clause]],
    held: dict[int, CClause],
) -> Refusals:
    """Add the clauses of ``accepted`` (each with its index in the caller's
    list) at the end of ``namespace``, in order; those whose body is not
    callable are refused (their index and the ``PrologError``), the others
    added all the same.  A fact that ``held`` has compiled (by the identity
    of its clause) is copied from there rather than compiled."""
    refused: Refusals = []
    for index, clause in accepted:
        built = held.get(id(clause))
        if built is not None and built.clause is clause:
            compiled = CClause(clause, built.head, built.nvars, None, built.fresh, built.key)
        else:
            try:
                compiled = compile_clause(clause, namespace, system)
            except PrologThrow as exc:
                refused.append((index, PrologError(to_answer(exc.ball, {}))))
                continue
        namespace.define(*clause.key).add(compiled, False)
    return refused


def copy_clauses(
    origin: Namespace,
    namespace: Namespace,
    system: Namespace,
    accepted: Sequence[tuple[int, Clause]],
) -> Refusals:
    """Add the clauses of ``accepted``, taken from ``origin``, to ``namespace``
    as :func:`add_compiled` does.  Consecutive clauses that are all the
    clauses of a predicate of facts in ``origin`` (the very objects, in
    order), of a predicate without clauses here, are adopted whole
    (``Predicate.adopt``); of the others, a fact that ``origin`` holds keeps
    its compiled head (its templates and index key are the same in every
    namespace) and a rule is compiled again (its code is linked to its
    namespace's predicates)."""
    clauses = [clause for _, clause in accepted]

    def copy_whole(start: int) -> int:
        key = clauses[start].key
        whole, mine = origin.lookup(*key), namespace.lookup(*key)
        if whole is None or whole.rules or (mine is not None and mine.current()):
            return 0
        count = whole_run(whole.current(), clauses, start)
        if count:
            namespace.define(*key).adopt(whole)
        return count

    @cache
    def held() -> dict[int, CClause]:
        return {
            id(compiled.clause): compiled
            for pred in origin.order
            for compiled in pred.current()
            if compiled.body is None
        }

    def add(run: Sequence[Clause]) -> Refusals:
        return add_compiled(namespace, system, list(enumerate(run)), held())

    refused = copy_by_predicate(clauses, copy_whole, add)
    return [(accepted[index][0], error) for index, error in refused]
