"""Operations on runtime terms the solver needs: copying, variables, sorting.

All are iterative (explicit stacks), so long lists and deep terms are safe.
The standard order is the built-ins' (``builtins.order.compare_terms``), so
bagof/setof group and sort exactly as ``sort/2`` and ``keysort/2`` do.
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any, cast

from zpm_adapters.engine_python.builtins.order import compare_terms as compare
from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.terms import Struct


def rstruct(name: str, args: tuple[RTerm, ...]) -> Struct:
    """A runtime compound term (``Struct`` typed for domain terms holds runtime ones too)."""
    return Struct(name, cast("tuple[Any, ...]", args))


def copy_resolved(term: RTerm, mapping: dict[int, Ref] | None = None) -> RTerm:
    """A copy of ``term`` with every binding resolved and fresh unbound variables.

    The copy shares no variable with ``term`` (``copy_term/2`` without
    attributes); ``mapping`` (``id(old Ref) -> new Ref``) may be shared
    between calls to keep variables of several copies linked.
    """
    if mapping is None:
        mapping = {}
    values: list[RTerm] = []
    stack: list[tuple[Any, bool]] = [(term, False)]
    while stack:
        t, done = stack.pop()
        if done:
            n = len(t.args)
            args = tuple(values[len(values) - n :])
            del values[len(values) - n :]
            values.append(rstruct(t.name, args))
            continue
        while type(t) is Ref:
            if t.ref is None:
                break
            t = t.ref
        tt = type(t)
        if tt is Struct:
            stack.append((t, True))
            stack.extend((a, False) for a in reversed(t.args))
        elif tt is Ref:
            new = mapping.get(id(t))
            if new is None:
                new = mapping[id(t)] = Ref()
            values.append(new)
        else:
            values.append(t)
    return values[0]


def is_ground(term: RTerm) -> bool:
    stack = [term]
    while stack:
        t = stack.pop()
        while type(t) is Ref:
            if t.ref is None:
                return False
            t = t.ref
        if type(t) is Struct:
            stack.extend(t.args)
    return True


def term_vars(term: RTerm, out: list[Ref], seen: set[int]) -> None:
    """Append the unbound variables of ``term`` not in ``seen`` (depth-first, left to right)."""
    stack = [term]
    while stack:
        t = stack.pop()
        while type(t) is Ref:
            if t.ref is None:
                break
            t = t.ref
        if type(t) is Ref:
            if id(t) not in seen:
                seen.add(id(t))
                out.append(t)
        elif type(t) is Struct:
            stack.extend(reversed(t.args))


sort_key = cmp_to_key(compare)
"""``key=`` function that sorts runtime terms in standard order."""


def sort_unique(items: list[RTerm]) -> list[RTerm]:
    """Sort in standard order and drop duplicates (``sort/2``)."""
    out: list[RTerm] = []
    for item in sorted(items, key=sort_key):
        if not out or compare(out[-1], item) != 0:
            out.append(item)
    return out
