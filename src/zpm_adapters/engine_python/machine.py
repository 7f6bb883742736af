"""The solver: an iterative machine over compiled code, choicepoints and a trail.

``Machine`` is one solve: its state and the interface built-ins use are
``machine_state.MachineState`` (frames, choicepoints, trail, budgets);
here is the loop that runs it.

One Python loop runs every inference: no Python recursion per call, so
recursion depth is bounded by memory and the limits, not by the C stack.
What is rare leaves the loop: the rare instructions (``instructions``),
cleanups (``cleanup``), collectors (``collectors``), and exceptions: a
``PrologThrow`` from a built-in (or ``throw/1``) looks for the innermost
``catch/3`` that is still running — its exit frame is on the current
continuation — whose catcher unifies with a copy of the ball (see
``throws``).
"""

# ``Machine._loop`` (some 240 lines) is the hot path, one function that runs
# every inference with the machine's state in locals; split into calls, each
# inference would pay Python calls and attribute reads (nrev drops).

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.cleanup import after_cut, discard, on_backtrack
from zpm_adapters.engine_python.code import (
    CP_ALT,
    CP_CLAUSES,
    CP_CLEANUP,
    CP_COLLECT,
    CP_GEN,
    CP_NOT,
)
from zpm_adapters.engine_python.goals import META_CALL
from zpm_adapters.engine_python.instructions import DONE, run_rare
from zpm_adapters.engine_python.machine_state import MachineState
from zpm_adapters.engine_python.runtime import PrologThrow, Ref, RTerm
from zpm_adapters.engine_python.templates import build_args, unify_head
from zpm_adapters.engine_python.throws import Unhandled, handle_throw

_DONE: tuple[Any, ...] = ([(DONE,)], 0, None, 0, None, 0)


