"""The python engine's primitives of the proof interpreters (``prolog/zpm_proofs.pl``).

The interpreters run in the library namespace like any library predicate;
these primitives (``runtime.INTERNAL``, reachable from the library only) give
them the clauses of a namespace, the class of a goal, variant keys and the
trace's answer tables.  ``'$zpm_mi_call'/2`` and the choicepoint primitives
are in ``proofs.pl`` and the compiler (``CUT_TO``).

The state of one solve (variant keys, the clauses handed out, the tables)
lives in ``m.proofs``, a :class:`ProofState` made on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from zpm_adapters.engine_python.builtins.cycles import is_acyclic
from zpm_adapters.engine_python.compiled_clause import CClause
from zpm_adapters.engine_python.goals import META_CALL, ctx_term, resolve_module
from zpm_adapters.engine_python.predicate import Predicate
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    internal,
    representation_error,
)
from zpm_adapters.engine_python.templates import build, to_template, unify_head
from zpm_domain.prolog.allowlist import is_allowed, is_denied
from zpm_domain.prolog.terms import Atom, String, Struct, Term, Var

_CONTROL = frozenset({(",", 2), (";", 2), ("->", 2), ("*->", 2)})


class Table:
    """The answers of one call variant: in order, and their variant keys."""

    __slots__ = ("answers", "seen")

    def __init__(self) -> None:
        self.answers: list[RTerm] = []
        self.seen: set[tuple[Any, ...]] = set()


class ProofState:
    """What the primitives keep during one solve (see ``zpm_proofs.pl``)."""

    def __init__(self) -> None:
        self.keys: dict[tuple[Any, ...], int] = {}
        self.clauses: dict[int, CClause] = {}
        self.ancestors: set[int] = set()
        self.tables: dict[int, Table] = {}
        self.leaders: set[int] = set()
        self.expanded: set[int] = set()
        self.tasks: list[tuple[RTerm, RTerm]] = []
        self.task_keys: set[tuple[Any, ...]] = set()
        self.changed = False
        self.read = False


class _Undo:
    """A trail entry that runs ``action`` when backtracking undoes it (the
    solver resets every trail entry with ``entry.ref = None``)."""

    __slots__ = ("action",)

    def __init__(self, action: Callable[[], None]) -> None:
        self.action = action

    @property
    def ref(self) -> None:
        return None

    @ref.setter
    def ref(self, value: object) -> None:
        self.action()


def _on_backtrack(m: Any, action: Callable[[], None]) -> None:
    m.trail.cells.append(_Undo(action))


def state(m: Any) -> ProofState:
    found: ProofState | None = m.proofs
    if found is None:
        found = m.proofs = ProofState()
    return found


def variant_key(term: RTerm) -> tuple[Any, ...]:
    """A tuple equal for two terms exactly when they are variants.

    Raises ``representation_error(cyclic_term)`` for a cyclic term.
    """
    if not is_acyclic(term):
        raise representation_error("cyclic_term", ctx_term(META_CALL))
    out: list[Any] = []
    numbers: dict[int, int] = {}
    stack: list[RTerm] = [term]
    while stack:
        t = deref(stack.pop())
        kind = type(t)
        if kind is Struct:
            out.append(("c", t.name, len(t.args)))  # type: ignore[union-attr]
            stack.extend(reversed(t.args))  # type: ignore[union-attr]
        elif kind is Ref:
            out.append(("v", numbers.setdefault(id(t), len(numbers))))
        elif kind is Atom:
            out.append(t)  # atoms are interned ([] is not '[]')
        elif kind is int:
            out.append(("i", t))
        elif kind is float:
            out.append(("f", float.hex(t)))  # type: ignore[arg-type]
        elif kind is String:
            out.append(("s", t.value))  # type: ignore[union-attr]
        else:
            out.append(("?", t))
    return tuple(out)


@internal("$zpm_mi_key", 2)
def mi_key(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_mi_key'(+Term, -Key)``: an integer per variant class of Term."""
    keys = state(m).keys
    number = keys.setdefault(variant_key(args[0]), len(keys) + 1)
    return m.unify(args[1], number)  # type: ignore[no-any-return]


