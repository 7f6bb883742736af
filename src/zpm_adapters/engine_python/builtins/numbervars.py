"""``numbervars/3``, as SWI-Prolog 9 implements it (``numbervars/4`` with no options).

``numbervars(Term, Start, End)`` binds the free variables of ``Term``,
depth-first and left to right, to ``'$VAR'(Start)``, ``'$VAR'(Start+1)``
... and unifies ``End`` with the next number.  Each compound is walked once,
so a cyclic term ends (``X = f(X, Y), numbervars(X, 0, E)`` gives
``E = 1``).  A ``'$VAR'(A)`` already in the term is walked only when ``A``
is a variable or a compound (so ``numbervars('$VAR'(X), 0, 1)`` binds
``X``); the ``'$VAR'`` terms made by this call are never walked.

Errors (context ``system:numbervars/4``): an unbound ``Start`` is an
``instantiation_error``; ``Start`` must be an integer or an integral float
that fits 64 bits (``type_error(integer, Start)``; a larger integer is a
``representation_error(long)``); ``Start`` and every number given to a
variable must be a tagged integer, ``-2**56 .. 2**56-1``
(``representation_error(tagged_integer)``).  ``End`` is only unified: a
non-integer ``End`` fails.
"""

from __future__ import annotations

from zpm_adapters.engine_python.builtins._support import CHECK_EVERY, Machine
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    context,
    det,
    instantiation_error,
    representation_error,
    type_error,
)
from zpm_domain.prolog.terms import Struct

TAGGED_MIN = -(2**56)
TAGGED_MAX = 2**56 - 1
_INT64 = 2**63


def _start(t: RTerm) -> int:
    ctx = context("numbervars", 4)
    if type(t) is Ref:
        raise instantiation_error(ctx)
    if type(t) is float:
        if t != t or not -_INT64 <= t < _INT64 or t != int(t):
            raise type_error("integer", t, ctx)
        t = int(t)
    if type(t) is not int:
        raise type_error("integer", t, ctx)
    if not -_INT64 <= t < _INT64:
        raise representation_error("long", ctx)
    if not TAGGED_MIN <= t <= TAGGED_MAX:
        raise representation_error("tagged_integer", ctx)
    return t


def number_vars(m: Machine, term: RTerm, start: int) -> int:
    """Bind the free variables of ``term`` to ``'$VAR'(N)`` terms; the next ``N``."""
    n = start
    made: set[int] = set()
    walked: set[int] = set()
    trail = m.trail
    stack = [term]
    steps = 0
    while stack:
        t = stack.pop()
        while type(t) is Ref and t.ref is not None:
            t = t.ref
        if type(t) is Ref:
            if n > TAGGED_MAX:
                raise representation_error("tagged_integer", context("numbervars", 4))
            var = Struct("$VAR", (n,))
            made.add(id(var))
            trail.cells.append(t)
            t.ref = var
            n += 1
        elif type(t) is Struct:
            key = id(t)
            if key in made or key in walked:
                continue
            if t.name == "$VAR" and len(t.args) == 1:
                a = t.args[0]
                while type(a) is Ref and a.ref is not None:
                    a = a.ref
                if type(a) is not Ref and type(a) is not Struct:
                    continue
            walked.add(key)
            steps += 1
            if steps % CHECK_EVERY == 0:
                m.check_limits()
            stack.extend(reversed(t.args))
    return n


@det("numbervars", 3)
def numbervars(m: Machine, args: tuple[RTerm, ...]) -> bool:
    start = args[1]
    while type(start) is Ref and start.ref is not None:
        start = start.ref
    return m.unify(args[2], number_vars(m, args[0], _start(start)))
