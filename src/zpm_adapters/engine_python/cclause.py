"""Compiling a stored clause into head templates plus body code (``compiled_clause.CClause``)."""

from __future__ import annotations

import operator

from zpm_adapters.engine_python.code import Code
from zpm_adapters.engine_python.compiled_clause import CClause, arg_key
from zpm_adapters.engine_python.compiler import BodyCompiler
from zpm_adapters.engine_python.goals import Ctx
from zpm_adapters.engine_python.store import Namespace
from zpm_adapters.engine_python.templates import to_template
from zpm_domain.prolog.terms import TRUE, Struct, Term, Var
from zpm_domain.stored.clauses import Clause


def compile_clause(
    clause: Clause, ns: Namespace, system: Namespace | None, owner: Ctx | None = None
) -> CClause:
    """Compile a stored clause of namespace ``ns``.

    Raises ``PrologThrow`` (``type_error(callable, Body)``) for a body with a
    non-callable goal.
    """
    head = clause.head
    varmap: dict[int, int] = {}
    args: tuple[Term, ...] = head.args if isinstance(head, Struct) else ()
    head_t = tuple(to_template(a, varmap) for a in args)
    if all(map(operator.is_, head_t, args)):
        head_t = args  # ground arguments are their own templates: one tuple, not two
    n_head = len(varmap)
    body: Code | None = None
    if clause.body is not TRUE:
        body = BodyCompiler(ns, system, varmap, owner=owner).compile(clause.body)
    key = None
    if args and not isinstance(args[0], Var):
        key = arg_key(args[0])
    fresh = tuple(range(n_head, len(varmap)))
    return CClause(clause, head_t, len(varmap), body, fresh, key)
