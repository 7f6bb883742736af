"""Copying runtime terms with fresh variables: ``copy_term/2``, findall/bagof
copies, thrown balls.

The copy keeps the shape of the term's graph, as SWI-Prolog's
``copy_term/2`` does: a compound reached twice (shared, or on a cycle) is
copied once, so the copy of a cyclic term is cyclic (``X = f(X),
copy_term(X, Y)`` gives ``Y = f(Y)``) and the copy of a shared subterm is
shared.  Fresh variables are created in depth-first, left-to-right order,
so they keep the relative age (standard order) of the originals.
Iterative: no Python recursion per term depth.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.prolog.terms import Struct

TICK_EVERY = 4096
"""Compounds copied between two calls of the ``tick`` callback."""


class _Fill:
    """Work item: give the copy ``dst`` its last ``n`` computed arguments."""

    __slots__ = ("dst", "n")

    def __init__(self, dst: Struct, n: int) -> None:
        self.dst = dst
        self.n = n


def copy_term(
    term: RTerm,
    mapping: dict[int, Ref] | None = None,
    tick: Callable[[int], None] | None = None,
) -> RTerm:
    """A copy of ``term`` with every binding resolved and fresh unbound variables.

    ``mapping`` (``id(old Ref) -> new Ref``) may be shared between calls to
    keep the variables of several copies linked.  ``tick(n)``, when given,
    is called with the number of compounds copied so far every
    ``TICK_EVERY`` compounds (limit checks).
    """
    fresh: dict[int, Ref] = {} if mapping is None else mapping
    t = term
    while type(t) is Ref:
        r = t.ref
        if r is None:
            new = fresh.get(id(t))
            if new is None:
                new = fresh[id(t)] = Ref()
            return new
        t = r
    if type(t) is not Struct:
        return t
    copies: dict[int, Struct] = {}
    values: list[Any] = []
    stack: list[Any] = [t]
    pop, push = stack.pop, stack.append
    count = 0
    while stack:
        item = pop()
        if type(item) is _Fill:
            n = item.n
            item.dst.args = tuple(values[len(values) - n :])
            del values[len(values) - n :]
            continue
        while type(item) is Ref:
            r = item.ref
            if r is None:
                new = fresh.get(id(item))
                if new is None:
                    new = fresh[id(item)] = Ref()
                values.append(new)
                break
            item = r
        else:
            if type(item) is Struct:
                done = copies.get(id(item))
                if done is not None:
                    values.append(done)
                    continue
                dst = Struct(item.name, ())
                copies[id(item)] = dst
                values.append(dst)
                args = item.args
                push(_Fill(dst, len(args)))
                for i in range(len(args) - 1, -1, -1):
                    push(args[i])
                count += 1
                if tick is not None and count % TICK_EVERY == 0:
                    tick(count)
            else:
                values.append(item)
    return values[0]  # type: ignore[no-any-return]
