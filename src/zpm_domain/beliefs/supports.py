"""Truth maintenance: the supports of client-stored facts, and where beliefs came from.

A memory holds one clause per variant of a fact that assumptions support,
with a set of *supports*: ``plain`` (stored by remember_fact, update_fact,
upsert_fact) and assumption names.  ``assume_fact`` of a fact already stored
adds a support and no copy; ``remember_fact`` of a fact held only by
assumptions adds ``plain`` and no copy.  (Stored plainly twice, a fact stays
two clauses, as Prolog's ``assertz`` does; only the first copy of a variant
carries assumptions.)  A clause is believed while it has a support:
retracting an assumption removes the support from every fact, and removes
the facts that lost their last one.

:class:`Beliefs` keeps this bookkeeping for one memory, beside the engine
that holds the clauses:

* the supported facts, keyed by :func:`variant_key`, in the order they were
  first supported (``get_justification`` lists facts in this order), each
  with its ``plain`` flag and its assumption names in the order they were
  added (``get_belief_status`` lists them so);
* the assumption names in first-seen order (``list_assumptions``), an
  assumption being known while it supports at least one fact;
* where each client-stored clause came from, and the indexes that find one
  by handle or as a variant of a ground fact
  (``zpm_domain.beliefs.stored_index``).

The supports are written to and read from a snapshot section by
``zpm_domain.beliefs.supports_section``.

The bookkeeping of a fact goes with its clause: forget_fact, clear_context,
update_fact and upsert_fact that remove the clause remove its supports too,
and a rename that changes the fact carries them along.
Nothing here is a Prolog predicate, so none of it shows in queries, the
schema, the overview or the references tools.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from zpm_domain.beliefs.stored_index import StoredIndex
from zpm_domain.beliefs.variants import rekeying, variant_key
from zpm_domain.prolog.terms import Term, indicator, renamed_head
from zpm_domain.stored.clauses import Clause, Origin

Key = tuple[str, int]


@dataclass(slots=True)
class Support:
    """The supports of one stored fact (the first copy of its variant).

    ``stored`` is that copy as the engine holds it (the very object) when it
    is known: stored by ``assume`` or loaded from a snapshot.  A rename
    forgets it; the engine then finds the copy as the first variant.
    """

    fact: Term
    plain: bool
    assumptions: list[str] = field(default_factory=list)
    stored: Clause | None = None


class Beliefs:
    """The truth-maintenance bookkeeping of one memory (see the module docstring)."""

    def __init__(self) -> None:
        self._supports: dict[str, Support] = {}
        self._supported_of: dict[Key, dict[str, None]] = {}
        self._names: dict[str, dict[str, None]] = {}  # name -> the variants it supports
        self._stored = StoredIndex()

    # -- reading ----------------------------------------------------------------
    def assumptions(self) -> list[str]:
        """Every assumption that supports a fact, in first-seen order."""
        return list(self._names)

    def knows(self, assumption: str) -> bool:
        return assumption in self._names

    def facts_of(self, assumption: str) -> list[Term]:
        """The facts ``assumption`` supports, in the order they were first supported."""
        return [s.fact for s in self._supports.values() if assumption in s.assumptions]

    def supports(self) -> list[Support]:
        """The supports of every supported fact, in the order first supported."""
        return list(self._supports.values())

    def support(self, fact: Term) -> Support | None:
        """The supports of the stored variant of ``fact``, if assumptions hold it."""
        if indicator(fact) not in self._supported_of:
            return None  # no fact of its predicate is supported: no need for its key
        return self._supports.get(variant_key(fact))

    def supported(self, key: Key) -> Iterator[Support]:
        """The supported facts of predicate ``key``, in the order first supported."""
        for variant in self._supported_of.get(key, ()):
            yield self._supports[variant]

    def orphans(self, assumptions: set[str]) -> list[Support]:
        """The facts that retracting ``assumptions`` would remove (their only
        supports are among them), in no particular order."""
        candidates: dict[str, None] = {}
        for name in assumptions:
            candidates.update(self._names.get(name, {}))
        supports = [self._supports[variant] for variant in candidates]
        if len(assumptions) == 1:  # the supports of one name: orphans have only it
            return [s for s in supports if not s.plain and len(s.assumptions) == 1]
        return [s for s in supports if not s.plain and set(s.assumptions) <= assumptions]

    def origin(self, clause: Clause) -> Origin:
        """Where ``clause`` (as the engine stores it, client-stored) came from."""
        return self._stored.origin(clause)

    def stored_with(self, handle: int, stored: Callable[[], Iterable[Clause]]) -> Clause | None:
        """The client-stored clause with ``handle`` (``StoredIndex.stored_with``)."""
        return self._stored.stored_with(handle, stored)

    def stored_variant(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> Clause | None:
        """The first client-stored fact that is a variant of ground ``fact``
        (``StoredIndex.stored_variant``)."""
        return self._stored.stored_variant(fact, stored)

    def stored_variants(self, fact: Term, stored: Callable[[], Iterable[Clause]]) -> list[Clause]:
        """Every client-stored fact that is a variant of ground ``fact``
        (``StoredIndex.stored_variants``)."""
        return self._stored.stored_variants(fact, stored)

    def stored_sharing_prefix(
        self, fact: Term, stored: Callable[[], Iterable[Clause]]
    ) -> list[Clause]:
        """Every client-stored ground fact of ``fact``'s predicate whose
        arguments but the last are ``fact``'s (``StoredIndex.stored_sharing_prefix``)."""
        return self._stored.stored_sharing_prefix(fact, stored)

    # -- changes (called by the mutations, after the engine changed) -------------
    def reset(self) -> None:
        """Forget everything (the memory starts again from its base)."""
        self._supports.clear()
        self._supported_of.clear()
        self._names.clear()
        self._stored.reset()

    def forget_handles(self) -> None:
        """Drop the indexes by handle and of ground facts (many stored clauses
        were replaced)."""
        self._stored.forget_handles()

    def arrived(self, clause: Clause, origin: Origin) -> None:
        """``clause`` was stored (this very object), coming from ``origin``."""
        self._stored.arrived(clause, origin)

    def assume(
        self, fact: Term, assumption: str, *, plain: bool, stored: Clause | None = None
    ) -> None:
        """Add support ``assumption`` to ``fact``; ``plain`` says whether a plain
        copy already held it when the first assumption arrives, ``stored`` is
        the clause storing it when known (see :class:`Support`)."""
        variant = variant_key(fact)
        support = self._supports.get(variant)
        if support is None:
            support = self._supports[variant] = Support(fact, plain, stored=stored)
            self._supported_of.setdefault(indicator(fact), {})[variant] = None
        if assumption not in support.assumptions:
            support.assumptions.append(assumption)
            self._names.setdefault(assumption, {})[variant] = None

    def unsupport(self, fact: Term, assumption: str) -> Support | None:
        """Take support ``assumption`` from ``fact`` alone; the support, when
        that left the fact with none (the caller removes its clause)."""
        variant = variant_key(fact)
        support = self._supports.get(variant)
        if support is None or assumption not in support.assumptions:
            return None
        support.assumptions.remove(assumption)
        supported = self._names[assumption]
        del supported[variant]
        if not supported:
            del self._names[assumption]
        if support.assumptions:
            return None
        self._untrack(variant, support)
        return None if support.plain else support

    def support_plainly(self, fact: Term) -> bool:
        """Add ``plain`` to an assumed fact; False when assumptions do not hold it."""
        support = self._supports.get(variant_key(fact))
        if support is None:
            return False
        support.plain = True
        return True

    def withdraw(self, assumption: str) -> list[Support]:
        """Remove support ``assumption`` from every fact; return the supports of
        the facts left without any (they are forgotten already: the caller
        removes their clauses, then calls :meth:`removed`).  Facts still held
        plainly stay stored, untracked."""
        gone: list[Support] = []
        for variant in self._names.pop(assumption, {}):
            support = self._supports[variant]
            support.assumptions.remove(assumption)
            if not support.assumptions:
                self._untrack(variant, support)
                if not support.plain:
                    gone.append(support)
        return gone

    def removed(self, clauses: Iterable[Clause], *, first_copies: bool = True) -> None:
        """``clauses`` (as the engine stored them) were removed.  With
        ``first_copies``, each was the first copy of its variant, so a fact's
        supports go with it (``retract_assumption`` removes facts whose
        supports are gone already)."""
        for clause in clauses:
            self._stored.removed(clause)
            if first_copies and clause.is_fact and clause.key in self._supported_of:
                variant = variant_key(clause.head)
                support = self._supports.get(variant)
                if support is not None:
                    self._drop(variant, support)

    def moved(self, pairs: Iterable[tuple[Clause, Clause]]) -> None:
        """Each ``(before, after)``: a stored clause that the engine now holds
        as ``after`` (renamed); its origin follows it."""
        self._stored.moved(pairs)

    def rename_predicate(self, old: str, arity: int, new: str) -> None:
        """The facts of ``old/arity`` became facts of ``new/arity`` (in order):
        their supports follow them, and every order is kept."""
        old_key, new_key = (old, arity), (new, arity)
        rekey = rekeying(old, arity, new)
        renamed = self._supported_of.pop(old_key, {})
        if renamed:
            supports: dict[str, Support] = {}
            of_new: dict[str, str] = {}
            for variant, support in self._supports.items():
                if variant in renamed:
                    support.fact = renamed_head(support.fact, new)
                    support.stored = None
                    of_new[variant] = variant = rekey(variant, support.fact)
                supports[variant] = support
            self._supports = supports
            self._supported_of[new_key] = dict.fromkeys(of_new.values())
            for name, supported in self._names.items():
                self._names[name] = {of_new.get(v, v): None for v in supported}

    def rewritten(self, pairs: Iterable[tuple[Clause, Clause]]) -> None:
        """Each ``(before, after)``: a stored clause that the engine now holds
        as ``after``, a rewrite of ``before`` (a rename inside a denial).  The
        supports of a fact that changes follow it to its new variant and keep
        their place in every order; the engine finds its copy again as the
        first variant.  When the new variant has supports already, the two
        merge in the place of the one first supported: ``plain`` when either
        is, the assumptions of both, in order, the first one's first.
        Origins are :meth:`moved`'s business."""
        renamed: dict[str, Term] = {}
        for before, after in pairs:
            if before.is_fact and self.support(before.head) is not None:
                variant = variant_key(before.head)
                if variant_key(after.head) != variant:
                    renamed[variant] = after.head
        if renamed:
            self._rekey(renamed)

    def _rekey(self, renamed: dict[str, Term]) -> None:
        """Give the supports of the variants in ``renamed`` their new fact,
        merging those that meet (see :meth:`rewritten`)."""
        supports: dict[str, Support] = {}
        new_of: dict[str, str] = {}
        for variant, support in self._supports.items():
            if variant in renamed:
                support.fact, support.stored = renamed[variant], None
                new_of[variant] = variant = variant_key(support.fact)
            first = supports.setdefault(variant, support)
            if first is not support:
                first.plain = first.plain or support.plain
                first.assumptions.extend(
                    a for a in support.assumptions if a not in first.assumptions
                )
                first.stored = None
        self._supports = supports
        self._supported_of = {}
        for variant, support in supports.items():
            self._supported_of.setdefault(indicator(support.fact), {})[variant] = None
        for name, supported in self._names.items():
            self._names[name] = {new_of.get(v, v): None for v in supported}

    def _drop(self, variant: str, support: Support) -> None:
        for name in support.assumptions:
            supported = self._names[name]
            del supported[variant]
            if not supported:
                del self._names[name]
        self._untrack(variant, support)

    def _untrack(self, variant: str, support: Support) -> None:
        del self._supports[variant]
        key = indicator(support.fact)
        of_key = self._supported_of[key]
        del of_key[variant]
        if not of_key:
            del self._supported_of[key]

    def load(self, names: Iterable[str], supports: Iterable[tuple[Support, Clause]]) -> None:
        """Hold ``supports`` (read back from a snapshot, each with the clause
        that stores its fact, ``stored``), the assumptions in the order of
        ``names``; a name that supports no fact is not kept."""
        for name in names:
            self._names[name] = {}
        for support, clause in supports:
            for name in support.assumptions:
                self.assume(support.fact, name, plain=support.plain, stored=clause)
        for name, supported in list(self._names.items()):
            if not supported:
                del self._names[name]
