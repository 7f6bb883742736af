"""How a clause enters a memory: believed, into its engine namespace, or among
its defeated clauses (:meth:`Stores.store`); and which predicates tools may
change at all (:meth:`Stores.check_mutable`).

``Memory`` (``zpm_domain.memory.memory``) is a :class:`Stores`: the
mutations a commit applies (``zpm_domain.changes``), a journal replay and an
import store their clauses through it.
"""

from __future__ import annotations

from collections.abc import Sequence

from zpm_domain.beliefs.defeat import Defeat
from zpm_domain.memory.reads import Reads
from zpm_domain.ports.engine import Refusals
from zpm_domain.prolog.allowlist import is_protected
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import Term, indicator
from zpm_domain.stored.clauses import Clause, Origin


class Stores(Reads):
    """The stores of this module, into the clauses a memory holds."""

    def check_mutable(self, head: Term) -> None:
        """Raise ``PermissionDenied`` if tools may not change ``head``'s predicate."""
        key = indicator(head)
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        if self.files.is_static(key):
            raise PermissionDenied.static(*key)

    def store(self, clause: Clause, origin: Origin) -> Defeat | None:
        """Store a clause a tool gives (or the journal, or a snapshot): into the
        engine, unless it is defeated (then among the defeated clauses); the defeat."""
        found = self.defeat_of(clause)
        if found is not None:
            self.defeats.add(clause)
            return found
        self.engine.add_clause(self.namespace, clause)
        self.beliefs.arrived(clause, origin)
        return None

    def store_all(self, clauses: Sequence[Clause], origin: Origin) -> Refusals:
        """:meth:`store` of each clause, the engine adding the believed ones in
        one ``add_clauses`` (a journal replay stores its runs of additions
        this way); the clauses the engine refused, ``(index in clauses,
        error)``, the others stored."""
        believed: list[int] = []
        for index, clause in enumerate(clauses):
            if self.defeat_of(clause) is None:
                believed.append(index)
            else:
                self.defeats.add(clause)
        refused = self.engine.add_clauses(self.namespace, [clauses[i] for i in believed])
        skipped = {index for index, _ in refused}
        for position, index in enumerate(believed):
            if position not in skipped:
                self.beliefs.arrived(clauses[index], origin)
        return [(believed[position], error) for position, error in refused]
