"""Evaluation of arithmetic expressions, iteratively.

Like SWI-Prolog, arguments are evaluated right to left and a functor is
looked up only after its arguments were evaluated: ``X is foo(a)`` reports
``type_error(evaluable, a/0)``, ``X is a + b`` reports ``b/0``.

Besides numbers, compound functions and the constants of
:data:`arith_funcs.CONSTANTS`, an expression may be a one-character string
(``"a"``) or a one-element list holding a character or a code (``[a]``,
``[0'a]``), both evaluating to the character code.

A cyclic expression (``X = X + 1, Y is X``) would be walked forever; as in
SWI-Prolog, once 1024 compound sub-expressions have been met the whole
expression is checked, and a cyclic one is a ``type_error(expression, E)``
whose context carries the message ``'cyclic term'``.
"""

from __future__ import annotations

from typing import Any, cast

from zpm_adapters.engine_python.builtins import arith_float, arith_ints  # noqa: F401
from zpm_adapters.engine_python.builtins._support import CHECK_EVERY, Machine, Where
from zpm_adapters.engine_python.builtins.arith_funcs import CONSTANTS, FUNCTIONS, Num
from zpm_adapters.engine_python.builtins.arith_sizes import ALWAYS, IntegerRefused
from zpm_adapters.engine_python.builtins.cycles import is_acyclic
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    instantiation_error,
    pi_term,
    type_error,
)
from zpm_domain.errors import MemoryLimitExceeded
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

_ONE_CHAR = Atom('"x" must hold one character')
_CYCLIC = Atom("cyclic term")
CYCLE_CHECK_AT = 1024
"""Compound sub-expressions evaluated before the expression is checked for a
cycle (SWI-Prolog checks once, at the 1024th)."""
MAX_CODE = 0x10FFFF


class _Apply:
    __slots__ = ("name", "arity")

    def __init__(self, name: str, arity: int) -> None:
        self.name = name
        self.arity = arity


def _text_error(culprit: RTerm, pctx: Where) -> Exception:
    formal = Struct("type_error", (NIL, culprit))
    where = Struct("context", (pctx.ctx().args[0], _ONE_CHAR))
    return PrologThrow(Struct("error", (formal, where)))


def _char_list_value(t: Struct, pctx: Where) -> int:
    tail = t.args[1]
    while type(tail) is Ref and tail.ref is not None:
        tail = tail.ref
    if tail is not NIL:
        raise _text_error(t, pctx)
    head = t.args[0]
    while type(head) is Ref and head.ref is not None:
        head = head.ref
    if type(head) is Ref:
        raise instantiation_error(pctx.ctx())
    if type(head) is int and 0 <= head <= MAX_CODE:
        return head
    if type(head) is Atom and head is not NIL and len(head.name) == 1:
        return ord(head.name)
    raise type_error("character", head, pctx.ctx())


def _cyclic_error(expr: RTerm, pctx: Where) -> Exception:
    formal = Struct("type_error", (Atom("expression"), expr))
    where = Struct("context", (pctx.ctx().args[0], _CYCLIC))
    return PrologThrow(Struct("error", (formal, where)))


def _leaf(t: RTerm, pctx: Where) -> Num:
    """Value of a non-compound expression."""
    tt = type(t)
    if tt is Ref:
        raise instantiation_error(pctx.ctx())
    if tt is Atom:
        if t is NIL:
            raise type_error("evaluable", t, pctx.ctx())
        name = cast(Atom, t).name
        value = CONSTANTS.get(name)
        if value is None:
            raise type_error("evaluable", pi_term(name, 0), pctx.ctx())
        return value
    if tt is String:
        if len(t.value) != 1:  # type: ignore[union-attr]
            raise _text_error(t, pctx)
        return ord(t.value)  # type: ignore[union-attr]
    return t  # type: ignore[return-value]


def _shallow(t: Struct, pctx: Where) -> Num | None:
    """``F(N)`` or ``F(N, M)`` with numbers as arguments, without a work stack."""
    args = t.args
    if len(args) > 2:
        return None
    values = []
    for a in reversed(args):
        while type(a) is Ref and a.ref is not None:
            a = a.ref
        if type(a) is not int and type(a) is not float:
            return None
        values.append(a)
    fn = FUNCTIONS.get((t.name, len(args)))
    if fn is None:
        return None
    return fn(tuple(reversed(values)), pctx)


def evaluate(m: Machine, expr: RTerm, pctx: Where) -> Num:
    """The value of ``expr``; errors carry ``pctx`` (the calling predicate's context).

    An integer operation SWI-Prolog refuses raises ``IntegerTooLarge``, or
    ``MemoryLimitExceeded`` when SWI-Prolog's estimate of its result exceeds
    the call's memory (see ``arith_sizes``)."""
    try:
        return _evaluate(m, expr, pctx)
    except IntegerRefused as refused:
        over = refused.stack_bytes
        if over is not None and (over == ALWAYS or over > m.limits.max_memory_bytes):
            raise MemoryLimitExceeded(m.limits) from None
        raise


def _evaluate(m: Machine, expr: RTerm, pctx: Where) -> Num:
    t = expr
    while type(t) is Ref and t.ref is not None:
        t = t.ref
    tt = type(t)
    if tt is int or tt is float:
        return t  # type: ignore[return-value]
    if tt is not Struct:
        return _leaf(t, pctx)
    quick = _shallow(t, pctx)  # type: ignore[arg-type]
    if quick is not None:
        return quick
    values: list[Num] = []
    work: list[Any] = [t]
    steps = 0
    while work:
        item = work.pop()
        if type(item) is _Apply:
            n = item.arity
            args = tuple(values[-1 : -n - 1 : -1])
            del values[-n:]
            fn = FUNCTIONS.get((item.name, n))
            if fn is None:
                raise type_error("evaluable", pi_term(item.name, n), pctx.ctx())
            values.append(fn(args, pctx))
            continue
        while type(item) is Ref and item.ref is not None:
            item = item.ref
        ti = type(item)
        if ti is int or ti is float:
            values.append(item)
        elif ti is Struct:
            if item.name == "[|]" and len(item.args) == 2:
                values.append(_char_list_value(item, pctx))
                continue
            steps += 1
            if steps % CHECK_EVERY == 0:
                m.check_limits()
            if steps == CYCLE_CHECK_AT and not is_acyclic(expr, m):
                raise _cyclic_error(expr, pctx)
            work.append(_Apply(item.name, len(item.args)))
            work.extend(item.args)
        else:
            values.append(_leaf(item, pctx))
    return values[0]


def compare_values(x: Num, y: Num) -> int | None:
    """Arithmetic comparison: -1, 0, 1, or ``None`` when a NaN is involved.

    An int and a float are compared as floats (SWI-Prolog), a big int
    beyond the float range as an infinity.
    """
    if type(x) is int and type(y) is int:
        return (x > y) - (x < y)
    from zpm_adapters.engine_python.builtins.order import int_to_float

    fx = x if type(x) is float else int_to_float(x)  # type: ignore[arg-type]
    fy = y if type(y) is float else int_to_float(y)  # type: ignore[arg-type]
    if fx != fx or fy != fy:
        return None
    return (fx > fy) - (fx < fy)
