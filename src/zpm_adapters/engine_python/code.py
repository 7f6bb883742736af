"""The instruction set of the solver.

A *code* is a list of instructions run left to right (a conjunction).  An
instruction is a tuple whose first element is one of the opcodes below; the
comment gives the rest of the tuple.  Templates (``t``) are instantiated with
the clause's slots (see ``templates``); sub-codes (``code``) share those
slots.

Cut: every frame carries a *cut barrier*, the height of the choicepoint stack
that ``!`` cuts back to.  A clause body gets the height at its call; the
condition of an if-then-else, the goal of ``\\+``, ``call/N``, ``findall``,
``catch`` … get the height at their own start (they are opaque to cut).

Choicepoints are lists ``[kind, trail mark, ...]`` whose kinds are listed
after the instructions.
"""

from __future__ import annotations

from typing import Any

Code = list[tuple[Any, ...]]

CALL = 0  # (CALL, predicate, arg templates, mode, getter)   user or library predicate
DET = 1  # (DET, fn, arg templates, mode, getter)            deterministic built-in
NONDET = 2  # (NONDET, fn, arg templates, mode, getter)      generator built-in
CUT = 3  # (CUT,)                                            cut to the frame's barrier
FAIL = 4  # (FAIL,)
TRUE = 5  # (TRUE,)
OR = 6  # (OR, code_a, code_b)
ITE = 7  # (ITE, code_cond, code_then, code_else)
SOFT = 8  # (SOFT, code_cond, code_then, code_else)          *->
NOT = 9  # (NOT, code)                                       \\+
CALL1 = 10  # (CALL1, code)                                  call/1 of a goal known when compiled
META = 11  # (META, goal t, extra arg templates, namespace, context)  call/N of a term
CATCH = 12  # (CATCH, goal t, catcher t, recovery t, namespace)
THROW = 13  # (THROW, ball t)
FINDALL = 14  # (FINDALL, template t, goal t, result t, tail t or None, namespace)
BAGOF = 15  # (BAGOF, template t, goal t, result t, is_setof, namespace)
AGGREGATE = 16  # (AGGREGATE, spec t, goal t, result t, namespace)
QUALIFIED = 17  # (QUALIFIED, module t, goal t)                M:G
DENY = 18  # (DENY, name, arity)                              refused predicate
UNDEFINED = 19  # (UNDEFINED,)                                 unknown predicate: fails
SCC = 25  # (SCC, setup t, goal t, cleanup t, namespace)   setup_call_cleanup/3
REFLECT = 26  # (REFLECT, fn, arg templates, mode, getter, namespace)
#   a built-in that reads the namespace it is called from: ``fn(m, args, ns)``
#   is a generator, run like a NONDET built-in (see ``builtins.reflection``).
CUT_TO = 31  # (CUT_TO, barrier t)                          library only: cut to a saved height
ARITH = 24  # (ARITH, kind, a_slot, a_const, b_slot, b_const, target_slot, fn, arg templates)
#   ``T is A + B`` / ``A - B`` (kind 0 / 1) and the comparisons ``< > =< >= =:= =\=``
#   (kinds 2-7) of slots and integer constants (a slot of -1 means "use the
#   constant"): computed in place when both operands are integers, otherwise
#   by the built-in ``fn`` (the same answer, only slower).
# Instructions that only appear in frames the solver creates itself:
POP_CATCH = 20  # (POP_CATCH,)        end of a catch/3 goal
COLLECT = 21  # (COLLECT,)            findall: record a solution, then fail
NOT_EXIT = 22  # (NOT_EXIT,)          \\+: the goal succeeded, so \\+ fails
SOFT_EXIT = 23  # (SOFT_EXIT,)        *->: the condition succeeded, drop the else branch
SCC_CALL = 27  # (SCC_CALL, goal, cleanup, namespace)   setup_call_cleanup after its setup
SCC_EXIT = 28  # (SCC_EXIT,)          the goal of setup_call_cleanup exited (slots: its choicepoint)
SCC_RAISE = 29  # (SCC_RAISE, refs)   after the cleanups of a cut: raise what they raised
SCC_RETHROW = 30  # (SCC_RETHROW, ball, ref or None, target, flags)   unwinding goes on

# Choicepoint kinds.
CP_CLAUSES = 0  # [kind, mark, clauses, next index, count, args, continuation, cut height]
CP_ALT = 1  # [kind, mark, frame]                  an alternative to run
CP_GEN = 2  # [kind, mark, generator, continuation]
CP_CATCH = 3  # [kind, mark, catcher, recovery, continuation, exit frame, namespace]
CP_COLLECT = 4  # [kind, mark, collector, continuation]
CP_NOT = 5  # [kind, mark, continuation]           \\+ succeeds when its goal fails
CP_DEAD = 6  # [kind, mark, ...]                   a *-> whose condition succeeded
CP_CLEANUP = 7  # [kind, mark, cleanup, namespace, continuation, height, exit frame]
#   a setup_call_cleanup/3 whose goal has not finished (see ``cleanup``)

LAST = True
"""What a generator built-in may yield instead of ``None`` for its last
solution: the solver then drops its choicepoint at once, so the call exits
deterministically (as SWI-Prolog's does, which ``setup_call_cleanup/3`` can see)."""

ARITH_KINDS = {"+": 0, "-": 1, "<": 2, ">": 3, "=<": 4, ">=": 5, "=:=": 6, "=\\=": 7}

# Argument modes of CALL / DET / NONDET.
ARGS_NONE = 0  # no arguments
ARGS_GETTER = 1  # all arguments are slots: ``getter(slots)`` is the argument tuple
ARGS_BUILD = 2  # build each template
ARGS_CONST = 3  # the templates are the arguments (code compiled from a runtime goal)
ARGS_ONE = 4  # one slot argument: ``(slots[getter],)``

CUT_CODE: Code = [(CUT,)]
POP_CATCH_CODE: Code = [(POP_CATCH,)]
COLLECT_CODE: Code = [(COLLECT,)]
NOT_EXIT_CODE: Code = [(NOT_EXIT,)]
SOFT_EXIT_CODE: Code = [(SOFT_EXIT,)]
TRUE_CODE: Code = [(TRUE,)]
FAIL_CODE: Code = [(FAIL,)]
