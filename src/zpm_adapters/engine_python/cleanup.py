"""``setup_call_cleanup(Setup, Goal, Cleanup)`` in the solver, as SWI-Prolog 9 runs it.

``once(Setup)`` runs first (errors in context ``system:sig_atomic/1``).
Then Cleanup is checked (unbound → ``instantiation_error``, not callable →
``type_error(callable, C)``, both in context ``system:setup_call_cleanup/3``),
a ``CP_CLEANUP`` choicepoint is pushed and Goal runs above it (opaque to cut;
unbound → ``instantiation_error``, not callable → ``type_error(callable,
G)``, context ``setup_call_cleanup/3``; from here on a failing Goal check
already runs Cleanup, as in SWI-Prolog).  Cleanup runs once, as
``once(Cleanup)`` in the namespace of the call (its failure is ignored; a
body error is reported by ``system:call/1``), when Goal is finished:

* *deterministic exit* — Goal succeeded and left no choicepoint above the
  ``CP_CLEANUP`` (``catch/3`` and spent ``*->`` entries do not count): it
  runs at once, before the call exits; its bindings are kept and its
  exception is the call's;
* *cut* — a cut (``!``, ``->``, ``once/1``, ``\\+`` …) removes the
  ``CP_CLEANUP``: it runs where the cut is, bindings kept, exception
  propagated from there.  One cut that removes several runs them all,
  newest first, each under ``catch/3``; then the most urgent of their
  exceptions (the first of equals, see ``throws.urgency``) is raised;
* *failure* — backtracking reaches the ``CP_CLEANUP``: it runs with Goal's
  bindings undone, then backtracking goes on; its exception propagates;
* *exception* — an exception passes the ``CP_CLEANUP`` on its way to its
  catcher: it runs with the bindings undone to its start and its failure
  ignored; its exception replaces the one on its way only when that one was
  raised inside Goal and the new one is more urgent (see ``throws``).

Limits stay in force while a Cleanup runs; they are Python exceptions, so no
``catch/3`` (nor the exception case above) can stop them.

When the consumer stops asking for answers (the iterator of ``solve`` is
closed), :func:`discard` runs the pending Cleanups as a cut would, and
*ignores* what they raise.  This is what the tool sees from the SWI
engines: they collect at most ``max_solutions`` answers inside SWI-Prolog
and stop with a cut there, and an error raised then is reported *after*
those answers, where ``query_logic`` (``islice`` up to ``max_solutions``,
then ``close()``) never looks.  An error that a Cleanup raises while the
answers are still being produced (a deterministic exit, a cut or failure
inside the goal) is reported by every engine.

The solver keeps the heights of pending ``CP_CLEANUP`` s in ``m.guards``
(ascending), so a cut only has to compare its barrier with the last one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.compiler import compile_goal
from zpm_adapters.engine_python.goals import Ctx, ctx_term
from zpm_adapters.engine_python.runtime import (
    PrologThrow,
    Ref,
    RTerm,
    deref,
    instantiation_error,
    type_error,
)
from zpm_adapters.engine_python.templates import build
from zpm_adapters.engine_python.throws import urgency
from zpm_domain.errors import ZpmError
from zpm_domain.prolog.terms import NIL, Atom, Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.machine import Machine

SCC_CTX: Ctx = ("system", "setup_call_cleanup", 3)
SETUP_CTX: Ctx = ("system", "sig_atomic", 1)
CLEANUP_CTX: Ctx = ("system", "call", 1)
_TRUE = Atom("true")
_CONTROL = frozenset({(",", 2), (";", 2), ("->", 2), ("*->", 2), ("\\+", 1)})


def start(m: Machine, ins: tuple[Any, ...], slots: Any, fr: Any) -> Any:
    """``SCC``: the frame that runs ``once(Setup)``, then ``SCC_CALL``."""
    setup, goal, cleanup = build(ins[1], slots), build(ins[2], slots), build(ins[3], slots)
    ns = ins[4]
    if deref(setup) is _TRUE:
        return call(m, (op.SCC_CALL, goal, cleanup, ns), fr)
    then = [(op.SCC_CALL, goal, cleanup, ns)]
    s = deref(setup)
    run: tuple[Any, ...]
    if type(s) is Struct and (s.name, len(s.args)) in _CONTROL:
        # sig_atomic/1 calls a control construct as its predicate (','/2 ...),
        # which raises the errors of its body
        run = (op.META, Atom(s.name), s.args, ns, SETUP_CTX)
    else:
        run = (op.META, setup, (), ns, SETUP_CTX)
    code = [(op.ITE, [run], then, op.FAIL_CODE)]
    return (code, 0, None, len(m.cps), fr, fr[5] + 1)


def call(m: Machine, ins: tuple[Any, ...], fr: Any) -> Any:
    """``SCC_CALL``: check Cleanup, push the ``CP_CLEANUP``, then run Goal."""
    goal, cleanup, ns = ins[1], ins[2], ins[3]
    _check_cleanup(cleanup)
    cps = m.cps
    h = len(cps)
    d = fr[5] + 1
    cp: list[Any] = [op.CP_CLEANUP, len(m.trail.cells), cleanup, ns, fr, h]
    exit_frame = (_EXIT_CODE, 0, cp, h, fr, d)
    cp.append(exit_frame)
    cps.append(cp)
    m.guards.append(h)
    m.fr = exit_frame  # an error from here on is raised inside Goal
    g = deref(goal)
    if type(g) is Ref:
        raise instantiation_error(ctx_term(SCC_CTX))
    code = compile_goal(g, ns, m.system, SCC_CTX)
    return (code, 0, None, h + 1, exit_frame, d + 1)


_EXIT_CODE: op.Code = [(op.SCC_EXIT,)]


def exit_goal(m: Machine, cp: list[Any], fr: Any) -> Any:
    """``SCC_EXIT``: on a deterministic exit run Cleanup now, else leave it pending."""
    cps = m.cps
    h = cp[5]
    for i in range(h + 1, len(cps)):
        kind = cps[i][0]
        if kind is not op.CP_CATCH and kind is not op.CP_DEAD:
            return fr
    del cps[h:]
    m.guards.pop()
    return _kept(m, cp, fr)


def after_cut(m: Machine, barrier: int, fr: Any) -> Any:
    """A cut to ``barrier`` that removes pending Cleanups: the frame that runs them,
    newest first, then ``SCC_RAISE`` (the most urgent exception they raised, the
    first of equals, as SWI-Prolog keeps it), then ``fr``."""
    cps, guards = m.cps, m.guards
    doomed = []
    while guards and guards[-1] >= barrier:
        doomed.append(cps[guards.pop()])
    del cps[barrier:]
    code: op.Code = []
    caught: list[Ref] = []
    for cp in doomed:
        e = Ref()
        caught.append(e)
        guarded = [(op.CATCH, Struct("call", (cp[2],)), e, _TRUE, cp[3])]
        code.append((op.ITE, guarded, op.TRUE_CODE, op.TRUE_CODE))
    code.append((op.SCC_RAISE, tuple(caught)))
    return (code, 0, None, len(cps), fr, fr[5] + 1)


def raise_pending(ins: tuple[Any, ...], fr: Any) -> Any:
    """``SCC_RAISE``: raise what the Cleanups of one cut raised, or go on."""
    pending: RTerm | None = None
    for e in ins[1]:
        ball = deref(e)
        if type(ball) is not Ref and (pending is None or urgency(ball) > urgency(pending)):
            pending = ball
    if pending is not None:
        raise PrologThrow(pending)
    return fr


def on_backtrack(m: Machine, cp: list[Any]) -> Any:
    """Backtracking popped ``cp``: run Cleanup (bindings undone), then fail on."""
    m.guards.pop()
    cont = cp[4]
    code = [(op.ITE, [(op.META, cp[2], (), cp[3], CLEANUP_CTX)], op.FAIL_CODE, op.FAIL_CODE)]
    return (code, 0, None, len(m.cps), cont, cont[5] + 1)


def discard(m: Machine, done: Any) -> None:
    """Run the pending Cleanups of a solve that stops early; ignore what they raise."""
    if not m.guards:
        return
    m.fr = (op.CUT_CODE, 0, None, 0, done, done[5] + 1)
    try:
        m.resume()
    except (PrologThrow, ZpmError):
        pass  # the answers are out; the SWI engines do not report this either


def _kept(m: Machine, cp: list[Any], cont: Any) -> Any:
    """The frame that runs ``once(Cleanup)`` keeping its bindings, then ``cont``."""
    code = [(op.ITE, [(op.META, cp[2], (), cp[3], CLEANUP_CTX)], op.TRUE_CODE, op.TRUE_CODE)]
    return (code, 0, None, len(m.cps), cont, cont[5] + 1)


def _check_cleanup(cleanup: RTerm) -> None:
    """SWI-Prolog's check of Cleanup before Goal runs (``mustBeCallable``)."""
    c = deref(cleanup)
    while type(c) is Struct and c.name == ":" and len(c.args) == 2:
        module = deref(c.args[0])
        if type(module) is Ref:
            raise instantiation_error(ctx_term(SCC_CTX))
        if type(module) is not Atom:
            raise type_error("atom", module, ctx_term(SCC_CTX))
        c = deref(c.args[1])
    if type(c) is Ref:
        raise instantiation_error(ctx_term(SCC_CTX))
    if type(c) is not Struct and (type(c) is not Atom or c is NIL):
        raise type_error("callable", c, ctx_term(SCC_CTX))
