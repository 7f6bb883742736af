"""A run of replayed additions, stored together (:class:`Additions`).

Replaying a journal (``zpm_domain.memory.recovery``) stores each run of
``AddClause`` mutations in one engine call (``Target.store_all``), where
one per clause would cost the SWI engines a call into Prolog each, before
any other change applies.  Storing a run is the same as applying its
mutations one by one: whether a clause is defeated depends on the knowledge
files alone, and the checks the mutations passed on the predicates' names,
which additions do not change.
"""

from __future__ import annotations

from zpm_domain.changes.mutations import Target
from zpm_domain.stored.clauses import Clause, Origin


class Additions:
    """The replayed additions not stored yet, from ``origin``, for ``memory``."""

    def __init__(self, memory: Target, origin: Origin) -> None:
        self._memory = memory
        self.origin = origin
        self._run: list[Clause] = []

    def add(self, clause: Clause) -> None:
        self._run.append(clause)

    def store(self) -> None:
        """Store the run, then number what it stored; raises the error of
        the first clause the engine refused (as storing them one by one
        would have, once the others are stored)."""
        run, self._run = self._run, []
        if not run:
            return
        refused = self._memory.store_all(run, self.origin)
        if refused:
            raise refused[0][1]
        for clause in run:
            self._memory.numbering.saw(clause.handle)
