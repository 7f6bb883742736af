"""Loading a knowledge file (``.zpm/kb/*.pl``, or a memory's ``knowledge.pl``).

Its clauses are monotonic: no tool removes or changes them.  Their
predicate is static unless the file declares it with
``:- dynamic(Name/Arity)`` first, as in ISO/SWI-Prolog; then tools may add
clauses to it.  Directives are
never executed: ``dynamic`` and ``discontiguous`` are understood, a
``module/2`` header is accepted (a memory is a namespace of its own), every
other directive is skipped with a warning.  A clause that does not read, that
defines a built-in, or whose body calls something outside the allow-list is
skipped with a warning naming the file and line; the rest of the file loads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from zpm_domain.errors import InvalidClause
from zpm_domain.prolog.errors import PermissionDenied, SandboxViolation
from zpm_domain.prolog.reader import read_clauses
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Atom, Struct, Term, list_items
from zpm_domain.stored.clauses import Clause

if TYPE_CHECKING:
    from zpm_domain.memory.memory import Memory

log = logging.getLogger("zpm")


def consult_text(memory: Memory, text: str, source: str) -> list[str]:
    """Load the clauses of ``text`` into ``memory``; returns the warnings (also logged)."""
    warnings: list[str] = []

    def warn(line: int, message: str) -> None:
        warning = f"{source}:{line}: {message}"
        warnings.append(warning)
        log.warning("%s", warning)

    for item in read_clauses(text):
        if item.error is not None:
            warn(item.error.line, f"syntax error: {item.error.message}")
            continue
        term = item.term
        assert term is not None
        if isinstance(term, Struct) and term.name == ":-" and len(term.args) == 1:
            _directive(memory, term.args[0], partial(warn, item.line), source, item.line)
            continue
        if isinstance(term, Struct) and term.name in ("-->", "?-"):
            warn(item.line, f"skipped: {term.name} clauses are not supported")
            continue
        clause = Clause.from_term(term)
        if not isinstance(clause.head, (Atom, Struct)):
            warn(item.line, "skipped: a clause head must be an atom or a compound term")
            continue
        try:
            check_goal(clause.body)
            memory.add_file_clause(clause, source, item.line)
        except (PermissionDenied, SandboxViolation) as exc:
            warn(item.line, f"skipped: {exc.message}")
    return warnings


def _directive(
    memory: Memory, goal: Term, warn: Callable[[str], None], label: str, line: int
) -> None:
    if isinstance(goal, Struct) and len(goal.args) == 1 and goal.name == "dynamic":
        for spec in _indicators(goal.args[0]):
            if spec is None:
                warn("skipped: dynamic/1 expects Name/Arity indicators")
                continue
            try:
                memory.declare_dynamic(*spec)
            except PermissionDenied as exc:
                warn(f"skipped: {exc.message}")
        return
    if isinstance(goal, Struct) and len(goal.args) == 1 and goal.name == "functional":
        for spec in _indicators(goal.args[0]):
            if spec is None:
                warn("skipped: functional/1 expects Name/Arity indicators")
                continue
            try:
                memory.declare_functional(*spec, label, line)
            except (PermissionDenied, InvalidClause) as exc:
                warn(f"skipped: {exc.message}")
        return
    if isinstance(goal, Struct) and goal.name == "discontiguous" and len(goal.args) == 1:
        return
    if isinstance(goal, Struct) and goal.name == "module" and len(goal.args) == 2:
        return  # a memory is a namespace of its own already
    warn("skipped a directive: knowledge files may only declare dynamic and functional predicates")


def _indicators(spec: Term) -> list[tuple[str, int] | None]:
    """``a/1``, ``(a/1, b/2)`` or ``[a/1, b/2]`` as (name, arity) pairs."""
    out: list[tuple[str, int] | None] = []
    stack: list[Term] = [spec]
    while stack:
        t = stack.pop()
        if isinstance(t, Struct) and t.name == "," and len(t.args) == 2:
            stack.extend(reversed(t.args))
        elif isinstance(t, Struct) and t.name == "[|]":
            items, _ = list_items(t)
            stack.extend(reversed(items))
        elif (
            isinstance(t, Struct)
            and t.name == "/"
            and len(t.args) == 2
            and isinstance(t.args[0], Atom)
            and type(t.args[1]) is int
            and t.args[1] >= 0
        ):
            out.append((t.args[0].name, t.args[1]))
        else:
            out.append(None)
    return out
