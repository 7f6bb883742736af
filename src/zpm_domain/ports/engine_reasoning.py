"""Proofs and tabled answers: what ``explain_why`` and ``trace_dependency`` ask of an engine.

Optional: by default both raise ``EngineUnsupported``, a clear error result.
The built-in engines run the interpreters of
``zpm_adapters/prolog/zpm_proofs.pl`` natively; its header states the
semantics an implementation must give.
"""

from __future__ import annotations

from zpm_domain.errors import EngineUnsupported
from zpm_domain.limits import Limits
from zpm_domain.ports.engine_core import EngineCore
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.prolog.terms import Term


class Reasoning(EngineCore):
    """Capability ``reasoning``: :meth:`explain` and :meth:`tabled_answers`."""

    capability = "reasoning"

    def explain(
        self, ns: str, goal: Term, limits: Limits, max_depth: int
    ) -> list[ProofStep] | None:
        """The first proof of ``goal`` in ``ns``, or ``None`` when it has none.

        The proof is the pre-order list of its steps (root first, at depth
        0) as a meta-interpreter over the namespace's stored clauses finds
        it: standard Prolog order, cut as in the clause it appears in; a
        stored clause is a node whose children are the goals of its body
        (conjunctions flattened, the branch of a disjunction or if-then-else
        that succeeded, ``true`` and ``!`` left out); a built-in, ``\\+ G``
        and ``not(G)`` are leaves (``clause`` is ``None``); a control
        construct at the root is a built-in node over its goals; ``M:G`` is
        proved with memory ``M``'s clauses and shown as ``M:G``.  A user
        goal that is a variant of an ancestor (same namespace) is not
        expanded again: that branch fails and the search goes on.  Steps
        deeper than ``max_depth`` are left out; a step at ``max_depth`` that
        has children is marked ``truncated``.  A step proved by a rule names
        it in ``ProofStep.clause`` (the stored clause itself, as
        ``clauses()`` returns it); one proved by a fact may name it there or
        set ``fact`` instead.

        ``goal`` passed the sandbox check; limits apply to the whole proof,
        the steps count against ``limits.max_answer_cells``.  A proof that
        binds one of the ``answered_variables(goal)`` to a cyclic term raises
        ``CyclicAnswer`` naming it, as :meth:`solve` does for that goal; a
        cyclic term elsewhere in the steps raises ``CyclicAnswer(None)``.
        The default raises ``EngineUnsupported``.
        """
        raise EngineUnsupported("explain_why", self.name, "explain")

    def tabled_answers(self, ns: str, goal: Term, limits: Limits) -> list[Term]:
        """The distinct answers of ``goal`` (its instances, one per variant, in
        the order found) under the tabling-like evaluation of
        ``zpm_proofs.pl``, which ends on cyclic graphs: a call of ``goal``'s
        predicate in tail position becomes a task (the call and the answer
        of ``goal`` it gives), run after the tasks made before it and at
        most once per pass; a call that is a variant of ``goal`` reads
        ``goal``'s answers found so far (those found while it reads
        included); any other call of ``goal``'s predicate is expanded at
        most once per pass; a call of another predicate that is a variant of
        an ancestor reads that ancestor's answers; passes repeat while one
        that read answers found something new.

        Limits apply to the whole evaluation; the answers count against
        ``limits.max_answer_cells``.  The default raises ``EngineUnsupported``.
        """
        raise EngineUnsupported("trace_dependency", self.name, "tabled_answers")
