"""What an engine refuses before it changes a predicate, the same on every engine.

The port's changing methods (``ports.engine.Engine``, templates) call these
before the engine's part: ``check_addition`` in ``add_clause``
(``check_additions`` in ``add_clauses`` and ``copy_clauses``),
``check_change`` in ``declare_dynamic``, ``changeable`` in the removals.
They pass the engine's own ``lookup(name, arity)`` (``Engine._lookup``) or
what it found (a ``PredicateState``, ``None`` for a predicate never seen), so
that a plugin engine refuses the same changes with the same texts as the
built-in ones:

* built-in predicates and control constructs cannot be defined or changed
  (``PermissionDenied.builtin``);
* a predicate loaded from a knowledge file (static) cannot be added to,
  removed from or declared dynamic (``PermissionDenied.static``); nor can a
  knowledge-file clause join a predicate holding clauses added at run time
  (it may join one that its file declared dynamic: that predicate stays
  dynamic, and the clause itself is never removed);
* a clause head must be an atom or a compound (``InvalidClause``); a removal
  whose head is not callable removes nothing.

What a removal takes is decided here too, the same on every engine: by
pattern (``unifies``), with the domain's unifier, occurs check on, as the
domain's bookkeeping decides it (``changes.mutations.RemoveAll``); by
clause (``is_variant``); and which clauses a copy may take whole from
another namespace (``whole_run``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Sequence
from typing import Protocol, TypeVar

from zpm_domain.errors import InvalidClause, ZpmError
from zpm_domain.prolog.allowlist import CONTROL, is_protected
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import Struct, Term, Var, variant
from zpm_domain.prolog.unify import unify
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause, Runs, is_user_head


class PredicateState(Protocol):
    """What the checks need to know about a predicate an engine holds."""

    @property
    def static(self) -> bool:
        """Loaded from a knowledge file."""

    @property
    def declared_dynamic(self) -> bool:
        """Declared with ``:- dynamic`` in a knowledge file."""

    def has_clauses(self) -> bool:
        """It holds at least one clause now."""


def check_definable(name: str, arity: int) -> None:
    """Refuse built-in predicates and control constructs."""
    if is_protected(name, arity) or (name, arity) in CONTROL:
        raise PermissionDenied.builtin(name, arity)


def check_addition(
    clause: Clause, lookup: Callable[[str, int], PredicateState | None], *, static: bool
) -> None:
    """Refuse adding ``clause`` (``static``: from a knowledge file).

    ``lookup(name, arity)`` is the engine's own; it is asked only once the
    head is known to be callable.
    """
    if not is_user_head(clause.head):
        raise InvalidClause(f"Clause head is not callable: {render(clause.head)}")
    name, arity = clause.key
    check_definable(name, arity)
    state = lookup(name, arity)
    if state is None:
        return
    if static:
        if not state.static and not state.declared_dynamic and state.has_clauses():
            raise PermissionDenied.static(name, arity)
    elif state.static:
        raise PermissionDenied.static(name, arity)


def check_additions(
    clauses: Sequence[Clause],
    lookup: Callable[[str, int], PredicateState | None],
    runs: Runs | None = None,
) -> tuple[list[tuple[int, Clause]], list[tuple[int, ZpmError]]]:
    """``check_addition`` (not static) of each of ``clauses``, in order:
    ``(accepted, refused)``, the clauses that may be added with their index,
    and ``(index, error)`` for the others.

    Each predicate is checked once: adding clauses at run time never changes
    the verdict for their predicate, so a batch of many clauses of a few
    predicates costs a few checks.  ``runs``, when given, are the clauses'
    runs of one predicate each (``stored.clauses.Runs``): each is checked
    once, by its first clause.
    """
    if runs is not None:
        return _check_runs(clauses, lookup, runs)
    accepted: list[tuple[int, Clause]] = []
    refused: list[tuple[int, ZpmError]] = []
    verdicts: dict[tuple[str, int], ZpmError | None] = {}
    for index, clause in enumerate(clauses):
        key = clause.key if is_user_head(clause.head) else None
        if key is None or key not in verdicts:
            verdict: ZpmError | None = None
            try:
                check_addition(clause, lookup, static=False)
            except ZpmError as error:
                verdict = error
            if key is not None:
                verdicts[key] = verdict
        else:
            verdict = verdicts[key]
        if verdict is None:
            accepted.append((index, clause))
        else:
            refused.append((index, verdict))
    return accepted, refused


def _check_runs(
    clauses: Sequence[Clause], lookup: Callable[[str, int], PredicateState | None], runs: Runs
) -> tuple[list[tuple[int, Clause]], list[tuple[int, ZpmError]]]:
    accepted: list[tuple[int, Clause]] = []
    refused: list[tuple[int, ZpmError]] = []
    for start, end in runs:
        try:
            check_addition(clauses[start], lookup, static=False)
        except ZpmError as error:
            refused.extend((index, error) for index in range(start, end))
            continue
        accepted.extend(zip(range(start, end), clauses[start:end]))
    return accepted, refused


def is_most_general(head: Term) -> bool:
    """An atom, or a compound whose arguments are distinct variables: it
    unifies with every head of its predicate (``p(_, _)``, ``p(X, Y)``)."""
    if not isinstance(head, Struct):
        return True
    args = head.args
    return all(type(a) is Var for a in args) and len({id(a) for a in args}) == len(args)


def unifies(head: Term, pattern: Term) -> bool:
    """Whether ``retract_all(pattern)`` takes a clause with ``head``: they
    unify with the occurs check on, so ``p(X, f(X))`` takes ``p(a, f(a))``
    but not ``p(Y, Y)`` (SWI-Prolog's ``retractall/1``, without the occurs
    check, would), exactly as the domain chooses the clauses it forgets."""
    return unify(pattern, head) is not None


def is_variant(stored: Clause, clause: Clause) -> bool:
    """Whether ``retract(clause)`` takes ``stored``: head and body are the
    same up to the names of variables."""
    mine = Struct("-", (stored.head, stored.body))
    theirs = Struct("-", (clause.head, clause.body))
    return variant(mine, theirs)


class StoredEntry(Protocol):
    """What an engine keeps for one stored clause."""

    @property
    def clause(self) -> Clause:
        """The clause as it was added (the very object)."""

    @property
    def fixed(self) -> bool:
        """Added with ``static=True`` (a knowledge file's): no removal takes it."""


def whole_run(stored: Collection[StoredEntry], clauses: Sequence[Clause], start: int) -> int:
    """How many clauses ``stored`` (a predicate's entries, in order) holds
    when they are the clauses of ``clauses`` from ``start`` on (the same
    objects, in order) and none is ``fixed``, so that a copy may take them
    whole; else 0 (also when ``stored`` is empty)."""
    end = start + len(stored)
    if not stored or end > len(clauses):
        return 0
    if any(map(_FIXED, stored)):
        return 0
    if not all(map(operator.is_, map(_CLAUSE, stored), clauses[start:end])):
        return 0
    return len(stored)


_FIXED = operator.attrgetter("fixed")
_CLAUSE = operator.attrgetter("clause")


def leaves_definition_order(state: PredicateState) -> bool:
    """After a removal: ``state`` has no clauses left and was neither declared
    dynamic nor loaded from a knowledge file, so it leaves the order of first
    definition (``current_predicate/1``, the schema); a clause added later
    puts it last, the order a restart that loads only what remains gives."""
    return not state.static and not state.declared_dynamic and not state.has_clauses()


def check_change(name: str, arity: int, state: PredicateState | None) -> None:
    """Refuse removing clauses from, or declaring dynamic, ``name/arity``."""
    check_definable(name, arity)
    if state is not None and state.static:
        raise PermissionDenied.static(name, arity)


P = TypeVar("P", bound=PredicateState)


def changeable(head: Term, lookup: Callable[[str, int], P | None]) -> P | None:
    """The predicate whose clauses a removal matching ``head`` may take.

    ``lookup(name, arity)`` is the engine's own.  ``None`` when ``head`` is
    not callable or names no predicate (nothing to remove); raises as
    ``check_change`` when the predicate may not change.
    """
    if not is_user_head(head):
        return None
    name, arity = Clause(head).key
    pred = lookup(name, arity)
    check_change(name, arity, pred)
    return pred


S = TypeVar("S")


def stored_themselves(
    stored: Sequence[S], clauses: Sequence[Clause], clause_of: Callable[[S], Clause]
) -> tuple[list[S], list[Clause]]:
    """Split ``clauses`` for ``retract_variants``: the entries of ``stored``
    (an engine's removable clauses of one predicate, in order, ``clause_of``
    giving the ``Clause`` each holds) that hold one of ``clauses`` itself,
    in stored order, and the clauses that are not stored themselves, in
    order.  An object given n times takes its first n stored copies (one
    object may be stored twice); the copies it lacks are among the others."""
    wanted: dict[int, int] = {}
    for clause in clauses:
        wanted[id(clause)] = wanted.get(id(clause), 0) + 1
    found: list[S] = []
    for entry in stored:
        key = id(clause_of(entry))
        if wanted.get(key):
            wanted[key] -= 1
            found.append(entry)
    others: list[Clause] = []
    for clause in reversed(clauses):  # the last copies of a clause given twice are left
        if wanted[id(clause)]:
            wanted[id(clause)] -= 1
            others.append(clause)
    others.reverse()
    return found, others


def copy_by_predicate(
    clauses: Sequence[Clause],
    copy_whole: Callable[[int], int],
    add: Callable[[Sequence[Clause]], list[tuple[int, ZpmError]]],
) -> list[tuple[int, ZpmError]]:
    """``Engine.copy_clauses`` walked predicate by predicate: at each place,
    ``copy_whole(start)`` copies the clauses from ``start`` on that are all
    of a predicate of the source, if they are, and says how many (0: none);
    else the run of clauses of that predicate goes to ``add`` (as
    ``add_clauses``).  The refusals by index into ``clauses``, in order."""
    refused: list[tuple[int, ZpmError]] = []
    start = 0
    while start < len(clauses):
        copied = copy_whole(start)
        if copied:
            start += copied
            continue
        key = clauses[start].key
        end = start + 1
        while end < len(clauses) and clauses[end].key == key:
            end += 1
        refused += [(start + index, error) for index, error in add(clauses[start:end])]
        start = end
    return refused
