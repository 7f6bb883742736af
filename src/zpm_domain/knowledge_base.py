"""One mounted memory: an engine namespace, its journal and its rules of change.

Every change goes through :meth:`KnowledgeBase.commit`, which

1. takes the journal's lock (so other processes on the same project wait),
2. catches up with batches other processes appended,
3. checks that each mutation is allowed (not read-only, not a built-in, not a
   static predicate from a knowledge file),
4. appends the batch durably, and only then
5. applies it to the engine.

So a reply is sent only after its change is on disk, a refused or failed
change leaves no trace, and a crash never leaves half a tool call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager

from zpm_domain.builtins import is_protected
from zpm_domain.clauses import Clause, PredicateInfo
from zpm_domain.errors import MemoryReadOnly, PermissionDenied
from zpm_domain.limits import Limits
from zpm_domain.mutations import BadOperation, Mutation, from_journal
from zpm_domain.ports.engine import Engine, Solution
from zpm_domain.ports.journal import Journal, JournalCorrupt
from zpm_domain.terms import Term, indicator

log = logging.getLogger("zpm")


class KnowledgeBase:
    """A memory's clauses (in ``engine`` namespace ``name``) and its journal."""

    def __init__(
        self,
        name: str,
        engine: Engine,
        journal: Journal,
        *,
        read_only: bool = False,
        journal_label: str = "journal",
    ) -> None:
        self.name = name
        self.engine = engine
        self.journal = journal
        self.read_only = read_only
        self._journal_label = journal_label
        self._static: set[tuple[str, int]] = set()
        self._declared_dynamic: set[tuple[str, int]] = set()
        engine.ensure_namespace(name)

    @property
    def namespace(self) -> str:
        """The engine namespace holding this memory's clauses."""
        return self.name

    # -- start-up -------------------------------------------------------------
    def add_static(self, clause: Clause) -> None:
        """Add a clause from a knowledge file (static unless declared dynamic)."""
        key = clause.key
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        if key in self._declared_dynamic:
            self.engine.add_clause(self.name, clause)
            return
        self.engine.add_clause(self.name, clause, static=True)
        self._static.add(key)

    def declare_dynamic(self, name: str, arity: int) -> None:
        """A knowledge file's ``:- dynamic(name/arity)``."""
        if is_protected(name, arity):
            raise PermissionDenied.builtin(name, arity)
        if (name, arity) in self._static:
            raise PermissionDenied.static(name, arity)
        self._declared_dynamic.add((name, arity))
        self.engine.declare_dynamic(self.name, name, arity)

    def recover(self) -> int:
        """Replay the journal from where this handle stands; returns batches applied."""
        with self.journal.lock():
            return self._catch_up()

    # -- reading --------------------------------------------------------------
    def sync(self) -> None:
        """Apply batches that other processes appended since the last call."""
        with self.journal.lock():
            self._catch_up()

    def solve(self, goal: Term, limits: Limits) -> Iterator[Solution]:
        """Lazily enumerate the answers of an already sandbox-checked goal."""
        self.sync()
        return self.engine.solve(self.name, goal, limits)

    def clauses(self, name: str, arity: int) -> list[Clause]:
        return self.engine.clauses(self.name, name, arity)

    def predicates(self) -> list[PredicateInfo]:
        return self.engine.predicates(self.name)

    def is_static(self, name: str, arity: int) -> bool:
        return (name, arity) in self._static

    # -- writing --------------------------------------------------------------
    def writing(self) -> AbstractContextManager[None]:
        """Hold the journal lock, caught up, while a tool plans and commits a change."""
        return self._writing()

    @contextmanager
    def _writing(self) -> Iterator[None]:
        if self.read_only:
            raise MemoryReadOnly(self.name)
        with self.journal.lock():
            self._catch_up()
            yield

    def check_mutable(self, head: Term) -> None:
        """Raise ``PermissionDenied`` if tools may not change ``head``'s predicate."""
        key = indicator(head)
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        if key in self._static:
            raise PermissionDenied.static(*key)

    def commit(self, mutations: Sequence[Mutation]) -> None:
        """Journal ``mutations`` as one durable batch, then apply them.

        Must be called inside :meth:`writing`.  Nothing is written when the
        batch is empty.
        """
        if self.read_only:
            raise MemoryReadOnly(self.name)
        for mutation in mutations:
            mutation.check(self)
        if not mutations:
            return
        self.journal.append([m.journal_op() for m in mutations])
        for mutation in mutations:
            mutation.apply(self)

    # -- internals ------------------------------------------------------------
    def _catch_up(self) -> int:
        records = self.journal.read_new()
        for record in records:
            for op in record.ops:
                try:
                    mutation = from_journal(op)
                except BadOperation as exc:
                    raise JournalCorrupt(self._journal_label, record.line, str(exc)) from exc
                self._replay(mutation, record.line)
        return len(records)

    def _replay(self, mutation: Mutation, line: int) -> None:
        """Apply one journaled mutation, unless it no longer passes its check.

        A record for a predicate that is built in now (a newer zpm protects
        its name) or that a knowledge file now defines is not applied, and
        is reported; it stays in the journal, so nothing is lost when the
        name becomes free again.
        """
        try:
            mutation.check(self)
        except PermissionDenied as refusal:
            op = mutation.journal_op()
            log.warning(
                "%s line %d: not loaded, kept in the journal: %s %s (%s is %s now)",
                self._journal_label,
                line,
                op.op,
                " ".join(str(v) for v in op.args.values()),
                refusal.indicator,
                refusal.reason,
            )
            return
        mutation.apply(self)
