"""Clause templates: terms with numbered variable slots, instantiated per call.

A stored clause is compiled once into templates (see ``compiler``):

* :class:`Slot` — the clause variable number ``i``;
* :class:`TStruct` — a compound term that contains variables;
* anything else — a constant: an atomic term, a *ground* compound term
  (shared, never copied) or, in code compiled from a runtime goal, a runtime
  term (its ``Ref`` variables are shared with the caller).

Calling a clause gives it a fresh slot array (``[None] * nvars``).  Head
unification (:func:`unify_head`) matches templates directly against the
call's arguments: the first occurrence of a variable just takes the
argument, so most head variables never become ``Ref`` cells; a template is
only *built* (:func:`build`) when it has to be bound to an unbound argument.

All functions are iterative: a 1,000,000-element list or a term nested
100,000 deep in a clause costs no Python recursion.
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python.runtime import Ref, RTerm, Trail, unify
from zpm_domain.prolog.terms import String, Struct, Term, Var

Slots = list[Any]


class Slot:
    """Clause variable number ``i``."""

    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i

    def __repr__(self) -> str:
        return f"Slot({self.i})"


class TStruct:
    """A compound template ``name(args...)`` that contains at least one :class:`Slot`.

    ``flat`` is true when no argument is itself a :class:`TStruct`.
    """

    __slots__ = ("name", "args", "n", "flat")

    def __init__(self, name: str, args: tuple[Any, ...]) -> None:
        self.name = name
        self.args = args
        self.n = len(args)
        self.flat = not any(type(a) is TStruct for a in args)

    def __repr__(self) -> str:
        return f"TStruct({self.name!r}, {self.args!r})"


def to_template(term: Term, varmap: dict[int, int]) -> Any:
    """Template of a domain term; ``varmap`` numbers variables (``id(Var) -> slot``)."""
    if isinstance(term, Var):
        return Slot(slot_of(term, varmap))
    if not isinstance(term, Struct) or _ground(term):
        return term
    values: list[Any] = []
    stack: list[tuple[Term, bool]] = [(term, False)]
    while stack:
        t, done = stack.pop()
        if isinstance(t, Struct):
            if done:
                n = len(t.args)
                args = tuple(values[len(values) - n :])
                del values[len(values) - n :]
                if any(type(a) is Slot or type(a) is TStruct for a in args):
                    values.append(TStruct(t.name, args))
                else:
                    values.append(t)  # ground: shared as it is
            else:
                stack.append((t, True))
                stack.extend((a, False) for a in reversed(t.args))
        elif isinstance(t, Var):
            values.append(Slot(slot_of(t, varmap)))
        else:
            values.append(t)
    return values[0]


def _ground(term: Term) -> bool:
    stack = [term]
    pop, push = stack.pop, stack.extend
    while stack:
        t = pop()
        if type(t) is Struct:
            push(t.args)
        elif type(t) is Var:
            return False
    return True


def slot_of(var: Var, varmap: dict[int, int]) -> int:
    """The slot number of clause variable ``var`` (numbered on first sight)."""
    i = varmap.get(id(var))
    if i is None:
        i = varmap[id(var)] = len(varmap)
    return i


def build(t: Any, slots: Slots) -> RTerm:
    """Instantiate template ``t`` with ``slots`` (unset slots get new ``Ref`` cells)."""
    tt = type(t)
    if tt is Slot:
        v = slots[t.i]
        if v is None:
            v = slots[t.i] = Ref()
        return v  # type: ignore[no-any-return]
    if tt is not TStruct:
        return t  # type: ignore[no-any-return]
    if t.flat:
        out = []
        for a in t.args:
            if type(a) is Slot:
                v = slots[a.i]
                if v is None:
                    v = slots[a.i] = Ref()
                out.append(v)
            else:
                out.append(a)
        return Struct(t.name, tuple(out))
    return _build_deep(t, slots)


def _build_deep(t: TStruct, slots: Slots) -> RTerm:
    # Post-order with an explicit stack: children are built before parents.
    values: list[RTerm] = []
    stack: list[tuple[Any, bool]] = [(t, False)]
    while stack:
        node, done = stack.pop()
        tn = type(node)
        if tn is TStruct:
            if done:
                n = node.n
                args = tuple(values[len(values) - n :])
                del values[len(values) - n :]
                values.append(Struct(node.name, args))
            else:
                stack.append((node, True))
                stack.extend((a, False) for a in reversed(node.args))
        elif tn is Slot:
            v = slots[node.i]
            if v is None:
                v = slots[node.i] = Ref()
            values.append(v)
        else:
            values.append(node)
    return values[0]


def build_args(tmpls: tuple[Any, ...], slots: Slots) -> tuple[RTerm, ...]:
    """Instantiate the argument templates of a body goal.

    In a running body every slot is set (head variables by head unification,
    the others when the body starts), so slots are read directly.
    """
    out: list[RTerm] = []
    for t in tmpls:
        tt = type(t)
        if tt is Slot:
            out.append(slots[t.i])
        elif tt is TStruct:
            out.append(build(t, slots))
        else:
            out.append(t)
    return tuple(out)


def unify_head(heads: tuple[Any, ...], args: tuple[RTerm, ...], slots: Slots, trail: Trail) -> bool:
    """Unify head argument templates with call arguments, filling ``slots``.

    Bindings of call variables are recorded on ``trail``; on failure the
    caller undoes them.
    """
    cells = trail.cells
    stack: list[tuple[Any, RTerm]] | None = None
    i = 0
    n = len(heads)
    while True:
        # Finish an argument's subterms before the next argument, so that a
        # variable is taken from the call before a later occurrence is built.
        if stack:
            t, a = stack.pop()
        elif i < n:
            t = heads[i]
            a = args[i]
            i += 1
        else:
            return True
        tt = type(t)
        if tt is Slot:
            v = slots[t.i]
            if v is None:
                slots[t.i] = a
            elif v is not a and not unify(trail, v, a):
                return False
            continue
        while type(a) is Ref:
            r = a.ref
            if r is None:
                break
            a = r
        ta = type(a)
        if tt is TStruct:
            if ta is Struct:
                aargs = a.args  # type: ignore[union-attr]
                if a.name != t.name or len(aargs) != t.n:  # type: ignore[union-attr]
                    return False
                if not t.flat:
                    if stack is None:
                        stack = []
                    stack.extend(zip(t.args, aargs, strict=True))
                    continue
                for st, sa in zip(t.args, aargs, strict=True):
                    if type(st) is Slot:
                        v = slots[st.i]
                        if v is None:
                            slots[st.i] = sa
                        elif v is not sa and not unify(trail, v, sa):
                            return False
                        continue
                    while type(sa) is Ref and sa.ref is not None:
                        sa = sa.ref
                    if sa is st:
                        continue
                    if type(sa) is Ref:
                        sa.ref = st
                        cells.append(sa)
                    elif not unify(trail, st, sa):
                        return False
            elif ta is Ref:
                a.ref = build(t, slots)  # type: ignore[union-attr]
                cells.append(a)  # type: ignore[arg-type]
            else:
                return False
            continue
        if a is t:
            continue
        if ta is Ref:
            a.ref = t  # type: ignore[union-attr]
            cells.append(a)  # type: ignore[arg-type]
        elif ta is not tt:
            return False
        elif tt is Struct:
            if not unify(trail, t, a):
                return False
        elif tt is String:
            if t.value != a.value:  # type: ignore[union-attr]
                return False
        elif tt is float:
            if not (t == a or (t != t and a != a)):
                return False
        elif t != a:
            return False