@internal("$zpm_mi_builtin", 1)
def mi_builtin(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_mi_builtin'(+Goal)``: Goal is allowed or refused, not a user predicate."""
    g = deref(args[0])
    if type(g) is Atom:
        name, arity = g.name, 0
    elif type(g) is Struct:
        name, arity = g.name, len(g.args)
    else:
        return True  # not callable: the native call reports it
    return is_allowed(name, arity) or is_denied(name, arity)


@internal("$zpm_mi_choice", 1)
def mi_choice(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_mi_choice'(-B)``: the current height of the choicepoint stack."""
    return m.unify(args[0], len(m.cps))  # type: ignore[no-any-return]


@internal("$zpm_mi_ns", 2)
def mi_ns(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_mi_ns'(+Memory, -Ns)``: the namespace ``Memory:G`` runs in."""
    ns = resolve_module(args[0], m.namespaces)
    return m.unify(args[1], Atom(ns.name))  # type: ignore[no-any-return]


@internal("$zpm_mi_clause", 4, deterministic=False)
def mi_clause(m: Any, args: tuple[RTerm, ...]) -> Iterator[None]:
    """``'$zpm_mi_clause'(+Ns, +Goal, -Body, -Ref)``: see ``zpm_proofs.pl``.

    Ref is an integer that :attr:`ProofState.clauses` maps to the clause.
    """
    clauses = state(m).clauses
    for cc, body in _clauses(m, args[0], args[1]):
        clauses[id(cc)] = cc
        if m.unify(args[2], body) and m.unify(args[3], id(cc)):
            yield


@internal("$zpm_mi_facts_only", 2)
def mi_facts_only(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_mi_facts_only'(+Ns, +Goal)``: Goal's predicate exists in Ns and
    holds no rule."""
    pred = _predicate(m, args[0], args[1])
    if pred is None:
        return False
    return pred.rules == 0


@internal("$zpm_mi_fact", 2, deterministic=False)
def mi_fact(m: Any, args: tuple[RTerm, ...]) -> Iterator[None]:
    """``'$zpm_mi_fact'(+Ns, +Goal)``: the facts of a predicate without rules
    that unify with Goal, in order."""
    for _ in _clauses(m, args[0], args[1]):
        yield


@internal("$zpm_mi_body", 3, deterministic=False)
def mi_body(m: Any, args: tuple[RTerm, ...]) -> Iterator[None]:
    """``'$zpm_mi_body'(+Ns, +Goal, -Body)``: ``'$zpm_mi_clause'/4`` without Ref."""
    for _, body in _clauses(m, args[0], args[1]):
        if m.unify(args[2], body):
            yield


def _predicate(m: Any, ns_t: RTerm, goal_t: RTerm) -> Predicate | None:
    namespace = m.namespaces[deref(ns_t).name]  # type: ignore[union-attr]
    goal = deref(goal_t)
    if type(goal) is Struct:
        return namespace.lookup(goal.name, len(goal.args))  # type: ignore[no-any-return]
    if type(goal) is Atom:
        return namespace.lookup(goal.name, 0)  # type: ignore[no-any-return]
    return None


def _clauses(m: Any, ns_t: RTerm, goal_t: RTerm) -> Iterator[tuple[CClause, RTerm]]:
    """The clauses whose head unifies with the goal (bindings left in place
    while the caller looks at one; undone before the next), with their bodies."""
    pred = _predicate(m, ns_t, goal_t)
    if pred is None:
        return
    goal = deref(goal_t)
    gargs = goal.args if type(goal) is Struct else ()
    candidates = pred.candidates(deref(gargs[0])) if gargs else pred.current()
    count = len(candidates)  # later additions are not seen (logical update view)
    trail = m.trail
    for i in range(count):
        cc = candidates[i]
        size, body = _readable(cc)
        slots: list[Any] = [None] * size
        mark = trail.mark()
        if unify_head(cc.head, gargs, slots, trail):
            yield cc, build(body, slots)
        trail.undo(mark)


def _readable(cc: CClause) -> tuple[int, Any]:
    """``(slots, body template)`` of a clause as the interpreters read it: the
    body as written, each variable in a goal position of its control
    structure read as ``call(V)``; head variables numbered as compiled."""
    if cc.readable is None:
        clause = cc.clause
        varmap: dict[int, int] = {}
        head = clause.head
        for arg in head.args if isinstance(head, Struct) else ():
            to_template(arg, varmap)
        body = to_template(_called(clause.body), varmap)
        cc.readable = (len(varmap), body)
    return cc.readable  # type: ignore[no-any-return]


def _called(body: Term) -> Term:
    """``body`` with every variable in a goal position of its control
    structure (``,`` ``;`` ``->`` ``*->`` ``\\+`` ``M:G``) wrapped in ``call/1``."""
    if isinstance(body, Var):
        return Struct("call", (body,))
    if not isinstance(body, Struct):
        return body
    name, n = body.name, len(body.args)
    if (name, n) in _CONTROL:
        return Struct(name, (_called(body.args[0]), _called(body.args[1])))
    if (name, n) == ("\\+", 1):
        return Struct(name, (_called(body.args[0]),))
    if (name, n) == (":", 2):
        return Struct(name, (body.args[0], _called(body.args[1])))
    return body


# -- ancestors ----------------------------------------------------------------


def int_key(t: RTerm) -> int:
    """The integer key (``variant_key``'s number) an argument holds."""
    k = deref(t)
    assert type(k) is int
    return k


@internal("$zpm_anc_init", 0)
def anc_init(m: Any, args: tuple[RTerm, ...]) -> bool:
    state(m).ancestors.clear()
    return True


@internal("$zpm_anc", 1)
def anc(m: Any, args: tuple[RTerm, ...]) -> bool:
    """``'$zpm_anc'(+K)``: a goal of key K is being proved by a rule."""
    return int_key(args[0]) in state(m).ancestors


@internal("$zpm_anc_push", 1)
def anc_push(m: Any, args: tuple[RTerm, ...]) -> bool:
    ancestors = state(m).ancestors
    k = int_key(args[0])
    ancestors.add(k)
    _on_backtrack(m, lambda: ancestors.discard(k))
    return True


@internal("$zpm_anc_pop", 1)
def anc_pop(m: Any, args: tuple[RTerm, ...]) -> bool:
    ancestors = state(m).ancestors
    k = int_key(args[0])
    ancestors.discard(k)
    _on_backtrack(m, lambda: ancestors.add(k))
    return True
