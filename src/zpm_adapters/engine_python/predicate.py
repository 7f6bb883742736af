"""``Predicate``: one predicate of a namespace, its compiled clauses in order.

Logical update view without copying on every change
-----------------------------------------------------
A call takes the list of candidate clauses that is current when it starts
and remembers its length.  The store never changes such a list except by
appending to its end, so a running call keeps seeing exactly the clauses that
existed when it began:

* ``assertz`` appends to the current lists (O(1), plus the first-argument
  index entry);
* ``asserta`` is recorded as *pending*; the next call or listing puts the
  pending clauses in front, in new list objects (one C-speed copy per batch);
* a removal replaces the lists that held the clause by copies without it
  (C-speed slicing; a batch of removals is one pass).

Lists held by running calls are never touched, so 100,000 additions cost
O(1) each and removals never rebuild the whole index in Python.

Removing one stored clause
--------------------------
:meth:`Predicate.remove_stored` takes out one clause without a pass over the
predicate: each clause has a ``seq`` that grows along the clause order
(given when it is added), so its place in every list is found by bisection;
the clause itself is found by its handle (``Predicate.compiled_of``).  When
no call is running (the caller says so) the lists change in place, which
costs one move of their tails at C speed; otherwise they are copied, as
above.

First-argument index
--------------------
``index`` and ``varlist`` hold the clauses again by the key of their first
argument, so that a call finds its candidates at once (``clause_index``);
:meth:`Predicate.candidates` gives them.  A fork's copy of a predicate
(:meth:`Predicate.adopt`) shares the index's lists with the original
instead of copying each: from then on both change a list only after taking
a copy of their own (``owned``), once per key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from zpm_adapters.engine_python.clause_index import Entry, append_to_all, build_index, cut, put
from zpm_adapters.engine_python.compiled_clause import CClause, arg_key
from zpm_adapters.engine_python.runtime import RTerm
from zpm_domain.stored.clauses import Clause


class Named(Protocol):
    """What a predicate reads of the namespace holding it (``store.Namespace``)."""

    name: str


class Predicate:
    """One predicate ``name/arity`` of a namespace.

    ``defined`` is false for predicates that are only referenced by compiled
    code; those are not listed and calling them fails.
    """

    __slots__ = (
        "name",
        "arity",
        "ns",
        "defined",
        "declared_dynamic",
        "static",
        "all",
        "index",
        "varlist",
        "pending_front",
        "listed",
        "last_seq",
        "first_seq",
        "by_handle",
        "rules",
        "owned",
    )

    def __init__(self, name: str, arity: int, ns: Named) -> None:
        self.name = name
        self.arity = arity
        self.ns = ns
        self.defined = False
        self.declared_dynamic = False
        self.static = False
        self.all: list[CClause] = []
        self.index: dict[object, Entry] = {}
        self.varlist: list[CClause] = []
        self.pending_front: list[CClause] = []
        self.listed = False
        self.last_seq = 0  # the seq of the last clause added at the end
        self.first_seq = 0  # the seq of the last clause added at the front
        self.by_handle: dict[int, CClause] | None = None  # built by compiled_of
        self.rules = 0  # how many clauses have a body
        self.owned: set[object] | None = None  # the index keys whose lists are ours (None: all)

    # -- reading -------------------------------------------------------------
    def current(self) -> list[CClause]:
        """The clause list as of now (after applying pending front additions)."""
        if self.pending_front:
            self._apply_front()
        return self.all

    def has_clauses(self) -> bool:
        return bool(self.current())

    def candidates(self, first: RTerm) -> Sequence[CClause]:
        """Clauses that may match a call whose dereferenced first argument is
        ``first`` (a sequence that never changes after it is returned but by
        additions at its end)."""
        if self.pending_front:
            self._apply_front()
        key = arg_key(first)
        if key is None:
            return self.all
        found = self.index.get(key)
        if found is None:
            return self.varlist
        return (found,) if type(found) is CClause else found  # type: ignore[return-value]

    @property
    def clause_count(self) -> int:
        return len(self.current())

    def compiled_of(self, clause: Clause) -> CClause | None:
        """The compiled clause holding ``clause`` (this very object; its first
        copy when it was added twice), ``None`` when it holds none: found by
        the clause's handle, else by a search."""
        stored = self.current()
        if self.by_handle is None:
            self.by_handle = {}
            for compiled in stored:
                if compiled.clause.handle is not None:
                    self.by_handle.setdefault(compiled.clause.handle, compiled)
        found = self.by_handle.get(clause.handle) if clause.handle is not None else None
        if found is not None and found.clause is clause:
            return found
        return next((compiled for compiled in stored if compiled.clause is clause), None)

    # -- changing ------------------------------------------------------------
    def adopt(self, source: Predicate) -> None:
        """Take the clauses of ``source`` (another namespace's predicate of
        facts alone) while this one has none: the compiled facts are shared,
        as neither namespace changes a compiled clause once it is added
        (their ``seq`` come along, so both keep their order); the lists and
        the index are this predicate's own copies."""
        assert not self.current() and source.rules == 0
        self.defined = True
        self.all = list(source.current())
        self.varlist = list(source.varlist)
        self.index = dict(source.index)  # the lists are shared until either side changes one
        self.owned, source.owned = set(), set()
        self.last_seq, self.first_seq = source.last_seq, source.first_seq
        self.by_handle = None

    def add(self, clause: CClause, front: bool) -> None:
        self.defined = True
        if clause.body is not None:
            self.rules += 1
        handle = clause.clause.handle
        if front:
            self.first_seq -= 1
            clause.seq = self.first_seq
            self.pending_front.append(clause)
            if self.by_handle is not None and handle is not None:
                self.by_handle[handle] = clause
            return
        self.last_seq += 1
        clause.seq = self.last_seq
        if self.by_handle is not None and handle is not None:
            self.by_handle.setdefault(handle, clause)
        if self.pending_front:
            self._apply_front()
        self.all.append(clause)
        key = clause.key
        if key is None:
            self.varlist.append(clause)
            append_to_all(self.index, clause, self.owned)
            self.owned = None  # every list is this predicate's own now
            return
        found = self.index.get(key)
        if found is None:
            self.index[key] = [*self.varlist, clause] if self.varlist else clause
        elif isinstance(found, CClause):
            self.index[key] = [found, clause]
        elif self._owns(key):
            found.append(clause)
        else:
            self.index[key] = [*found, clause]
        if self.owned is not None:
            self.owned.add(key)

    def _owns(self, key: object) -> bool:
        return self.owned is None or key in self.owned

    def remove(self, clause: CClause) -> None:
        """Remove ``clause`` (an object of :meth:`current`)."""
        self.remove_stored(clause, in_place=False)

    def remove_stored(self, clause: CClause, *, in_place: bool) -> None:
        """Remove ``clause`` (an object of :meth:`current`) from every list
        holding it: in place when ``in_place`` (no running call holds one),
        else as copies (see the module docstring)."""
        if self.pending_front:
            self._apply_front()
        self._forget_handle(clause)
        if clause.body is not None:
            self.rules -= 1
        self.all = cut(self.all, clause, in_place)
        key = clause.key
        if key is None:  # a lone entry never is such a clause
            self.varlist = cut(self.varlist, clause, in_place)
            self.index = {
                k: lst if isinstance(lst, CClause) else cut(lst, clause, in_place and self._owns(k))
                for k, lst in self.index.items()
            }
            return
        lst = self.index.get(key)
        if lst is clause:
            del self.index[key]
        elif lst is not None and not isinstance(lst, CClause):
            rest = cut(lst, clause, in_place and self._owns(key))
            if len(rest) == len(self.varlist):
                del self.index[key]  # only variable-first clauses are left
            else:
                self.index[key] = rest

    def reinstate(self, clause: CClause) -> None:
        """Put back ``clause``, taken out by :meth:`remove_stored`, where it
        was (its ``seq`` says where), in new lists: a running call keeps the
        ones it holds."""
        if self.pending_front:
            self._apply_front()
        self.defined = True
        if clause.body is not None:
            self.rules += 1
        self.by_handle = None
        self.all = put(self.all, clause)
        key = clause.key
        if key is None:
            self.varlist = put(self.varlist, clause)
            self.index = {
                k: put([entry] if isinstance(entry, CClause) else entry, clause)
                for k, entry in self.index.items()
            }
            self.owned = None
            return
        found = self.index.get(key)
        if found is None:
            self.index[key] = put(self.varlist, clause) if self.varlist else clause
        else:
            self.index[key] = put([found] if isinstance(found, CClause) else found, clause)
        if self.owned is not None:
            self.owned.add(key)

    def _forget_handle(self, clause: CClause) -> None:
        handle = clause.clause.handle
        if handle is not None and self.by_handle is not None:
            if self.by_handle.get(handle) is clause:
                del self.by_handle[handle]

    def remove_many(self, clauses: list[CClause]) -> None:
        """Remove several clauses in one pass."""
        if len(clauses) == 1:
            self.remove(clauses[0])
            return
        doomed = {id(c) for c in clauses}
        self._rebuild([c for c in self.current() if id(c) not in doomed])

    def clear(self) -> None:
        self._rebuild([])

    def _apply_front(self) -> None:
        front = self.pending_front[::-1]
        self.pending_front = []
        if any(c.key is None for c in front):
            self._rebuild(front + self.all)
            return
        self.all = front + self.all
        groups: dict[object, list[CClause]] = {}
        for c in front:
            groups.setdefault(c.key, []).append(c)
        for key, group in groups.items():
            found = self.index.get(key, self.varlist)
            self.index[key] = group + ([found] if isinstance(found, CClause) else found)

    def _rebuild(self, clauses: list[CClause]) -> None:
        self.all = clauses
        self.pending_front = []
        self.by_handle = None
        self.rules = sum(1 for clause in clauses if clause.body is not None)
        self.index, self.varlist = build_index(clauses)
        self.owned = None

    def __repr__(self) -> str:
        return f"<Predicate {self.ns.name}:{self.name}/{self.arity}>"
