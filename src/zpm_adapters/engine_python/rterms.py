"""Operations on runtime terms the solver needs: copying, variables, sorting.

All are iterative (explicit stacks), so long lists and deep terms are safe,
and all but :func:`resolve` (which builds domain terms) end on cyclic terms.
The standard order is the built-ins' (``builtins.order.compare_terms``), so
bagof/setof group and sort exactly as ``sort/2`` and ``keysort/2`` do.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cmp_to_key
from typing import Any, cast

from zpm_adapters.engine_python.builtins.copying import copy_term
from zpm_adapters.engine_python.builtins.cycles import is_acyclic
from zpm_adapters.engine_python.builtins.order import compare_terms as compare
from zpm_adapters.engine_python.runtime import Ref, RTerm, Trail
from zpm_domain.errors import AnswersTooLarge, CyclicAnswer, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var


class AnswerBudget:
    """What is left of a solve's answer limits: ``cells`` (compound terms,
    and 64-bit words of big integers: ``limits.max_answer_cells``) and
    ``chars`` (characters of atoms, strings and functor names other than
    the list cell's: ``limits.max_answer_chars``)."""

    __slots__ = ("cells", "chars")

    def __init__(self, limits: Limits) -> None:
        self.cells = limits.max_answer_cells
        self.chars = limits.max_answer_chars


def resolve(term: RTerm, leaf: Callable[[Ref], Any], budget: AnswerBudget | None = None) -> Any:
    """``term`` with every binding resolved and each unbound ``Ref`` replaced by ``leaf(ref)``.

    Raises ``CyclicAnswer(None)`` for a cyclic term (``X = f(X)``), which
    has no finite copy.  With a ``budget`` (shared between calls), the size
    of ``term`` is charged to it first (:func:`charge_answer_size`), and
    nothing is built when it does not fit.
    """
    if budget is not None:
        charge_answer_size(term, budget)  # within the budget: acyclic
    values: list[Any] = []
    stack: list[tuple[Any, bool]] = [(term, False)]
    open_ids: set[int] | None = set() if budget is None else None
    while stack:
        t, done = stack.pop()
        if done:
            if open_ids is not None:
                open_ids.discard(id(t))
            n = len(t.args)
            args = tuple(values[len(values) - n :])
            del values[len(values) - n :]
            values.append(Struct(t.name, args))
            continue
        while type(t) is Ref:
            if t.ref is None:
                break
            t = t.ref
        tt = type(t)
        if tt is Struct:
            if open_ids is not None:
                if id(t) in open_ids:
                    raise CyclicAnswer(None)
                open_ids.add(id(t))
            stack.append((t, True))
            stack.extend((a, False) for a in reversed(t.args))
        elif tt is Ref:
            values.append(leaf(t))
        else:
            values.append(t)
    return values[0]


def charge_answer_size(term: RTerm, budget: AnswerBudget) -> None:
    """Charge the size of the answer value ``term`` to ``budget``, as
    SWI-Prolog's engines count it (zpm_support.pl, ``answer_size/5``), over
    its unfolding: a cell per compound term (list cells included) and per 64
    bits of an integer of 64 bits or more; a character per character of an
    atom, a string, or a functor name other than ``'[|]'``.  Either below
    zero: ``AnswersTooLarge``, or ``CyclicAnswer(None)`` when ``term`` is
    cyclic (whose unfolding never fits), and ``budget`` is left as it was.
    The walk builds nothing and visits at most ``budget.cells + 1``
    compound terms."""
    cells, chars = budget.cells, budget.chars
    stack = [term]
    pop, push = stack.pop, stack.extend
    while stack:
        t = pop()
        while type(t) is Ref:
            if t.ref is None:
                break
            t = t.ref
        if type(t) is Struct:
            cells -= 1
            if t.name != "[|]" or len(t.args) != 2:
                chars -= len(t.name)
            if cells < 0 or chars < 0:
                raise _too_large(term)
            push(t.args)
        elif type(t) is Atom:
            if t is not NIL:
                chars -= len(t.name)
                if chars < 0:
                    raise _too_large(term)
        elif type(t) is String:
            chars -= len(t.value)
            if chars < 0:
                raise _too_large(term)
        elif type(t) is int and not -_BIG < t < _BIG:
            cells -= abs(t).bit_length() >> 6
            if cells < 0:
                raise _too_large(term)
    budget.cells, budget.chars = cells, chars


_BIG = 2**63
"""Integers of 64 bits or more count against an answer's size."""


def _too_large(term: RTerm) -> ZpmError:
    """The error of an answer ``term`` that does not fit in its budget."""
    return AnswersTooLarge() if is_acyclic(term) else CyclicAnswer(None)


def copy_resolved(term: RTerm, mapping: dict[int, Ref] | None = None) -> RTerm:
    """A copy of ``term`` with every binding resolved and fresh unbound variables.

    The copy shares no variable with ``term`` (``copy_term/2`` without
    attributes) and keeps its graph: a cyclic term gives a cyclic copy (see
    ``builtins.copying``).  ``mapping`` (``id(old Ref) -> new Ref``) may be
    shared between calls to keep variables of several copies linked.
    """
    return copy_term(term, mapping)


def to_answer(term: RTerm, names: dict[int, Var], budget: AnswerBudget | None = None) -> Term:
    """The domain term of an answer; each unbound ``Ref`` becomes one anonymous ``Var``
    (the same ``Var`` for the same cell, tracked in ``names``).  ``budget``
    bounds the compound terms copied, as in :func:`resolve`."""

    def leaf(ref: Ref) -> Var:
        var = names.get(ref.id)
        if var is None:
            var = names[ref.id] = Var(None)
        return var

    return cast(Term, resolve(term, leaf, budget))


def is_ground(term: RTerm) -> bool:
    stack = [term]
    seen: set[int] = set()
    while stack:
        t = stack.pop()
        while type(t) is Ref:
            if t.ref is None:
                return False
            t = t.ref
        if type(t) is Struct and id(t) not in seen:
            seen.add(id(t))
            stack.extend(t.args)
    return True


class GuardedTrail(Trail):
    """A trail whose ``guard`` (the solve's limit check) long unifications call."""

    __slots__ = ("guard",)

    def __init__(self, guard: Callable[[], None]) -> None:
        super().__init__()
        self.guard = guard


def term_vars(term: RTerm, out: list[Ref], seen: set[int]) -> None:
    """Append the unbound variables of ``term`` not in ``seen`` (depth-first, left to right).

    ``seen`` also records visited compound terms, so a cyclic term ends.
    """
    stack = [term]
    while stack:
        t = stack.pop()
        while type(t) is Ref:
            if t.ref is None:
                break
            t = t.ref
        if id(t) in seen:
            continue
        if type(t) is Ref:
            seen.add(id(t))
            out.append(t)
        elif type(t) is Struct:
            seen.add(id(t))
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
