"""Bulk loading and copying: many clauses added, copied or removed at once.

Optional: every method has a default that goes through the core one clause
at a time (correct, and slower); engines override the protected parts to do
it in one pass.  The public methods are ``@final`` templates that apply the
checks of ``zpm_domain.ports.store_checks`` first.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import final

from zpm_domain.errors import ZpmError
from zpm_domain.ports.engine_core import EngineCore, Refusals
from zpm_domain.ports.store_checks import changeable, check_additions
from zpm_domain.prolog.terms import most_general
from zpm_domain.stored.clauses import Clause, Runs, by_predicate


class BulkLoad(EngineCore):
    """Capability ``bulk_load``: adding, copying and removing many clauses."""

    capability = "bulk_load"

    @final
    def add_clauses(self, ns: str, clauses: Sequence[Clause]) -> Refusals:
        """Add ``clauses`` in order, each at the end of its predicate, as
        ``add_clause`` (not static) would one by one; a clause it would refuse
        is skipped and the others are added.

        Returns the refusals as ``(index in clauses, error)``, in order.
        Loading many clauses at once (a snapshot) goes through here.  Checks
        (``check_additions``, once per predicate), then ``_add_clauses`` with
        the accepted clauses.
        """
        accepted, refused = check_additions(clauses, self._lookup(ns))
        refused += self._add_clauses(ns, accepted)
        refused.sort(key=lambda pair: pair[0])
        return refused

    def _add_clauses(self, ns: str, accepted: Sequence[tuple[int, Clause]]) -> Refusals:
        """Add the ``(index, clause)`` pairs the checks accepted, in order, at
        the end of their predicates; the refusals (an engine may still refuse
        a clause, e.g. a body that is not callable) by index.  Engines may do
        it faster than the default, one ``_add_clause`` per clause."""
        refused: Refusals = []
        for index, clause in accepted:
            try:
                self._add_clause(ns, clause, front=False, static=False)
            except ZpmError as error:
                refused.append((index, error))
        return refused

    @final
    def copy_clauses(
        self, source: str, ns: str, clauses: Sequence[Clause], runs: Runs | None = None
    ) -> Refusals:
        """``add_clauses(ns, clauses)``, for clauses that namespace ``source``
        of this engine stores: a fork copies its base's clauses this way.

        A clause that is one ``source`` holds (the very object, as
        ``clauses()`` gives it) may be copied from what the engine built for
        it there instead of being built again; any other clause is added as
        ``add_clauses`` adds it.  The result is exactly that of
        ``add_clauses``.  Checks as ``add_clauses`` (each predicate once by
        the ``runs`` of one predicate each, when given), then ``_copy_clauses``.
        """
        accepted, refused = check_additions(clauses, self._lookup(ns), runs)
        refused += self._copy_clauses(source, ns, accepted)
        refused.sort(key=lambda pair: pair[0])
        return refused

    def _copy_clauses(
        self, source: str, ns: str, accepted: Sequence[tuple[int, Clause]]
    ) -> Refusals:
        """``_add_clauses`` for the accepted clauses of ``copy_clauses``, which
        may reuse what ``source`` built for them.  Default: ``_add_clauses``."""
        return self._add_clauses(ns, accepted)

    @final
    def retract_variants(self, ns: str, clauses: Sequence[Clause]) -> list[Clause]:
        """Remove each of ``clauses`` that is itself stored (the very object
        given to ``add_clause``, not ``static=True``; its first copy when it
        was given twice); then, for each other
        one in turn, the first remaining clause that is a variant of it (never
        a ``static=True`` one); a clause with no variant left is skipped.
        Returns the removed clauses as stored.

        Callers pass stored clauses only when no earlier stored clause is a
        variant of them, so both ways name the same clause; the identity lets
        engines skip the comparison.  Checks each predicate (``changeable``),
        then ``_retract_variants`` with its clauses.
        """
        lookup = self._lookup(ns)
        removed: list[Clause] = []
        for group in by_predicate(clauses):
            if changeable(group[0].head, lookup) is not None:
                removed += self._retract_variants(ns, group)
        return removed

    def _retract_variants(self, ns: str, group: Sequence[Clause]) -> list[Clause]:
        """``retract_variants`` for ``group``, clauses of one predicate that
        exists and may change.  Default: ``_retract`` of each; engines remove
        many clauses of a predicate in one pass."""
        removed = (self._retract(ns, clause) for clause in group)
        return [clause for clause in removed if clause is not None]

    def rename_clauses(self, ns: str, name: str, arity: int, new: str) -> None:
        """Move every clause of ``name/arity`` to the end of ``new/arity``, in
        order: each keeps its body and its variable names, its head takes the
        name ``new``.  ``name/arity`` must have no ``static=True`` clause and
        ``new/arity`` must be a name tools may define (the caller checks).

        Adds the renamed clauses and removes the old ones; engines override
        it to move clauses without storing them again.
        """
        moving = self.clauses(ns, name, arity)
        if not moving:
            return
        self.add_clauses(ns, [c.renamed(new) for c in moving])
        self.retract_all(ns, most_general(name, arity))

    def iter_clauses(self, ns: str, name: str, arity: int) -> Iterator[Clause]:
        """The clauses of ``name/arity`` in order, as ``clauses`` gives them,
        read lazily: a caller that stops after a few pays for those (the
        ``matching`` tool reads a page of a predicate of millions).  The
        predicate must not change while the iterator is in use.  The default
        lists them all first; engines override it."""
        return iter(self.clauses(ns, name, arity))
