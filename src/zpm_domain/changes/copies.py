"""The client-stored clauses a change finds and touches: the copy a removal
takes (:func:`first_variant`), every copy of a fact (:func:`copies`, the
footprint of a change of its supports, ``Mutation.footprint``), and taking
one stored clause out (:func:`remove_stored`)."""

from __future__ import annotations

from zpm_domain.beliefs.fact_index import ground_args
from zpm_domain.changes.target import Target
from zpm_domain.ports.store_checks import is_variant
from zpm_domain.prolog.terms import Term, indicator, variant
from zpm_domain.stored.clauses import Clause


def first_variant(target: Target, clause: Clause) -> Clause | None:
    """The client-stored, believed clause that removing ``clause`` takes:
    the first variant of it (head and body) in clause order."""
    if clause.is_fact and ground_args(clause.head) is not None:
        found = target.beliefs.stored_variants(
            clause.head, lambda: target.stored_clauses(*clause.key)
        )
        return found[0] if found else None
    return next((c for c in target.stored_clauses(*clause.key) if is_variant(c, clause)), None)


def copies(target: Target, fact: Term) -> set[int]:
    """The handles of every client-stored copy of ``fact``: the stored
    facts that are variants of it, believed or defeated (a footprint's
    part for a change of ``fact``'s supports, which its first copy carries)."""
    key = indicator(fact)
    if ground_args(fact) is not None:
        found = target.beliefs.stored_variants(fact, lambda: target.stored_clauses(*key))
    else:
        found = [c for c in target.stored_clauses(*key) if c.is_fact and variant(c.head, fact)]
    found += target.defeats.variants_of(fact)
    return {clause.handle for clause in found if clause.handle is not None}


def held_copies(target: Target, clause: Clause) -> set[int]:
    """:func:`copies` of a fact (whose supports its removal may take); none
    for a rule."""
    return copies(target, clause.head) if clause.is_fact else set()


def clause_copies(target: Target, clause: Clause) -> set[int]:
    """:func:`copies` of a fact; for a rule, every stored rule of its
    predicate (rules have no index, and a predicate's rules are few)."""
    if clause.is_fact:
        return copies(target, clause.head)
    return {
        c.handle
        for c in target.stored_clauses(*clause.key)
        if not c.is_fact and c.handle is not None
    }


def remove_stored(target: Target, stored: Clause) -> None:
    """Take the client-stored clause ``stored`` (this very object, as the
    memory holds it) out: from the defeated clauses, or from the engine with
    the supports it carries."""
    if target.defeats.holds(stored):
        target.defeats.remove(stored)
        return
    first = target.support_of(stored) is not None
    if target.engine.retract_stored(target.namespace, stored):
        target.beliefs.removed([stored], first_copies=first)
