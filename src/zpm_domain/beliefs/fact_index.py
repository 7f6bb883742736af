"""The ground facts a memory's tools stored, by their arguments: a variant found in O(1).

``assert`` answers the handle of a stored fact that is a variant of its
sentence.  For a ground sentence the variants are exactly the stored facts
with the same arguments (``==``), so :class:`GroundFacts` keeps, per
predicate, the stored ground facts keyed by their argument tuple, in clause
order.  A predicate's table is built the first time a fact of it is looked
up (one pass over its clauses), then kept up to date by :meth:`~GroundFacts.added`
and :meth:`~GroundFacts.removed`; :meth:`~GroundFacts.forget` drops tables
when many clauses were replaced at once (they are built again when needed).

Keys are argument tuples, compared as Python compares them: equal for two
ground heads that are ``==``, and sometimes for two that are not (``1`` and
``1.0``, ``0.0`` and ``-0.0``), so a lookup confirms what it finds.  A NaN
argument is not equal to another NaN in a tuple, so a fact with one is not
indexed (:func:`ground_args` is ``None``): the caller searches for it, as
for a fact with variables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from zpm_domain.prolog.terms import Atom, String, Struct, Term, indicator, terms_equal, variables
from zpm_domain.stored.clauses import Clause

Key = tuple[str, int]
Args = tuple[Term, ...]


_CONSTANTS = frozenset({Atom, int, String})


def ground_args(head: Term) -> Args | None:
    """The key of a fact's head: its arguments (``()`` for an atom), or
    ``None`` when the head has a variable or an argument that is a NaN."""
    if not isinstance(head, Struct):
        return ()
    for arg in head.args:
        if type(arg) not in _CONSTANTS and not _keyed(arg):
            return None
    return head.args


def _keyed(arg: Term) -> bool:
    """Whether an argument other than an atom, an integer or a string may be
    part of a key: a float other than NaN, or a ground compound term."""
    if isinstance(arg, float):
        return arg == arg  # noqa: PLR0124 (NaN is the one value unequal to itself)
    return isinstance(arg, Struct) and not variables(arg)


class _Table:
    """The stored ground facts of one predicate: the first fact of each key,
    and the later ones that share it (a fact stored twice, or ``p(1)`` beside
    ``p(1.0)``), each in clause order."""

    __slots__ = ("first", "more")

    def __init__(self) -> None:
        self.first: dict[Args, Clause] = {}
        self.more: dict[Args, list[Clause]] = {}

    def add(self, args: Args, clause: Clause) -> None:
        held = self.first.setdefault(args, clause)
        if held is not clause:
            self.more.setdefault(args, []).append(clause)

    def remove(self, args: Args, clause: Clause) -> None:
        later = self.more.pop(args, [])
        if self.first.get(args) is clause:
            if later:
                self.first[args] = later.pop(0)
            else:
                del self.first[args]
        else:
            later = [c for c in later if c is not clause]
        if later:
            self.more[args] = later

    def find(self, args: Args, head: Term) -> Clause | None:
        held = self.first.get(args)
        if held is None or terms_equal(held.head, head):
            return held
        return next((c for c in self.more.get(args, []) if terms_equal(c.head, head)), None)

    def find_all(self, args: Args, head: Term) -> list[Clause]:
        held = self.first.get(args)
        if held is None:
            return []
        return [c for c in (held, *self.more.get(args, [])) if terms_equal(c.head, head)]


class GroundFacts:
    """The stored ground facts of a memory, per predicate (see the module docstring)."""

    def __init__(self) -> None:
        self._tables: dict[Key, _Table] = {}

    def variant_of(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> Clause | None:
        """The first stored fact, in clause order, that is a variant of ``fact``
        (whose :func:`ground_args` must not be ``None``); ``stored`` lists the
        stored clauses of ``fact``'s predicate in order, for building its
        table when it has none."""
        args, table = self._table(fact, stored)
        return table.find(args, fact)

    def variants_of(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> list[Clause]:
        """Every stored fact that is a variant of ``fact``, in clause order
        (the same conditions as :meth:`variant_of`)."""
        args, table = self._table(fact, stored)
        return table.find_all(args, fact)

    def _table(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> tuple[Args, _Table]:
        """``fact``'s key and its predicate's table (built now when it has none)."""
        args = ground_args(fact)
        assert args is not None, "only a ground fact without a NaN is looked up"
        key = indicator(fact)
        table = self._tables.get(key)
        if table is None:
            table = self._tables[key] = _built(stored())
        return args, table

    def added(self, clause: Clause) -> None:
        """``clause`` was stored at the end of its predicate."""
        table = self._tables.get(clause.key)
        if table is not None and clause.is_fact:
            args = ground_args(clause.head)
            if args is not None:
                table.add(args, clause)

    def removed(self, clause: Clause) -> None:
        """``clause`` (the object stored) left the memory."""
        table = self._tables.get(clause.key)
        if table is not None and clause.is_fact:
            args = ground_args(clause.head)
            if args is not None:
                table.remove(args, clause)

    def forget(self, key: Key | None = None) -> None:
        """Drop the table of predicate ``key`` (every table when ``None``)."""
        if key is None:
            self._tables.clear()
        else:
            self._tables.pop(key, None)


def _built(stored: Iterable[Clause]) -> _Table:
    table = _Table()
    for clause in stored:
        if clause.is_fact:
            args = ground_args(clause.head)
            if args is not None:
                table.add(args, clause)
    return table
