"""Defeat: a client's fact that a functional predicate's curated knowledge contradicts.

``:- functional(Name/Arity).`` in a memory's knowledge file says that the
last argument of ``Name/Arity`` is a function of the others, in that memory.
A ground fact a client stores is *defeated* when a knowledge-file fact of
the same predicate (monotonic knowledge) has the same other arguments and a
different last argument.  A defeated clause is stored — journaled, kept in
snapshots (section ``defeated``), with its handle and provenance — but kept
out of the engine, so every tool sees it as absent; only ``assert`` (it is
already there), ``unassert-handle`` (it can be withdrawn) and ``argue`` (why
the fact is false) see it.

Defeat is decided when a clause arrives — stored by a tool, replayed from
the journal or loaded from a snapshot — against the knowledge files loaded
before it, so a restart after the files changed decides again.  Only ground
knowledge-file facts defeat.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Struct, Term, terms_equal, variables, variant
from zpm_domain.prolog.writer import Renderer, render
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.handles import is_handle
from zpm_domain.stored.provenance import UNKNOWN, Provenance
from zpm_domain.stored.sections import SectionDamaged

SECTION = "defeated"
"""The snapshot section holding the defeated clauses (see :meth:`Defeats.section`)."""

Key = tuple[str, int]
FileFacts = Callable[[Key], list[Clause]]
"""The knowledge-file clauses of a predicate, in order."""


@dataclass(frozen=True, slots=True)
class Defeat:
    """Why a clause is defeated: the knowledge-file facts that win over it, and
    where the predicate was declared functional (``file:line``)."""

    winners: list[Clause]
    declared: str

    def note(self) -> str:
        """The text that tells a client its fact was stored but is not believed."""
        winner = self.winners[0]
        provenance = winner.provenance or UNKNOWN
        where = f"{provenance.file}:{provenance.line}"
        return f"stored, but defeated by {render(winner.head)} ({where})"


class Defeats:
    """A memory's functional predicates and the defeated clauses it stores
    (in the order they arrived), found by identity, by handle and, for a
    ground fact, by its head in O(1)."""

    def __init__(self) -> None:
        self.functional: dict[Key, str] = {}
        self._clauses: dict[int, Clause] = {}  # by identity, in order
        self._by_handle: dict[int, list[Clause]] = {}
        self._unnumbered: dict[int, Clause] = {}  # added without a handle, by identity
        self._by_head: dict[Term, list[Clause]] = {}  # the ground facts
        self._index: dict[Key, dict[str, list[Clause]]] = {}

    def declare(self, name: str, arity: int, where: str) -> None:
        """``Name/Arity`` is functional (declared at ``where``); arity 0 cannot be."""
        self.functional.setdefault((name, arity), where)

    def defeat_of(self, clause: Clause, file_facts: FileFacts) -> Defeat | None:
        """Why ``clause`` (arriving now) is defeated, ``None`` when it is not."""
        key = clause.key
        declared = self.functional.get(key)
        if declared is None or not clause.is_fact or not isinstance(clause.head, Struct):
            return None
        if variables(clause.head):
            return None
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = _index(file_facts(key))
        last = clause.head.args[-1]
        winners = [
            winner
            for winner in index.get(_prefix(clause.head), ())
            if not terms_equal(winner.head.args[-1], last)  # type: ignore[union-attr]
        ]
        return Defeat(winners, declared) if winners else None

    # -- the defeated clauses ----------------------------------------------------------
    def add(self, clause: Clause) -> None:
        """Keep ``clause`` (this very object), last."""
        self._clauses[id(clause)] = clause
        if clause.handle is None:
            self._unnumbered[id(clause)] = clause
        else:
            self._by_handle.setdefault(clause.handle, []).append(clause)
        if _ground_fact(clause):
            self._by_head.setdefault(clause.head, []).append(clause)

    def remove(self, clause: Clause) -> None:
        """Forget ``clause`` (this very object); nothing when it is not kept."""
        if self._clauses.pop(id(clause), None) is None:
            return
        self._unnumbered.pop(id(clause), None)
        if clause.handle is not None:
            _discard(self._by_handle, clause.handle, clause)
        if _ground_fact(clause):
            _discard(self._by_head, clause.head, clause)

    def holds(self, clause: Clause) -> bool:
        """Whether ``clause`` (this very object) is a defeated clause kept here."""
        return self._clauses.get(id(clause)) is clause

    def clear(self) -> None:
        self._clauses.clear()
        self._by_handle.clear()
        self._unnumbered.clear()
        self._by_head.clear()

    def clauses(self) -> list[Clause]:
        return list(self._clauses.values())

    def __iter__(self) -> Iterator[Clause]:
        return iter(self.clauses())

    def with_handle(self, handle: int) -> Clause | None:
        """The first defeated clause with ``handle`` (one added without a
        handle is found by the handle it was numbered with since)."""
        numbered = [(c.handle, c) for c in self._unnumbered.values() if c.handle is not None]
        for number, clause in numbered:
            del self._unnumbered[id(clause)]
            self._by_handle.setdefault(number, []).append(clause)
        found = self._by_handle.get(handle)
        return found[0] if found else None

    def variant_of(self, fact: Term) -> Clause | None:
        """The first defeated fact that is a variant of ``fact``.  Only ground
        facts are defeated, so a fact with variables is searched for among
        the others, which are normally none."""
        if variables(fact):
            return next((c for c in self if c.is_fact and variant(c.head, fact)), None)
        found = self._by_head.get(fact)
        return found[0] if found else None

    def variants_of(self, fact: Term) -> list[Clause]:
        """Every defeated fact that is a variant of ``fact``, in order."""
        if variables(fact):
            return [c for c in self if c.is_fact and variant(c.head, fact)]
        return list(self._by_head.get(fact, ()))

    # -- snapshots ---------------------------------------------------------------------
    def section(self) -> list[str]:
        """One JSON line per defeated clause, in order: ``[handle, clause, tool,
        client, at]``."""
        lines = []
        for clause in self._clauses.values():
            p = clause.provenance or UNKNOWN
            entry = [clause.handle, render_clause(clause), p.tool, p.client, p.at]
            lines.append(json.dumps(entry, ensure_ascii=False))
        return lines


def read_section(lines: list[str]) -> list[Clause]:
    """The clauses of a section written by :meth:`Defeats.section`."""
    clauses = []
    for number, line in enumerate(lines, start=1):
        try:
            handle, text, *fields = json.loads(line)
            clause = Clause.from_term(read_term(text))
        except (ValueError, TypeError, PrologSyntaxError) as error:
            raise SectionDamaged(number, f"does not read ({error})") from None
        if not (handle is None or is_handle(handle)) or len(fields) != 3:
            raise SectionDamaged(number, "not a defeated clause")
        if not all(v is None or isinstance(v, str) for v in fields):
            raise SectionDamaged(number, "tool, client and at must be strings or null")
        clauses.append(clause if handle is None else clause.stamped(handle, Provenance(*fields)))
    return clauses


def _ground_fact(clause: Clause) -> bool:
    return clause.is_fact and not variables(clause.head)


def _discard(index: dict[Any, list[Clause]], key: object, clause: Clause) -> None:
    """Take ``clause`` (this very object) out of ``index[key]``."""
    rest = [c for c in index.get(key, ()) if c is not clause]
    if rest:
        index[key] = rest
    else:
        index.pop(key, None)


def _index(facts: list[Clause]) -> dict[str, list[Clause]]:
    """The ground knowledge-file facts of a predicate by their other arguments."""
    index: dict[str, list[Clause]] = {}
    for clause in facts:
        if clause.is_fact and isinstance(clause.head, Struct) and not variables(clause.head):
            index.setdefault(_prefix(clause.head), []).append(clause)
    return index


def _prefix(head: Struct) -> str:
    """A text equal for two ground heads exactly when all but their last
    arguments are the same."""
    return Renderer().render(Struct("k", head.args[:-1])) if len(head.args) > 1 else ""
