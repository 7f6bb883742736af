"""The lists of a predicate's first-argument index, and how they change.

A predicate's ``index`` maps the key of a clause's first argument (see
``compiled_clause.arg_key``) to the clauses that may match a call whose
first argument has that key: the clauses with that key and the clauses
whose first argument is a variable, in clause order.  ``varlist`` holds the
latter alone (the candidates for a key no clause mentions).  A key whose
only candidate is one clause maps to that clause itself rather than to a
list of it (an :data:`Entry`): predicates keyed by an identifier hold one
such clause per key, and a list each would cost more than the clause.

Every list here is in ``seq`` order (``CClause.seq``), so a clause's place
in one is found by bisection.
"""

from __future__ import annotations

from bisect import bisect_left
from operator import attrgetter
from typing import TypeAlias

from zpm_adapters.engine_python.compiled_clause import CClause

_seq = attrgetter("seq")

Entry: TypeAlias = "list[CClause] | CClause"
"""A value of ``Predicate.index``: the candidates of a key, or the one clause
that is its only candidate (never a clause whose first argument is a variable)."""


def build_index(clauses: list[CClause]) -> tuple[dict[object, Entry], list[CClause]]:
    """The index and the ``varlist`` of ``clauses`` (in clause order), in
    lists of their own."""
    index: dict[object, Entry] = {}
    varlist: list[CClause] = []
    for clause in clauses:
        key = clause.key
        if key is None:
            varlist.append(clause)
            append_to_all(index, clause, None)
        else:
            found = index.get(key)
            if found is None:
                index[key] = [*varlist, clause] if varlist else clause
            elif isinstance(found, CClause):
                index[key] = [found, clause]
            else:
                found.append(clause)
    return index, varlist


def append_to_all(index: dict[object, Entry], clause: CClause, owned: set[object] | None) -> None:
    """Append ``clause`` (its first argument a variable) to every entry of
    ``index``: lists it ``owned`` (``None``: all) in place, the others as copies."""
    for key, entry in index.items():  # values change, keys do not
        if isinstance(entry, CClause):
            index[key] = [entry, clause]
        elif owned is None or key in owned:
            entry.append(clause)
        else:
            index[key] = [*entry, clause]


def cut(lst: list[CClause], clause: CClause, in_place: bool) -> list[CClause]:
    """``lst`` without ``clause`` (compared by identity): ``lst`` itself,
    changed when ``in_place``, else a copy; ``lst`` when it lacks it."""
    i = bisect_left(lst, clause.seq, key=_seq)
    if i == len(lst) or lst[i] is not clause:
        return lst
    if not in_place:
        return lst[:i] + lst[i + 1 :]
    del lst[i]
    return lst


def put(lst: list[CClause], clause: CClause) -> list[CClause]:
    """A copy of ``lst`` (in ``seq`` order) with ``clause`` in its place."""
    i = bisect_left(lst, clause.seq, key=_seq)
    return [*lst[:i], clause, *lst[i:]]
