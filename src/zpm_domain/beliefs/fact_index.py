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
        self._prefixes: dict[Key, dict[Args, list[Clause]]] = {}

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

    def sharing_prefix(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> list[Clause]:
        """Every stored ground fact of ``fact``'s predicate (a compound
        :func:`ground_args` keys) whose arguments but the last are those of
        ``fact`` (``==``), in clause order; ``stored`` as for :meth:`variant_of`.
        A predicate's table of prefixes is built the first time it is asked."""
        assert isinstance(fact, Struct) and ground_args(fact) is not None
        key = indicator(fact)
        table = self._prefixes.get(key)
        if table is None:
            table = self._prefixes[key] = {}
            for clause in stored():
                _add_prefix(table, clause)
        prefix = fact.args[:-1]
        return [
            clause
            for clause in table.get(prefix, ())
            if all(terms_equal(a, b) for a, b in zip(clause.head.args, prefix))  # type: ignore[union-attr]
        ]

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
        prefixes = self._prefixes.get(clause.key)
        if prefixes is not None:
            _add_prefix(prefixes, clause)

    def removed(self, clause: Clause) -> None:
        """``clause`` (the object stored) left the memory."""
        table = self._tables.get(clause.key)
        if table is not None and clause.is_fact:
            args = ground_args(clause.head)
            if args is not None:
                table.remove(args, clause)
        prefixes = self._prefixes.get(clause.key)
        if prefixes is not None and isinstance(clause.head, Struct):
            prefix = clause.head.args[:-1]
            held = prefixes.get(prefix)
            if held is not None:
                kept = [c for c in held if c is not clause]
                if kept:
                    prefixes[prefix] = kept
                else:
                    del prefixes[prefix]

    def forget(self, key: Key | None = None) -> None:
        """Drop the tables of predicate ``key`` (every table when ``None``)."""
        if key is None:
            self._tables.clear()
            self._prefixes.clear()
        else:
            self._tables.pop(key, None)
            self._prefixes.pop(key, None)


def _add_prefix(table: dict[Args, list[Clause]], clause: Clause) -> None:
    """Index ``clause`` by its arguments but the last when it is a ground
    fact with arguments (a fact with a variable or a NaN is not indexed)."""
    if clause.is_fact and isinstance(clause.head, Struct) and ground_args(clause.head) is not None:
        table.setdefault(clause.head.args[:-1], []).append(clause)


def _built(stored: Iterable[Clause]) -> _Table:
    table = _Table()
    for clause in stored:
        if clause.is_fact:
            args = ground_args(clause.head)
            if args is not None:
                table.add(args, clause)
    return table
