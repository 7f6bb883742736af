"""Term construction and inspection: ``functor/3``, ``arg/3``, ``=../2``,
``copy_term/2``, ``term_variables/2``.

Shapes as SWI-Prolog 9: ``functor(T, [], 1)`` builds ``[](_)``; atomic terms
are their own functor with arity 0 (``functor("s", N, 0)``); ``arg/3``
enumerates when ``N`` is unbound.
"""

from __future__ import annotations

from collections.abc import Iterator

from zpm_adapters.engine_python.builtins._support import (
    CHECK_EVERY,
    Machine,
    bare_ctx,
    check_cells,
    ctx,
    list_or_partial,
    make_list,
)
from zpm_adapters.engine_python.builtins.copying import copy_term as copy_graph
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    det,
    domain_error,
    instantiation_error,
    nondet,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

_ATOMIC = (Atom, int, float, String)


def _name_of(t: Atom) -> str:
    return "[]" if t is NIL else t.name


@det("functor", 3)
def functor(m: Machine, args: tuple[RTerm, ...]) -> bool:
    t = deref(args[0])
    c = ctx("functor", 3)
    if type(t) is Struct:
        name: RTerm = NIL if t.name == "[]" else Atom(t.name)
        return m.unify(args[1], name) and m.unify(args[2], len(t.args))
    if type(t) is not Ref:
        return m.unify(args[1], t) and m.unify(args[2], 0)
    name_t, arity_t = deref(args[1]), deref(args[2])
    if type(name_t) is not Ref and type(name_t) not in _ATOMIC:
        raise type_error("atomic", name_t, c)
    if type(name_t) is Ref or type(arity_t) is Ref:
        raise instantiation_error(c)
    if type(arity_t) is not int:
        raise type_error("integer", arity_t, c)
    if arity_t < 0:
        raise domain_error("not_less_than_zero", arity_t, c)
    if arity_t == 0:
        return m.unify(t, name_t)
    if type(name_t) is not Atom:
        raise type_error("atom", name_t, c)
    check_cells(m, arity_t + 1)
    return m.unify(t, Struct(_name_of(name_t), tuple(Ref() for _ in range(arity_t))))


@nondet("arg", 3)
def arg(m: Machine, args: tuple[RTerm, ...]) -> Iterator[None]:
    n, t = deref(args[0]), deref(args[1])
    if type(t) is Ref:
        raise instantiation_error(bare_ctx("arg", 3))
    if type(t) is not Struct:
        raise type_error("compound", t, bare_ctx("arg", 3))
    if type(n) is not Ref:
        if type(n) is not int:
            raise type_error("integer", n, ctx("arg", 3))
        if n < 0:
            raise domain_error("not_less_than_zero", n, ctx("arg", 3))
    if type(n) is int:
        if 1 <= n <= len(t.args) and m.unify(args[2], t.args[n - 1]):
            yield
        return
    for i, a in enumerate(t.args, 1):
        mark = m.trail.mark()
        if m.unify(n, i) and m.unify(args[2], a):
            yield
        m.trail.undo(mark)


@det("=..", 2)
def univ(m: Machine, args: tuple[RTerm, ...]) -> bool:
    t = deref(args[0])
    c = ctx("=..", 2)
    if type(t) is Struct:
        lst = deref(args[1])
        if (
            type(lst) is not Ref
            and lst is not NIL
            and not (type(lst) is Struct and lst.name == "[|]" and len(lst.args) == 2)
        ):
            raise type_error("list", lst, c)
        name: RTerm = NIL if t.name == "[]" else Atom(t.name)
        return m.unify(lst, make_list([name, *t.args]))
    if type(t) is not Ref:
        lst = deref(args[1])
        if (
            type(lst) is not Ref
            and lst is not NIL
            and not (type(lst) is Struct and lst.name == "[|]" and len(lst.args) == 2)
        ):
            raise type_error("list", lst, c)
        return m.unify(lst, make_list([t]))
    items, tail = list_or_partial(m, args[1])
    if type(tail) is Ref:
        raise instantiation_error(c)
    if tail is not NIL:
        raise type_error("list", deref(args[1]), c)
    if not items:
        raise domain_error("non_empty_list", NIL, c)
    head = deref(items[0])
    if type(head) is Ref:
        raise instantiation_error(c)
    if len(items) == 1:
        if type(head) not in _ATOMIC:
            raise type_error("atomic", head, c)
        return m.unify(t, head)
    if type(head) is not Atom:
        raise type_error("atom", head, c)
    return m.unify(t, Struct(_name_of(head), tuple(items[1:])))


def copy_term(m: Machine, term: RTerm) -> RTerm:
    """A copy of ``term`` with fresh variables (shared ones stay shared, a
    cyclic term gives a cyclic copy); refuses one that does not fit
    in the memory budget (``check_cells``)."""

    def tick(cells: int) -> None:
        m.check_limits()
        check_cells(m, cells)

    return copy_graph(term, None, tick)


@det("copy_term", 2)
def copy_term_(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return m.unify(args[1], copy_term(m, args[0]))


def term_variables(m: Machine, term: RTerm) -> list[RTerm]:
    """Distinct unbound variables of ``term``, depth-first, left to right.

    Each compound is walked once (SWI marks visited compounds), so a cyclic
    term ends and a shared subterm is not walked again.
    """
    seen: set[int] = set()
    walked: set[int] = set()
    out: list[RTerm] = []
    stack = [term]
    n = 0
    while stack:
        t = deref(stack.pop())
        if type(t) is Ref:
            if t.id not in seen:
                seen.add(t.id)
                out.append(t)
        elif type(t) is Struct:
            key = id(t)
            if key in walked:
                continue
            walked.add(key)
            stack.extend(reversed(t.args))
            n += 1
            if n % CHECK_EVERY == 0:
                m.check_limits()
    return out


@det("term_variables", 2)
def term_variables_(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return m.unify(args[1], make_list(term_variables(m, args[0])))
