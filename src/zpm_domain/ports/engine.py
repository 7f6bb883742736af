"""The Engine port: a clause store and solver with one namespace per memory.

Engines exchange *domain* terms only (``zpm_domain.prolog.terms``).  They never parse
or print Prolog text: the domain's reader and writer do that, so every engine
gives byte-identical tool results.

Contract for every implementation (checked by the contract suite):

* Namespaces are independent databases.  ``ensure_namespace`` is idempotent;
  using a namespace that does not exist raises ``KeyError``.
* Clause order is insertion order (``front=True`` inserts first).  Listing and
  solving follow it; a running solve sees the database as it was when each
  predicate was called (logical update view).
* Calling a predicate that has no clauses and is not a built-in *fails*.
* A goal ``M:G`` runs ``G`` in namespace ``M``; an unknown ``M`` raises
  ``MemoryNotMounted``.  Within :meth:`Engine.reaching`, so does an ``M``
  outside the reach.
* Stored clauses keep their variable names: ``clauses()`` returns terms whose
  ``Var.name`` are those of the clause that was added.
* Errors: an uncaught Prolog exception → ``PrologError(ball)`` with an ISO
  ball shaped as SWI-Prolog 9 shapes it; a limit → a ``LimitExceeded``
  subclass; changing a built-in → ``PermissionDenied.builtin``; changing a
  static predicate → ``PermissionDenied.static``.  After any error the
  database is exactly as before the failed operation.
* The changing methods are templates: ``add_clause``, ``add_clauses``,
  ``copy_clauses``, ``declare_dynamic``, ``retract``, ``retract_variants``,
  ``retract_stored`` and ``retract_all`` apply the checks of
  ``zpm_domain.ports.store_checks`` (through the engine's ``_lookup``) and
  then call the engine's part, a protected method of the same name
  (``_add_clause``...), which is only reached with a change the checks
  allow.  Engines override the protected methods; the public ones are
  ``@final``.
* ``close()`` releases what the engine holds; the app calls it at shutdown.
* ``explain`` and ``tabled_answers`` (explain_why, trace_dependency) are
  optional: the defaults raise ``EngineUnsupported``, a clear error result.
  The built-in engines run the interpreters of
  ``zpm_adapters/prolog/zpm_proofs.pl`` natively; its header states the
  semantics an implementation must give.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import final

from zpm_domain.errors import EngineUnsupported, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.proofs import ProofStep
from zpm_domain.ports.solutions import Solution
from zpm_domain.ports.store_checks import (
    PredicateState,
    changeable,
    check_addition,
    check_additions,
    check_change,
)
from zpm_domain.prolog.terms import Term, most_general
from zpm_domain.stored.clauses import Clause, PredicateInfo, Runs, by_predicate

Lookup = Callable[[str, int], PredicateState | None]
"""An engine's ``lookup(name, arity)``: what it holds for a predicate of
one namespace, ``None`` for a predicate it never saw."""

Refusals = list[tuple[int, ZpmError]]
"""Clauses an addition refused, as ``(index in the clauses given, error)``."""


class Engine(ABC):
    """A Prolog clause store plus solver."""

    #: Registry name (``python``, ``janus``, ``pyswip``...).
    name: str = ""

    @abstractmethod
    def version(self) -> str:
        """Human-readable version of the engine and what it embeds."""

    def close(self) -> None:  # noqa: B027 (optional hook, a no-op unless overridden)
        """Release what the engine holds outside Python; idempotent.

        The engine is not used after ``close``.  The default does nothing.
        """

    # -- namespaces ---------------------------------------------------------
    @abstractmethod
    def ensure_namespace(self, ns: str) -> None:
        """Create namespace ``ns`` if it does not exist (idempotent)."""

    @abstractmethod
    def drop_namespace(self, ns: str) -> None:
        """Forget namespace ``ns`` and all its clauses (no-op if absent)."""

    # -- clauses: the checks, then the engine's part ----------------------
    @abstractmethod
    def _lookup(self, ns: str) -> Lookup:
        """The engine's ``lookup(name, arity)`` for namespace ``ns``, which the
        checks ask (``KeyError`` when ``ns`` does not exist)."""

    @final
    def add_clause(
        self, ns: str, clause: Clause, *, front: bool = False, static: bool = False
    ) -> None:
        """Add ``clause`` at the end (or, with ``front=True``, the front) of
        its predicate.

        ``front=True`` is not called by any tool (kept because the shipped
        engine checks, ``zpm_contract.engine_checks``, insert at the front to
        prove that a fork's clause lists are its own).

        ``static=True`` adds a clause of a knowledge file: no removal ever
        takes it (``retract`` and ``retract_all`` pass it by).  Unless the
        predicate was declared dynamic first, the predicate becomes static:
        later non-static additions or removals raise
        ``PermissionDenied.static``.  A static addition to a predicate that
        holds clauses added at run time (and was not declared dynamic) also
        raises it.  Checks (``check_addition``), then ``_add_clause``.
        """
        check_addition(clause, self._lookup(ns), static=static)
        self._add_clause(ns, clause, front=front, static=static)

    @abstractmethod
    def _add_clause(self, ns: str, clause: Clause, *, front: bool, static: bool) -> None:
        """``add_clause`` once the checks accepted ``clause``."""

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
    def declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        """Mark ``name/arity`` dynamic (a knowledge file's ``:- dynamic``).
        Checks (``check_change``), then ``_declare_dynamic``."""
        check_change(name, arity, self._lookup(ns)(name, arity))
        self._declare_dynamic(ns, name, arity)

    @abstractmethod
    def _declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        """``declare_dynamic`` once the checks allowed it."""

    @final
    def retract(self, ns: str, clause: Clause) -> Clause | None:
        """Remove the first clause that is a variant of ``clause`` (head and
        body: the same up to the names of variables, ``store_checks.is_variant``),
        as ``forget_fact`` does.  Clauses added with ``static=True`` are never
        removed.  Returns the removed clause as stored (its own variable
        names), or ``None`` when nothing matched.  Checks (``changeable``),
        then ``_retract`` when the predicate exists.
        """
        if changeable(clause.head, self._lookup(ns)) is None:
            return None
        return self._retract(ns, clause)

    @abstractmethod
    def _retract(self, ns: str, clause: Clause) -> Clause | None:
        """``retract`` once the checks allowed it; the predicate exists."""

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

    @final
    def retract_stored(self, ns: str, clause: Clause) -> bool:
        """Remove ``clause`` itself: the very object given to ``add_clause`` or
        ``add_clauses`` (its first copy when it was given twice), never
        another clause, even a variant.  The other clauses keep their order.
        Returns whether it was removed (``False``: it is not stored, and
        nothing changed).  Raises as ``retract`` does when its predicate may
        not change.  Callers pass clauses stored without ``static=True``.

        The cost must not grow with the predicate's size: ``unassert-handle``
        withdraws one clause of a predicate of millions.  Checks
        (``changeable``), then ``_retract_stored``.
        """
        if changeable(clause.head, self._lookup(ns)) is None:
            return False
        return self._retract_stored(ns, clause)

    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        """``retract_stored`` once the checks allowed it.  Engines may find
        the clause by ``clause.handle`` (a stored clause has one), comparing
        identity.  Default: a search for the object, then
        ``_retract_variants`` (which removes the object itself)."""
        name, arity = clause.key
        if not any(stored is clause for stored in self.iter_clauses(ns, name, arity)):
            return False
        return bool(self._retract_variants(ns, [clause]))

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

    @final
    def retract_all(self, ns: str, head: Term) -> int:
        """Remove every clause (fact or rule) whose head unifies with ``head``
        with the occurs check on (``store_checks.unifies``: ``p(X, f(X))``
        does not take ``p(Y, Y)``), as the domain decides what it forgets,
        except those added with ``static=True``.

        Returns how many were removed (0 is not an error).  Checks
        (``changeable``), then ``_retract_all`` when the predicate exists.
        """
        if changeable(head, self._lookup(ns)) is None:
            return 0
        return self._retract_all(ns, head)

    @abstractmethod
    def _retract_all(self, ns: str, head: Term) -> int:
        """``retract_all`` once the checks allowed it; the predicate exists."""

    @abstractmethod
    def clauses(self, ns: str, name: str, arity: int) -> list[Clause]:
        """Clauses of ``name/arity`` in order (empty when unknown).

        They are the very ``Clause`` objects given to ``add_clause`` and
        ``add_clauses`` (``retract`` returns them too): the domain keeps
        bookkeeping per stored clause by identity (``zpm_domain.beliefs.supports``).
        """

    def iter_clauses(self, ns: str, name: str, arity: int) -> Iterator[Clause]:
        """The clauses of ``name/arity`` in order, as ``clauses`` gives them,
        read lazily: a caller that stops after a few pays for those (the
        ``matching`` tool reads a page of a predicate of millions).  The
        predicate must not change while the iterator is in use.  The default
        lists them all first; engines override it."""
        return iter(self.clauses(ns, name, arity))

    @abstractmethod
    def predicates(self, ns: str) -> list[PredicateInfo]:
        """User predicates of ``ns`` in order of first definition.

        Includes predicates declared dynamic that have no clauses; never
        includes built-ins.
        """

    # -- solving ------------------------------------------------------------
    @abstractmethod
    def solve(self, ns: str, goal: Term, limits: Limits) -> Iterator[Solution]:
        """Enumerate the answers of ``goal`` lazily, in standard Prolog order.

        The goal has already passed the domain's sandbox check.  Closing the
        iterator early releases the engine.  Limits apply to the whole
        enumeration, measured from this call; running out of time,
        inferences or memory raises a ``BudgetExceeded``.  Solutions hold
        the ``answered_variables(goal)``; their values count against
        ``limits.max_answer_cells`` (compound terms, list cells included,
        and 64-bit words of big integers), beyond which ``AnswersTooLarge``
        is raised; a value that is a cyclic term raises ``CyclicAnswer``
        naming its variable.
        """

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
        taken = [clause for clause in removed if self.retract_stored(ns, clause)]
        refused = {index for index, _ in self.add_clauses(ns, added)}
        try:
            return list(self.solve(ns, goal, limits))
        finally:
            for index, clause in enumerate(added):
                if index not in refused:
                    self.retract_stored(ns, clause)
            gone = {id(clause) for clause in taken}
            for clauses in held.values():
                first = next((i for i, c in enumerate(clauses) if id(c) in gone), None)
                if first is None:
                    continue
                back = [c for c in clauses[first:] if id(c) in gone or self.retract_stored(ns, c)]
                self.add_clauses(ns, back)

    @final
    @contextmanager
    def reaching(self, namespaces: frozenset[str] | None) -> Iterator[None]:
        """Within the block, every solve this engine starts (:meth:`solve`,
        :meth:`explain`, :meth:`tabled_answers`) reaches only the namespaces
        ``namespaces`` names and its own (``None``: every namespace).

        A namespace out of reach answers exactly as one that does not
        exist: ``MemoryNotMounted(name)`` for ``M:G`` with ``M`` written or
        computed at run time, in the goal, in the stored clauses it runs,
        under meta-calls (``call/N``, ``findall/3``, ``\\+``...) and in the
        reflection predicates (``current_predicate(M:P)``,
        ``predicate_property(M:H, P)``).  Names in ``namespaces`` that are
        not namespaces change nothing.  A solve keeps the reach in force
        when :meth:`solve` (or :meth:`explain`, :meth:`tabled_answers`) was
        called, also while it is enumerated after the block; blocks nest,
        the innermost one counts, and the reach before the block is back
        however it ends.  The reach is the engine's, not a thread's (the
        app calls an engine from one thread).  Nothing but solving is
        limited: clauses, predicates and changes name their namespace
        themselves.

        Calls ``_reaching``, the engine's part, on entry and on exit.
        """
        before = self._reaching(namespaces)
        try:
            yield
        finally:
            self._reaching(before)

    @final
    @contextmanager
    def aliasing(self, aliases: Mapping[str, str]) -> Iterator[None]:
        """Within the block, every solve this engine starts (:meth:`solve`,
        :meth:`explain`, :meth:`tabled_answers`) reads namespace
        ``aliases[name]`` wherever it names namespace ``name``: ``M:G`` and
        ``M:Spec`` with ``M`` written or computed at run time, in the goal,
        in the stored clauses it runs, under meta-calls and in the
        reflection predicates.  A read of the past names memories by their
        names and so reaches their replicas (``zpm_domain.history.past``).

        ``name`` is in reach when ``name`` or ``aliases[name]`` is
        (:meth:`reaching`; the solve's own namespace always is); an error
        names ``name``; a target that is no namespace makes ``name`` answer
        as a namespace that does not exist (``MemoryNotMounted(name)``).  A
        solve keeps the aliases in force when it was started; blocks nest,
        the innermost one counts, and the aliases before the block are back
        however it ends.  Calls ``_aliasing``, the engine's part, on entry
        and on exit."""
        before = self._aliasing(dict(aliases))
        try:
            yield
        finally:
            self._aliasing(before)

    @abstractmethod
    def _aliasing(self, aliases: dict[str, str]) -> dict[str, str]:
        """Make ``aliases`` those of the solves started from now on (see
        :meth:`aliasing`); return those it replaces."""

    @abstractmethod
    def _reaching(self, namespaces: frozenset[str] | None) -> frozenset[str] | None:
        """Make every solve started from now on reach only ``namespaces``
        and its own namespace (``None``: every namespace), as
        :meth:`reaching` says; return the reach this one replaces (``None``
        at first)."""

    def interrupt(self) -> None:  # noqa: B027 (optional hook, a no-op unless overridden)
        """Stop solving: the solve running now, and every solve that starts
        before :meth:`resume`, ends soon with ``Interrupted`` (the built-in
        engines stop within milliseconds).  Safe to call from any thread,
        including while another thread solves.  The default does nothing:
        a cancelled solve then runs until its limits end it.
        """

    def resume(self) -> None:  # noqa: B027 (optional hook, a no-op unless overridden)
        """Forget an :meth:`interrupt`; called by the thread that uses the
        engine, before each tool call, after the interrupt was requested."""

    # -- reasoning (optional) -----------------------------------------------
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