class Machine(MachineState):
    """One solve: the loop that runs it over its state (``MachineState``)."""

    # -- driving ---------------------------------------------------------------
    def solutions(self, goal: RTerm) -> Generator[None, None, None]:
        """Yield once per solution of ``goal`` (its bindings are live while suspended).

        Closing the generator early runs the pending cleanups of
        ``setup_call_cleanup/3`` (``cleanup.discard``); however it ends, the
        machine's stacks are released.
        """
        self.fr = ([(op.META, goal, (), self.ns, META_CALL)], 0, None, 0, _DONE, 1)
        try:
            found = self._run(False)
            while found:
                try:
                    yield
                except GeneratorExit:
                    discard(self, _DONE)
                    raise
                found = self._run(True)
        finally:
            self._release()

    def resume(self) -> bool:
        """Run from ``self.fr`` to the next solution (True) or to failure (False)."""
        return self._run(False)

    def _run(self, redo: bool) -> bool:
        while True:
            try:
                return self._loop(redo)
            except PrologThrow as exc:
                if type(exc) is Unhandled:
                    raise
                self.fr = handle_throw(self, exc.ball, self.fr)
                redo = False

    # -- the loop --------------------------------------------------------------
    def _loop(self, redo: bool) -> bool:  # noqa: C901 - one loop on purpose (speed)
        cps = self.cps
        guards = self.guards
        trail = self.trail
        cells = trail.cells
        steps = self.steps
        next_check = self.next_check
        fr: Any = self.fr
        failed = redo
        while True:
            if not failed:
                code, pc, slots, cb, nxt, d = fr
                ins = code[pc]
                pc += 1
                fr = (code, pc, slots, cb, nxt, d) if pc < len(code) else nxt
                o = ins[0]
                steps += 1
                if steps >= next_check:
                    self.fr = fr
                    self._periodic(steps, fr)
                    next_check = self.next_check
                if o is op.CALL:
                    mode = ins[3]
                    if mode is op.ARGS_GETTER:
                        args = ins[4](slots)
                    elif mode is op.ARGS_ONE:
                        args = (slots[ins[4]],)
                    elif mode is op.ARGS_CONST:
                        args = ins[2]
                    elif mode is op.ARGS_NONE:
                        args = ()
                    else:
                        args = build_args(ins[2], slots)
                    pred = ins[1]
                    if args:
                        a0 = args[0]
                        while type(a0) is Ref:
                            if a0.ref is None:
                                break
                            a0 = a0.ref
                        lst = pred.candidates(a0)
                    else:
                        lst = pred.current()
                    n = len(lst)
                    if n == 1:
                        c = lst[0]
                        s2: list[Any] = [None] * c.nvars
                        if unify_head(c.head, args, s2, trail):
                            body = c.body
                            if body is not None:
                                for i in c.fresh:
                                    s2[i] = Ref()
                                fr = (body, 0, s2, len(cps), fr, fr[5] + 1)
                            continue
                    elif n:
                        cps.append([CP_CLAUSES, len(cells), lst, 0, n, args, fr, len(cps)])
                    failed = True
                elif o is op.DET:
                    mode = ins[3]
                    if mode is op.ARGS_GETTER:
                        args = ins[4](slots)
                    elif mode is op.ARGS_ONE:
                        args = (slots[ins[4]],)
                    elif mode is op.ARGS_CONST:
                        args = ins[2]
                    elif mode is op.ARGS_NONE:
                        args = ()
                    else:
                        args = build_args(ins[2], slots)
                    try:
                        if ins[1](self, args):
                            continue
                    except PrologThrow:
                        self.fr = fr
                        self.steps = steps
                        raise
                    failed = True
                elif o is op.ARITH:
                    i = ins[2]
                    x = slots[i] if i >= 0 else ins[3]
                    while type(x) is Ref and x.ref is not None:
                        x = x.ref
                    i = ins[4]
                    y = slots[i] if i >= 0 else ins[5]
                    while type(y) is Ref and y.ref is not None:
                        y = y.ref
                    if type(x) is int and type(y) is int:
                        k = ins[1]
                        if k < 2:
                            v = x + y if k == 0 else x - y
                            t = slots[ins[6]]
                            while type(t) is Ref:
                                if t.ref is None:
                                    t.ref = v
                                    cells.append(t)
                                    break
                                t = t.ref
                            else:
                                if type(t) is not int or t != v:
                                    failed = True
                                    continue
                            continue
                        if (
                            (x < y)
                            if k == 2
                            else (x > y)
                            if k == 3
                            else (x <= y)
                            if k == 4
                            else (x >= y)
                            if k == 5
                            else (x == y)
                            if k == 6
                            else (x != y)
                        ):
                            continue
                        failed = True
                        continue
                    try:
                        if ins[7](self, build_args(ins[8], slots)):
                            continue
                    except PrologThrow:
                        self.fr = fr
                        self.steps = steps
                        raise
                    failed = True
                elif o is op.CUT:
                    if guards and guards[-1] >= cb:
                        fr = after_cut(self, cb, fr)
                    else:
                        del cps[cb:]
                    continue
                elif o is op.TRUE or o is op.POP_CATCH:
                    continue
                elif o is op.FAIL or o is op.UNDEFINED:
                    failed = True
                elif o is op.ITE:
                    h = len(cps)
                    dd = fr[5] + 1
                    cps.append([CP_ALT, len(cells), (ins[3], 0, slots, cb, fr, dd)])
                    then = (ins[2], 0, slots, cb, fr, dd)
                    fr = (ins[1], 0, slots, h + 1, (op.CUT_CODE, 0, None, h, then, dd + 1), dd + 2)
                    continue
                elif o is op.OR:
                    dd = fr[5] + 1
                    cps.append([CP_ALT, len(cells), (ins[2], 0, slots, cb, fr, dd)])
                    fr = (ins[1], 0, slots, cb, fr, dd)
                    continue
                elif o is op.CALL1:
                    fr = (ins[1], 0, slots, len(cps), fr, fr[5] + 1)
                    continue
                elif o is op.NOT:
                    h = len(cps)
                    cps.append([CP_NOT, len(cells), fr])
                    dd = fr[5] + 1
                    fr = (ins[1], 0, slots, h + 1, (op.NOT_EXIT_CODE, 0, None, h, fr, dd), dd + 1)
                    continue
                elif o is op.NOT_EXIT:
                    if guards and guards[-1] >= cb:
                        fr = after_cut(self, cb, (op.FAIL_CODE, 0, None, cb, fr, fr[5] + 1))
                        continue
                    del cps[cb:]
                    failed = True
                elif o is op.COLLECT:
                    self.fr = fr
                    slots.add(self)
                    failed = True
                elif o is DONE:
                    self.fr = fr
                    self.steps = steps
                    return True
                else:
                    self.fr = fr
                    self.steps = steps
                    fr = run_rare(self, o, ins, slots, cb, fr)
                    if fr is None:
                        fr = self.fr
                        failed = True
                    continue
            # -- backtracking --------------------------------------------------
            failed = False
            while True:
                if not cps:
                    self.fr = None
                    self.steps = steps
                    return False
                cp = cps[-1]
                mark = cp[1]
                while len(cells) > mark:
                    cells.pop().ref = None
                kind = cp[0]
                if kind is CP_CLAUSES:
                    lst = cp[2]
                    i = cp[3]
                    if i + 1 < cp[4]:
                        cp[3] = i + 1
                    else:
                        cps.pop()
                    c = lst[i]
                    s2 = [None] * c.nvars
                    if unify_head(c.head, cp[5], s2, trail):
                        fr = cp[6]
                        body = c.body
                        if body is not None:
                            for i in c.fresh:
                                s2[i] = Ref()
                            fr = (body, 0, s2, cp[7], fr, fr[5] + 1)
                        break
                    continue
                if kind is CP_ALT or kind is CP_NOT:
                    cps.pop()
                    fr = cp[2]
                    break
                if kind is CP_GEN:
                    fr = self.fr = cp[3]
                    self.steps = steps
                    try:
                        last = next(cp[2])
                    except StopIteration:
                        if cps and cps[-1] is cp:
                            cps.pop()
                        continue
                    if last and cps[-1] is cp:
                        cps.pop()
                    break
                if kind is CP_COLLECT:
                    cps.pop()
                    fr = self.fr = cp[3]
                    self.steps = steps
                    result = cp[2].finish(self)
                    if result is True:
                        break
                    if result is False:
                        continue
                    cps.append([CP_GEN, len(cells), result, fr])
                    continue
                cps.pop()
                if kind is CP_CLEANUP:
                    fr = on_backtrack(self, cp)
                    break
                # CP_CATCH and CP_DEAD are transparent to backtracking
