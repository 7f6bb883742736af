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

        The default changes ``ns`` through the port (the additions first, so
        that a predicate keeps a clause while it can), solves, then takes the
        added clauses out and puts the removed ones back: from the first
        removed clause of a predicate on, its clauses are taken out and added
        again in their order (a stand-in clause keeps the predicate from
        emptying on the way when none comes before them).  That is
        exact unless the removals take every clause of a predicate the
        additions do not add to (it then leaves the order of definition, and
        comes back last) or a knowledge-file clause follows a stored one in
        a predicate (loading puts them first).  The built-in engines put the
        clauses back where they were (python) or roll the changes back
        (SWI-Prolog's ``snapshot/1``).
        """
        held = {key: self.clauses(ns, *key) for key in dict.fromkeys(c.key for c in removed)}
        taken: list[Clause] = []
        try:
            self.add_clauses(ns, added)
            for clause in removed:
                if self.retract_stored(ns, clause):
                    taken.append(clause)
            return list(self.solve(ns, goal, limits))
        finally:
            for clause in added:
                self.retract_stored(ns, clause)  # False for one refused or never added
            gone = {id(clause) for clause in taken}
            for clauses in held.values():
                first = next((i for i, c in enumerate(clauses) if id(c) in gone), None)
                if first is None:
                    continue
                again = clauses[first:]
                still = [clause for clause in again if id(clause) not in gone]
                # Without clauses before them, a stand-in keeps the predicate's place.
                keeper = [] if first or not still else [Clause(still[0].head, still[0].body)]
                self.add_clauses(ns, keeper)
                for clause in still:
                    self.retract_stored(ns, clause)
                self.add_clauses(ns, again)
                for clause in keeper:
                    self.retract_stored(ns, clause)
