"""Exceptions in the solver: finding the catcher, unwinding, cleanups on the way.

As SWI-Prolog 9 (``B_THROW`` in ``pl-vmi.c``):

1. the ball is copied and the *target* is chosen: the innermost running
   ``catch/3`` whose catcher unifies with the ball in the bindings of the
   moment of the throw (a catcher variable bound by the goal counts);
2. the choicepoints above the target are removed from the top down; each
   pending ``setup_call_cleanup/3`` among them first runs its Cleanup, with
   the bindings undone to its start, as ``catch(Cleanup, E, true)``.  If
   the exception was raised inside its Goal and Cleanup raises a *more
   urgent* ball (:func:`urgency`), that ball goes on instead; otherwise
   what Cleanup did is ignored;
3. at the target, the bindings are undone to its start, the catcher is
   unified with the (maybe replaced) ball — a failure is ignored, the
   recovery runs all the same — and the recovery goal runs.  Without a
   target the ball leaves the solve (:class:`Unhandled`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.builtins.copying import copy_term
from zpm_adapters.engine_python.code import CP_CATCH
from zpm_adapters.engine_python.goals import Ctx
from zpm_adapters.engine_python.runtime import PrologThrow, Ref, RTerm, deref, unify
from zpm_domain.prolog.terms import Atom, Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.machine import Machine

_CATCH: Ctx = ("system", "catch", 3)
_TRUE = Atom("true")


class Unhandled(PrologThrow):
    """A ball no ``catch/3`` of the solve takes: the solver lets it leave."""


def handle_throw(m: Machine, thrown: RTerm, fr: Any) -> Any:
    """The frame that goes on after ``thrown`` was raised with continuation ``fr``.

    A ball nothing can catch or clean up after leaves as it is; otherwise
    it is copied first, and the copy counts against the solve's time like
    any other work (a ball of millions of cells takes seconds here)."""
    if not m.guards and not any(cp[0] is CP_CATCH for cp in m.cps):
        raise Unhandled(thrown)  # it leaves the solve with the bindings of now: no copy
    ball = copy_term(thrown, None, lambda _copied: m.check_limits())
    target = find_catcher(m, ball, fr)
    return unwind(m, ball, fr, target, _inside(m, fr, target))


def find_catcher(m: Machine, ball: RTerm, fr: Any) -> int:
    """The choicepoint index of the ``catch/3`` that takes ``ball`` (-1: none)."""
    cps, trail = m.cps, m.trail
    for k in range(len(cps) - 1, -1, -1):
        cp = cps[k]
        if cp[0] is CP_CATCH and on_chain(fr, cp[5]):
            mark = len(trail.cells)
            taken = unify(trail, cp[2], ball)
            trail.undo(mark)
            if taken:
                return k
    return -1


def unwind(m: Machine, ball: RTerm, fr: Any, target: int, inside: list[bool]) -> Any:
    """Remove the choicepoints above ``target``: the next pending cleanup, or the recovery.

    ``inside`` tells, for the pending cleanups above ``target`` from the
    bottom up, whether the exception was raised inside their Goal.
    """
    cps, trail, guards = m.cps, m.trail, m.guards
    if guards and guards[-1] > target:
        h = guards.pop()
        cp = cps[h]
        trail.undo(cp[1])
        del cps[h:]
        caught = Ref()
        guarded = [(op.CATCH, Struct("call", (cp[2],)), caught, _TRUE, cp[3])]
        code: op.Code = [
            (op.ITE, guarded, op.TRUE_CODE, op.TRUE_CODE),
            (op.SCC_RETHROW, ball, caught if inside.pop() else None, target, inside),
        ]
        return (code, 0, None, len(cps), fr, fr[5] + 1)
    if target < 0:
        raise Unhandled(ball)
    cp = cps[target]
    trail.undo(cp[1])
    del cps[target:]
    mark = len(trail.cells)
    if not unify(trail, cp[2], ball):
        trail.undo(mark)
    cont = cp[4]
    code = [(op.META, cp[3], (), cp[6], _CATCH)]
    return (code, 0, None, len(cps), cont, cont[5] + 1)


def rethrow(m: Machine, ins: tuple[Any, ...], fr: Any) -> Any:
    """``SCC_RETHROW``: a cleanup on the way has run; unwind on to the same target."""
    ball, caught, target = ins[1], ins[2], ins[3]
    if caught is not None:
        raised = deref(caught)
        if type(raised) is not Ref and urgency(raised) > urgency(ball):
            ball = raised
    return unwind(m, ball, fr, target, ins[4])


def _inside(m: Machine, fr: Any, target: int) -> list[bool]:
    """For each pending cleanup above ``target`` (bottom up): is its Goal still running,
    i.e. its exit frame on the chain from ``fr``?  One walk down the chain."""
    exits = [m.cps[h][6] for h in m.guards if h > target]
    order = sorted(range(len(exits)), key=lambda i: -exits[i][5])
    inside = [False] * len(exits)
    p = fr
    for i in order:
        e = exits[i]
        while p is not None and p[5] > e[5]:
            p = p[4]
        inside[i] = p is e
    return inside


def urgency(ball: RTerm) -> int:
    """SWI-Prolog's class of an exception (``classify_exception``), least urgent first:
    any ball, ``error(_, _)``, ``error(resource_error, _)``, ``time_limit_exceeded``
    (or ``time_limit_exceeded(_)``), ``'$aborted'``."""
    b = deref(ball)
    if type(b) is Atom:
        return 5 if b.name == "$aborted" else 4 if b.name == "time_limit_exceeded" else 1
    if type(b) is Struct:
        if b.name == "error" and len(b.args) == 2:
            formal = deref(b.args[0])
            return 3 if type(formal) is Atom and formal.name == "resource_error" else 2
        if b.name == "time_limit_exceeded" and len(b.args) == 1:
            return 4
    return 1


def on_chain(fr: Any, target: tuple[Any, ...]) -> bool:
    """True when ``target`` is on the continuation chain that starts at ``fr``."""
    depth = target[5]
    while fr is not None and fr[5] > depth:
        fr = fr[4]
    return fr is target
