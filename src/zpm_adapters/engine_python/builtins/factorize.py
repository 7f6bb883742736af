"""How SWI-Prolog writes a cyclic term: ``@(Template, Substitutions)``.

``write/1`` and friends (option ``cycles(true)``, the default) write a
cyclic term ``T`` as the acyclic term ``@(Template, [S_1=V1, ...])``
(``pl-write.c``, ``writeTopTerm``), built in two steps:

1. ``'$factorize_term'(T, Template, Factors)`` (``pl-prims.c``): walk ``T``
   depth-first, left to right, once per compound; every compound reached a
   second time becomes a variable, listed in the order of those second
   visits.  ``Template`` is ``T`` and each factor the compound, with every
   such compound replaced by its variable.
2. ``reunify_acyclic_substitutions``: in list order, a factor whose variable
   does not occur in its value is unified back into place; the others are
   the cycles, numbered ``'$VAR'(-1)``, ``'$VAR'(-2)`` ... (written ``S_1``,
   ``S_2`` ...) when the writer numbers variables.

So ``X = f(X)`` is written ``@(S_1,[S_1=f(S_1)])`` and ``X = f(Y, Y), Y =
g(Y)`` is written ``@(f(S_1,S_1),[S_1=g(S_1)])``.  Everything is iterative.
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python.runtime import Ref, RTerm, pl_list
from zpm_domain.prolog.terms import Struct


def _deref(t: RTerm) -> RTerm:
    while type(t) is Ref and t.ref is not None:
        t = t.ref
    return t


def _shared(term: RTerm) -> list[Struct]:
    """The compounds of ``term`` reached twice, in the order of their second visit."""
    seen: set[int] = set()
    found: set[int] = set()
    order: list[Struct] = []
    stack = [term]
    while stack:
        t = _deref(stack.pop())
        if type(t) is Struct:
            key = id(t)
            if key not in seen:
                seen.add(key)
                stack.extend(reversed(t.args))
            elif key not in found:
                found.add(key)
                order.append(t)
    return order


def _rebuild(term: RTerm, names: dict[int, Ref]) -> RTerm:
    """``term`` with every compound in ``names`` replaced by its variable.

    Only compounds met once are copied, so the walk is finite.
    """
    values: list[Any] = []
    stack: list[tuple[Any, bool]] = [(term, False)]
    while stack:
        t, done = stack.pop()
        if done:
            n = len(t.args)
            values[len(values) - n :] = [Struct(t.name, tuple(values[len(values) - n :]))]
            continue
        t = _deref(t)
        if type(t) is Struct:
            var = names.get(id(t))
            if var is not None:
                values.append(var)
            else:
                stack.append((t, True))
                stack.extend((a, False) for a in reversed(t.args))
        else:
            values.append(t)
    result: RTerm = values[0]
    return result


def _occurs(var: Ref, term: RTerm) -> bool:
    seen: set[int] = set()
    stack = [term]
    while stack:
        t = _deref(stack.pop())
        if t is var:
            return True
        if type(t) is Struct and id(t) not in seen:
            seen.add(id(t))
            stack.extend(t.args)
    return False


def factorized(term: RTerm, numbervars: bool = True) -> RTerm:
    """The acyclic term ``@(Template, Cycles)`` SWI-Prolog writes for the cyclic ``term``.

    The variables of the cycles are bound to ``'$VAR'(-N)`` when
    ``numbervars`` is true, and left unbound otherwise.  The variables are
    fresh; ``term`` itself is not changed.
    """
    shared = _shared(term)
    names = {id(node): Ref() for node in shared}
    factors = [
        (names[id(node)], Struct(node.name, tuple(_rebuild(a, names) for a in node.args)))
        for node in shared
    ]
    template = _rebuild(term, names)
    cycles: list[RTerm] = []
    for var, value in factors:
        if _occurs(var, value):
            cycles.append(Struct("=", (var, value)))
            if numbervars:
                var.ref = Struct("$VAR", (-len(cycles),))
        else:
            var.ref = value
    return Struct("@", (template, pl_list(cycles)))
