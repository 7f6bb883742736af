"""Solving as if some clauses were stored and others not: a write checked before it is made.

Optional: the default changes the namespace through the port, solves, and
puts it back (see :meth:`Hypotheses.solve_as_if`).
"""

from __future__ import annotations

from collections.abc import Sequence

from zpm_domain.limits import Limits
from zpm_domain.ports.engine_bulk import BulkLoad
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.terms import Term
from zpm_domain.stored.clauses import Clause


class Hypotheses(BulkLoad):
    """Capability ``hypotheses``: :meth:`solve_as_if`."""

    capability = "hypotheses"

    def solve_as_if(
        self,
        ns: str,
        goal: Term,
        limits: Limits,
        added: Sequence[Clause] = (),
        removed: Sequence[Clause] = (),
    ) -> list[Solution]:
        """The answers of ``goal`` in ``ns`` as :meth:`solve` gives them (all
        of them, within ``limits``) as if the clauses ``removed`` were not
        stored and ``added`` were added at the end of their predicates; when
        it returns or raises, ``ns`` is exactly as it was: its clauses, their
        order and the predicates' order of definition.  ``removed`` are
        clauses stored in ``ns`` without ``static=True`` (the very objects;
        others are ignored); ``added`` are clauses of predicates tools may
        change, not stored (an engine that refuses one leaves it out).  A
        write's integrity rules are checked this way before the write is
        stored (``zpm_domain.constraints.integrity``).

        The default changes ``ns`` through the port, solves, then takes the
        added clauses out and puts the removed ones back: the stored clauses
        of each such predicate from the first removed one on are taken out
        and added again in their order.  That is exact when no knowledge-file
        clause follows a stored one in the predicate (loading puts them
        first) and a removal leaves no predicate empty.  The built-in engines
        put the clauses back where they were (python) or roll the changes
        back (SWI-Prolog's ``snapshot/1``).
        """
        held = {key: self.clauses(ns, *key) for key in dict.fromkeys(c.key for c in removed)}
        taken: list[Clause] = []
        try:
            for clause in removed:
                if self.retract_stored(ns, clause):
                    taken.append(clause)
            self.add_clauses(ns, added)
            return list(self.solve(ns, goal, limits))
        finally:
            for clause in added:
                self.retract_stored(ns, clause)  # False for one refused or never added
            gone = {id(clause) for clause in taken}
            for clauses in held.values():
                first = next((i for i, c in enumerate(clauses) if id(c) in gone), None)
                if first is None:
                    continue
                back = [c for c in clauses[first:] if id(c) in gone or self.retract_stored(ns, c)]
                self.add_clauses(ns, back)
