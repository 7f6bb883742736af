"""List built-ins implemented in Python: ``length/2``, ``memberchk/2``,
``sum_list/2``, ``max_list/2``, ``min_list/2``, ``numlist/3``.

The remaining list library (``append/3``, ``member/2``, ``nth0/3`` ...) is
written in Prolog.  Errors are the ones SWI-Prolog 9 raises, including those
of its library definitions (``sum_list([1|_], S)`` raises
``existence_error(matching_rule, lists:sum_list(_, 1, _))``).
"""

from __future__ import annotations

from collections.abc import Iterator

from zpm_adapters.engine_python.builtins._support import (
    CHECK_EVERY,
    LIST_CELL_WORDS,
    FreshVariables,
    Machine,
    Where,
    bare_ctx,
    build_list,
    check_cells,
    list_extent,
    make_list,
)
from zpm_adapters.engine_python.builtins.arith import evaluate
from zpm_adapters.engine_python.builtins.arith_funcs import FUNCTIONS
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    deref,
    det,
    domain_error,
    existence_error,
    nondet,
    type_error,
)
from zpm_domain.prolog.terms import NIL, Atom, Struct


def _length_int(t: RTerm) -> int | None:
    if type(t) is Ref:
        return None
    if type(t) is not int:
        raise type_error("integer", t, bare_ctx("length", 2))
    if t < 0:
        raise domain_error("not_less_than_zero", t, bare_ctx("length", 2))
    return t


@nondet("length", 2)
def length(m: Machine, args: tuple[RTerm, ...]) -> Iterator[None]:
    lst, n_t = args[0], deref(args[1])
    n = _length_int(n_t)
    known, tail = list_extent(m, lst)
    if tail is not NIL and type(tail) is not Ref:
        raise type_error("list", deref(lst), bare_ctx("length", 2))
    if tail is NIL:
        if n is None or n == known:
            if m.unify(n_t, known):
                yield
        return
    if tail is n_t:
        return
    if n is not None:
        if n >= known:
            if m.unify(tail, build_list(m, FreshVariables(n - known))):
                yield
        return
    extra = 0
    while True:
        check_cells(m, LIST_CELL_WORDS * extra)
        mark = m.trail.mark()
        if m.unify(tail, make_list([Ref() for _ in range(extra)])) and m.unify(n_t, known + extra):
            yield
        m.trail.undo(mark)
        extra += 1
        if extra % CHECK_EVERY == 0:
            m.check_limits()


_MEMBERCHK_CTX = Struct(":", (Atom("system"), Struct("/", (Atom("$memberchk"), 3))))


@det("memberchk", 2)
def memberchk(m: Machine, args: tuple[RTerm, ...]) -> bool:
    """Like ``once(member(X, L))``; an unbound tail is extended with ``[X|_]``.

    A cyclic list whose elements all fail to unify is a
    ``type_error(list, L)`` (SWI-Prolog gives up the same way, later).
    """
    x = deref(args[0])
    simple = type(x) is Atom or type(x) is int
    t = deref(args[1])
    n = 0
    mark: RTerm | None = None
    next_mark = 1
    while True:
        if type(t) is Ref:
            return m.unify(t, Struct("[|]", (x, Ref())))
        if not (type(t) is Struct and t.name == "[|]" and len(t.args) == 2) or t is mark:
            if t is NIL:
                return False
            culprit = deref(args[1]) if t is mark else t
            raise type_error("list", culprit, Struct("context", (_MEMBERCHK_CTX, Ref())))
        n += 1
        if n == next_mark:  # Brent: a cyclic list comes back to the mark
            mark, next_mark = t, 2 * next_mark
        if n % CHECK_EVERY == 0:
            m.check_limits()
        head = t.args[0]
        if simple:
            while type(head) is Ref and head.ref is not None:
                head = head.ref
            if head is x or (type(head) is int and head == x and type(x) is int):
                return True
            if type(head) is not Ref and type(head) is not Struct:
                t = deref(t.args[1])
                continue
        trail_mark = m.trail.mark()
        if m.unify(x, head):
            return True
        m.trail.undo(trail_mark)
        t = deref(t.args[1])


def _matching_rule(name: str, *args: RTerm) -> PrologThrow:
    """SWI's error when no ``=>`` rule of ``lists:name`` matches its arguments."""
    goal = Struct(":", (Atom("lists"), Struct(name, args)))
    where = Struct(":", (Atom("lists"), Struct("/", (Atom(name), len(args)))))
    return existence_error("matching_rule", goal, Struct("context", (where, Ref())))


_IS = Where("is", 2)


def _fold(m: Machine, name: str, t: RTerm, acc: RTerm, fn: str | None, result: RTerm) -> RTerm:
    """``name(List, Acc, R)`` of SWI's library, folding with ``fn`` (None = +).

    Each step is ``Acc1 is Acc + X`` (sum) or ``Acc1 is fn(X, Acc)``; numbers
    take a direct path, anything else is evaluated as an expression.
    """
    pctx = _IS
    apply = FUNCTIONS[(fn or "+", 2)]
    t = deref(t)
    n = 0
    while True:
        if t is NIL:
            return acc
        if not (type(t) is Struct and t.name == "[|]" and len(t.args) == 2):
            raise _matching_rule(name, t, acc, result)
        head = deref(t.args[0])
        if (type(head) is int or type(head) is float) and (type(acc) is int or type(acc) is float):
            acc = apply((acc, head) if fn is None else (head, acc), pctx)
        else:
            expr = Struct("+", (acc, head)) if fn is None else Struct(fn, (head, acc))
            acc = evaluate(m, expr, pctx)
        t = deref(t.args[1])
        n += 1
        if n % CHECK_EVERY == 0:
            m.check_limits()


@det("sum_list", 2)
def sum_list(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return m.unify(args[1], _fold(m, "sum_list", args[0], 0, None, args[1]))


@det("sumlist", 2)
def sumlist(m: Machine, args: tuple[RTerm, ...]) -> bool:
    return m.unify(args[1], _fold(m, "sum_list", args[0], 0, None, args[1]))


def _extreme(name: str, fn: str) -> None:
    def extreme(m: Machine, args: tuple[RTerm, ...]) -> bool:
        t = deref(args[0])
        if not (type(t) is Struct and t.name == "[|]" and len(t.args) == 2):
            if t is NIL:
                return False
            raise _matching_rule(name, t, args[1])
        return m.unify(args[1], _fold(m, name, t.args[1], t.args[0], fn, args[1]))

    extreme.__name__ = name
    det(name, 2)(extreme)


_extreme("max_list", "max")
_extreme("min_list", "min")


@det("numlist", 3)
def numlist(m: Machine, args: tuple[RTerm, ...]) -> bool:
    bounds: list[int] = []
    for t in (deref(args[0]), deref(args[1])):
        if type(t) is Ref:
            raise PrologThrow(Struct("error", (Atom("instantiation_error"), Ref())))
        if type(t) is not int:
            raise PrologThrow(Struct("error", (Struct("type_error", (Atom("integer"), t)), Ref())))
        bounds.append(t)
    low, high = bounds
    if low > high:
        return False
    return m.unify(args[2], build_list(m, range(low, high + 1)))
