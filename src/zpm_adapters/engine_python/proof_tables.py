"""The python engine's primitives of the trace's tables and tasks
(``'$zpm_trace'/3`` of ``prolog/zpm_proofs.pl``): the answer table of each
call variant, the leaders, the pass loop and the task queue.

They keep their state in ``m.proofs`` (``proofs.ProofState``), as the
interpreters' other primitives (``proofs``) do; importing this module
registers them (``runtime.INTERNAL``).
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python.builtins._support import make_list
from zpm_adapters.engine_python.builtins.copying import copy_term
from zpm_adapters.engine_python.proofs import Table, int_key, state, variant_key
from zpm_adapters.engine_python.runtime import RTerm, deref, internal
from zpm_domain.prolog.terms import Struct


@internal("$zpm_tbl_init", 0)
def tbl_init(m: Any, args: tuple[RTerm, ...]) -> bool:
    s = state(m)
    s.tables.clear()
    s.leaders.clear()
    return True


@internal("$zpm_tbl_pass", 0)
def tbl_pass(m: Any, args: tuple[RTerm, ...]) -> bool:
    """A new pass: no task, no call expanded, nothing changed or read yet."""
    s = state(m)
    s.expanded.clear()
    s.tasks.clear()
    s.task_keys.clear()
    s.changed = False
    s.read = False
    return True


@internal("$zpm_tbl_again", 0)
def tbl_again(m: Any, args: tuple[RTerm, ...]) -> bool:
    """Another pass is needed: this one read a table and found something new."""
    s = state(m)
    return s.changed and s.read


@internal("$zpm_tbl_task", 2)
def tbl_task(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_tbl_task'(+Call, +Result)``: a new task; fails for a repeat (a variant)."""
    s = state(m)
    pair = Struct("-", (args[0], args[1]))
    variant = variant_key(pair)
    if variant in s.task_keys:
        return False
    s.task_keys.add(variant)
    copy = deref(copy_term(pair))
    assert type(copy) is Struct
    s.tasks.append((copy.args[0], copy.args[1]))
    return True


@internal("$zpm_tbl_task_get", 3)
def tbl_task_get(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_tbl_task_get'(+I, -Call, -Result)``: a copy of task I (from 0)."""
    tasks = state(m).tasks
    i = deref(args[0])
    if type(i) is not int or i >= len(tasks):
        return False
    call, result = tasks[i]
    copy = deref(copy_term(Struct("-", (call, result))))
    assert type(copy) is Struct
    return m.unify(args[1], copy.args[0]) and m.unify(args[2], copy.args[1])  # type: ignore[no-any-return]


@internal("$zpm_tbl_first", 1)
def tbl_first(m: Any, args: tuple[RTerm, ...]) -> bool:
    """Succeeds the first time key K is seen in this pass (and marks it)."""
    expanded = state(m).expanded
    k = int_key(args[0])
    if k in expanded:
        return False
    expanded.add(k)
    return True


@internal("$zpm_tbl_lead", 1)
def tbl_lead(m: Any, args: tuple[RTerm, ...]) -> bool:
    """Make K a leader (its expansions record their answers); a new leader is a change."""
    s = state(m)
    k = int_key(args[0])
    if k not in s.leaders:
        s.leaders.add(k)
        s.changed = True
    return True


@internal("$zpm_tbl_leader", 1)
def tbl_leader(m: Any, args: tuple[RTerm, ...]) -> bool:
    return int_key(args[0]) in state(m).leaders


@internal("$zpm_tbl_add", 2)
def tbl_add(m: Any, args: tuple[RTerm, ...]) -> bool:
    """Record answer A in table K; fails when a variant of A is there already."""
    s = state(m)
    k = int_key(args[0])
    table = s.tables.get(k)
    if table is None:
        table = s.tables[k] = Table()
    variant = variant_key(args[1])
    if variant in table.seen:
        return False
    table.seen.add(variant)
    table.answers.append(copy_term(args[1]))
    s.changed = True
    return True


@internal("$zpm_tbl_get", 3)
def tbl_get(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_tbl_get'(+K, +I, -A)``: a copy of answer I (from 0) of table K."""
    s = state(m)
    s.read = True
    table = s.tables.get(int_key(args[0]))
    i = deref(args[1])
    if table is None or type(i) is not int or i >= len(table.answers):
        return False
    return m.unify(args[2], copy_term(table.answers[i]))  # type: ignore[no-any-return]


@internal("$zpm_tbl_answers", 2)
def tbl_answers(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_tbl_answers'(+K, -List)``: copies of table K's answers, in order."""
    table = state(m).tables.get(int_key(args[0]))
    answers = [] if table is None else [copy_term(a) for a in table.answers]
    return m.unify(args[1], make_list(answers))  # type: ignore[no-any-return]
