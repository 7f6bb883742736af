"""The less frequent instructions of the solver.

The hot instructions (calls, built-ins, cut, if-then-else, negation …) run
inline in ``Machine._loop``; these run here, called from the loop with the
machine, the instruction, the frame's slots and cut barrier, and the
continuation ``fr``.  Each returns the next frame, or ``None`` to fail.
Exceptions are handled in ``throws``, ``setup_call_cleanup/3`` in ``cleanup``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zpm_adapters.engine_python import cleanup, throws
from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.aggregates import make_collector
from zpm_adapters.engine_python.code import CP_ALT, CP_CATCH, CP_COLLECT, CP_DEAD, CP_GEN
from zpm_adapters.engine_python.collectors import Collector
from zpm_adapters.engine_python.compiler import compile_goal
from zpm_adapters.engine_python.goals import Ctx, add_args, resolve_module
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    context,
    deref,
    instantiation_error,
)
from zpm_adapters.engine_python.store import Namespace
from zpm_adapters.engine_python.templates import build, build_args
from zpm_domain.prolog.errors import SandboxViolation
from zpm_domain.prolog.terms import Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.machine import Machine

DONE = 99  # the end of the query: a solution
_CATCH: Ctx = ("system", "catch", 3)
_CONTROL = frozenset({(",", 2), (";", 2), ("->", 2), ("*->", 2), ("\\+", 1)})


def run_rare(m: Machine, o: int, ins: tuple[Any, ...], slots: Any, cb: int, fr: Any) -> Any:
    """Run a rare instruction; the next frame, or ``None`` to fail."""
    cps = m.cps
    if o is op.NONDET:
        args = _args(ins, slots)
        cps.append([CP_GEN, len(m.trail.cells), ins[1](m, args), fr])
        return None
    if o is op.META:
        goal = build(ins[1], slots)
        extra = tuple(build(a, slots) for a in ins[2])
        goal = add_args(goal, extra, ins[4])
        ns = ins[3]
        while type(goal) is Struct and goal.name == ":" and len(goal.args) == 2:
            ns = resolve_module(goal.args[0], m.namespaces)  # M:G runs G in M
            goal = deref(goal.args[1])
        ctx = ins[4]
        if extra and type(goal) is Struct and (goal.name, len(goal.args)) in _CONTROL:
            # call(',', A, B) calls the predicate ','/2, which compiles its body;
            # (\+)/1 compiles its argument alone
            ctx = ("system", goal.name, len(goal.args))
            if goal.name == "\\+":
                compile_goal(goal.args[0], ns, m.system, ctx)
        code = compile_goal(goal, ns, m.system, ctx)
        return (code, 0, None, len(cps), fr, fr[5] + 1)
    if o is op.SOFT:
        h = len(cps)
        dd = fr[5] + 1
        cp = [CP_ALT, len(m.trail.cells), (ins[3], 0, slots, cb, fr, dd)]
        cps.append(cp)
        then = (ins[2], 0, slots, cb, fr, dd)
        return (ins[1], 0, slots, h + 1, (op.SOFT_EXIT_CODE, 0, cp, cb, then, dd + 1), dd + 2)
    if o is op.SOFT_EXIT:
        slots[0] = CP_DEAD
        return fr
    if o is op.CATCH:
        h = len(cps)
        dd = fr[5] + 1
        exit_frame = (op.POP_CATCH_CODE, 0, None, cb, fr, dd)
        catcher, recovery = build(ins[2], slots), build(ins[3], slots)
        cps.append([CP_CATCH, len(m.trail.cells), catcher, recovery, fr, exit_frame, ins[4]])
        m.fr = exit_frame  # errors while compiling the goal are inside the catch
        code = compile_goal(build(ins[1], slots), ins[4], m.system, _CATCH)
        return (code, 0, None, h + 1, exit_frame, dd + 1)
    if o is op.THROW:
        ball = build(ins[1], slots)
        while type(ball) is Ref and ball.ref is not None:
            ball = ball.ref
        if type(ball) is Ref:
            raise instantiation_error(context("throw", 1))
        raise PrologThrow(ball)
    if o is op.FINDALL or o is op.BAGOF or o is op.AGGREGATE:
        collector, goal, ctx = make_collector(m, ins, slots)
        return _collect(m, collector, goal, ins[-1], ctx, fr)
    if o is op.QUALIFIED:
        ns = resolve_module(build(ins[1], slots), m.namespaces)
        code = compile_goal(build(ins[2], slots), ns, m.system)
        return (code, 0, None, cb, fr, fr[5] + 1)
    if o is op.SCC:
        return cleanup.start(m, ins, slots, fr)
    if o is op.SCC_CALL:
        return cleanup.call(m, ins, fr)
    if o is op.SCC_EXIT:
        return cleanup.exit_goal(m, slots, fr)
    if o is op.SCC_RAISE:
        return cleanup.raise_pending(ins, fr)
    if o is op.SCC_RETHROW:
        return throws.rethrow(m, ins, fr)
    if o is op.REFLECT:
        cps.append([CP_GEN, len(m.trail.cells), ins[1](m, _args(ins, slots), ins[5]), fr])
        return None
    if o is op.DENY:
        raise SandboxViolation(ins[1], ins[2])
    if o is op.CUT_TO:
        barrier = deref(build(ins[1], slots))
        if type(barrier) is not int:
            raise instantiation_error(context("$zpm_mi_cut_to", 1))
        if m.guards and m.guards[-1] >= barrier:
            return cleanup.after_cut(m, barrier, fr)
        del cps[barrier:]
        return fr
    raise AssertionError(f"unknown instruction {ins!r}")


def _collect(
    m: Machine, collector: Collector, goal: RTerm, ns: Namespace, ctx: Ctx, fr: Any
) -> Any:
    h = len(m.cps)
    m.cps.append([CP_COLLECT, len(m.trail.cells), collector, fr])
    code = compile_goal(goal, ns, m.system, ctx)
    dd = fr[5] + 1
    return (code, 0, None, h + 1, (op.COLLECT_CODE, 0, collector, h, fr, dd), dd + 1)


def _args(ins: tuple[Any, ...], slots: Any) -> tuple[RTerm, ...]:
    mode = ins[3]
    if mode is op.ARGS_GETTER:
        return ins[4](slots)  # type: ignore[no-any-return]
    if mode is op.ARGS_ONE:
        return (slots[ins[4]],)
    if mode is op.ARGS_CONST:
        return ins[2]  # type: ignore[no-any-return]
    if mode is op.ARGS_NONE:
        return ()
    return build_args(ins[2], slots)
