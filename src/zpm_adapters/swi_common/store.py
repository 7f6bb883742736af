"""The clause store half of ``SwiEngine``: namespaces and clauses in SWI-Prolog.

One SWI module per namespace of each engine instance
(``zpm_<instance>_<name>``, made by ``zpm_support:zpm_ensure/3``); the clause
mirror (``mirror``) keeps the domain clauses, each with the id of its SWI
clause, and the permission state the port's checks read (``_lookup``).
Clauses are added, copied, moved and erased by one call into SWI-Prolog per
batch; what a removal takes is decided in Python, on the mirror, with the
port's shared rules (``store_checks.is_variant``, ``unifies``).  Solving is
``engine.SwiEngine``'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from zpm_adapters.swi_common import codec
from zpm_adapters.swi_common.binding import Binding
from zpm_adapters.swi_common.mirror import Entry, MirrorNamespace, MirrorPredicate
from zpm_domain.errors import ExecutionFailed, ZpmError
from zpm_domain.ports.engine import Engine, Lookup, Refusals
from zpm_domain.ports.store_checks import (
    copy_by_predicate,
    is_most_general,
    is_variant,
    leaves_definition_order,
    stored_themselves,
    unifies,
    whole_run,
)
from zpm_domain.prolog.errors import PrologError
from zpm_domain.prolog.terms import Struct, Term, Var, indicator
from zpm_domain.stored.clauses import Clause, PredicateInfo

ADD = "zpm_support:zpm_add(M, T, F, S, Id)"
ADD_ALL = "zpm_support:zpm_add_all(M, Ts, First, Refused)"
BATCH = 2000
COPY_PREDICATE = "zpm_support:zpm_copy_predicate(S, M, N, A, Count, First)"
DECLARE = "zpm_support:zpm_declared(M, N, A)"
ERASE = "zpm_support:zpm_erase_all(Ids)"
FORGET = "zpm_support:zpm_forget(M, N, A)"
RENAME = "zpm_support:zpm_rename(M, New, A, Ids)"
_INSTANCES = itertools.count(1)

FEW = 8
"""An erase of fewer than one clause in ``FEW`` of a predicate takes the
clauses out one by one; more, and the predicate's entries are rebuilt."""


class SwiClauseStore(Engine):
    """The port's clause half over a :class:`Binding`; ``SwiEngine`` adds solving."""

    big_ints = True

    def __init__(self, binding: Binding) -> None:
        self._binding = binding
        self._namespaces: dict[str, MirrorNamespace] = {}
        self._instance = next(_INSTANCES)

    def version(self) -> str:
        return self._binding.version_text()

    # -- namespaces ---------------------------------------------------------
    def ensure_namespace(self, ns: str) -> None:
        if ns not in self._namespaces:
            found = self._binding.once(
                "zpm_support:zpm_ensure(I, N, M)", {"I": self._instance, "N": ns}
            )
            assert found is not None
            self._namespaces[ns] = MirrorNamespace(ns, codec._text(found["M"]))

    def drop_namespace(self, ns: str) -> None:
        namespace = self._namespaces.pop(ns, None)
        if namespace is not None:
            self._binding.once("zpm_support:zpm_drop(I, N)", {"I": self._instance, "N": ns})

    def close(self) -> None:
        """Drop every namespace (their clauses leave SWI-Prolog); idempotent."""
        for ns in list(self._namespaces):
            self.drop_namespace(ns)

    def _ns(self, ns: str) -> MirrorNamespace:
        return self._namespaces[ns]

    # -- clauses (the port checks first) ----------------------------------
    def _lookup(self, ns: str) -> Lookup:
        return self._namespaces[ns].lookup

    def _pred(self, ns: str, key: tuple[str, int]) -> MirrorPredicate:
        """The predicate ``key`` of ``ns``, which the port's checks found."""
        return self._namespaces[ns].predicates[key]

    def _add_clause(self, ns: str, clause: Clause, *, front: bool, static: bool) -> None:
        namespace = self._ns(ns)
        name, arity = clause.key
        known = namespace.lookup(name, arity)
        makes_static = static and not (known is not None and known.declared_dynamic)
        try:
            found = self._binding.once(
                ADD,
                {
                    "M": namespace.module,
                    "T": self._clause_tokens(clause),
                    "F": "true" if front else "false",
                    "S": "true" if makes_static else "false",
                },
            )
        except RuntimeError as error:
            raise ExecutionFailed(str(error)) from None
        if found is None:
            raise ExecutionFailed("assert failed")
        result = found["Id"]
        if isinstance(result, list):
            raise PrologError(codec.decode(result[1]))
        entry = Entry(clause, int(result), fixed=static)
        pred = namespace.predicate(name, arity)
        pred.static = pred.static or makes_static
        if front:
            pred.prepend(entry)
        else:
            pred.append(entry)

    def _add_clauses(self, ns: str, accepted: Sequence[tuple[int, Clause]]) -> Refusals:
        """One call into SWI-Prolog per ``BATCH`` clauses."""
        namespace = self._ns(ns)
        refused: Refusals = []
        preds: dict[tuple[str, int], MirrorPredicate] = {}
        for start in range(0, len(accepted), BATCH):
            chunk = accepted[start : start + BATCH]
            tokens = [self._clause_tokens(clause) for _, clause in chunk]
            try:
                found = self._binding.once(ADD_ALL, {"M": namespace.module, "Ts": tokens})
            except RuntimeError as error:
                raise ExecutionFailed(str(error)) from None
            if found is None:
                raise ExecutionFailed("assert failed")
            _record(namespace, chunk, int(found["First"]), found["Refused"], refused, preds)
        return refused

    def _copy_clauses(
        self, source: str, ns: str, accepted: Sequence[tuple[int, Clause]]
    ) -> Refusals:
        """Consecutive clauses that are all the clauses of a predicate in
        ``source`` (the very objects, in order), of a predicate without
        clauses here, are copied inside SWI-Prolog, one call per predicate
        (``zpm_copy_predicate/6``: nothing encoded, sent or decoded); the
        others are added as ``_add_clauses`` adds them."""
        origin = self._namespaces.get(source)
        if origin is None:
            return self._add_clauses(ns, accepted)
        namespace = self._ns(ns)
        clauses = [clause for _, clause in accepted]

        def copy_whole(start: int) -> int:
            pred = origin.lookup(*clauses[start].key)
            count = 0 if pred is None else whole_run(pred.entries, clauses, start)
            run = clauses[start : start + count]
            return count if count and self._copy_predicate(origin, namespace, run) else 0

        def add(run: Sequence[Clause]) -> Refusals:
            return self._add_clauses(ns, list(enumerate(run)))

        refused = copy_by_predicate(clauses, copy_whole, add)
        return [(accepted[index][0], error) for index, error in refused]

    def _copy_predicate(
        self, origin: MirrorNamespace, namespace: MirrorNamespace, run: Sequence[Clause]
    ) -> bool:
        """Copy ``run``, all the clauses of one predicate of ``origin``, to
        ``namespace`` inside SWI-Prolog; ``False`` (nothing done) when that
        predicate has clauses here."""
        name, arity = run[0].key
        mine = namespace.lookup(name, arity)
        if mine is not None and mine.has_clauses():
            return False
        inputs = {
            "S": origin.module,
            "M": namespace.module,
            "N": name,
            "A": arity,
            "Count": len(run),
        }
        try:
            found = self._binding.once(COPY_PREDICATE, inputs)
        except RuntimeError as error:
            raise ExecutionFailed(str(error)) from None
        if found is None:
            raise ExecutionFailed(f"copy of {name}/{arity} failed: the mirror does not match")
        first = int(found["First"])
        namespace.predicate(name, arity).fill(
            [Entry(clause, first + i) for i, clause in enumerate(run)]
        )
        return True

    def _clause_tokens(self, clause: Clause) -> list[Any]:
        if clause.is_fact:
            return codec.encode_fact(clause.head, big_ints=self.big_ints)
        return codec.encode(
            Struct(":-", (clause.head, clause.body)),
            top_modes=(codec.DATA, 0),
            big_ints=self.big_ints,
        )

    def _declare_dynamic(self, ns: str, name: str, arity: int) -> None:
        namespace = self._ns(ns)
        self._binding.once(DECLARE, {"M": namespace.module, "N": name, "A": arity})
        namespace.predicate(name, arity).declared_dynamic = True

    def _retract(self, ns: str, clause: Clause) -> Clause | None:
        pred = self._pred(ns, clause.key)
        for entry in pred.entries:
            if not entry.fixed and is_variant(entry.clause, clause):
                self._erase(self._ns(ns), pred, [entry])
                return entry.clause
        return None

    def _retract_variants(self, ns: str, group: Sequence[Clause]) -> list[Clause]:
        pred = self._pred(ns, group[0].key)
        live = [entry for entry in pred.entries if not entry.fixed]
        doomed, others = stored_themselves(live, group, lambda entry: entry.clause)
        taken = {id(entry) for entry in doomed}
        by_first: dict[object, list[Entry]] = {}
        if others:
            for entry in live:
                if id(entry) not in taken:
                    by_first.setdefault(_first_argument(entry.clause.head), []).append(entry)
        for clause in others:
            for entry in by_first.get(_first_argument(clause.head), ()):
                if id(entry) not in taken and is_variant(entry.clause, clause):
                    taken.add(id(entry))
                    doomed.append(entry)
                    break
        if not doomed:
            return []
        self._erase(self._ns(ns), pred, doomed)
        return [entry.clause for entry in doomed]

    def _retract_stored(self, ns: str, clause: Clause) -> bool:
        """Found by its handle in the mirror, erased by its id."""
        namespace = self._ns(ns)
        pred = self._pred(ns, clause.key)
        entry = pred.entry_of(clause)
        if entry is None or entry.fixed:
            return False
        self._binding.once(ERASE, {"Ids": [entry.ref]})
        pred.remove(entry)
        self._forget_if_empty(namespace, pred)
        return True

    def rename_clauses(self, ns: str, name: str, arity: int, new: str) -> None:
        """One call moves the clauses in SWI-Prolog; each keeps its id."""
        namespace = self._ns(ns)
        pred = namespace.lookup(name, arity)
        moving = [] if pred is None else [e for e in pred.entries if not e.fixed]
        if pred is None or not moving:
            return
        arguments = {"M": namespace.module, "New": new, "A": arity, "Ids": [e.ref for e in moving]}
        self._binding.once(RENAME, arguments)
        target = namespace.predicate(new, arity)
        for e in moving:
            target.append(Entry(e.clause.renamed(new), e.ref))
        pred.keep([e for e in pred.entries if e.fixed])
        self._forget_if_empty(namespace, pred)

    def _retract_all(self, ns: str, head: Term) -> int:
        pred = self._pred(ns, indicator(head))
        if is_most_general(head):
            doomed = [e for e in pred.entries if not e.fixed]
        else:
            doomed = [e for e in pred.entries if not e.fixed and unifies(e.clause.head, head)]
        if doomed:
            self._erase(self._ns(ns), pred, doomed)
        return len(doomed)

    def _erase(
        self, namespace: MirrorNamespace, pred: MirrorPredicate, doomed: list[Entry]
    ) -> None:
        """Erase ``doomed``; the predicate leaves the definition order when
        ``store_checks.leaves_definition_order`` says so."""
        self._binding.once(ERASE, {"Ids": [e.ref for e in doomed]})
        if len(doomed) * FEW < len(pred.by_ref):  # one by one: no pass over the others
            for entry in doomed:
                pred.remove(entry)
        else:
            gone = {id(e) for e in doomed}
            pred.keep([e for e in pred.entries if id(e) not in gone])
        self._forget_if_empty(namespace, pred)

    def _forget_if_empty(self, namespace: MirrorNamespace, pred: MirrorPredicate) -> None:
        """Take ``pred`` out of the definition order when
        ``store_checks.leaves_definition_order`` says so."""
        if leaves_definition_order(pred):
            del namespace.predicates[(pred.name, pred.arity)]
            self._binding.once(FORGET, {"M": namespace.module, "N": pred.name, "A": pred.arity})

    def clauses(self, ns: str, name: str, arity: int) -> list[Clause]:
        pred = self._ns(ns).lookup(name, arity)
        return [] if pred is None else [e.clause for e in pred.entries]

    def iter_clauses(self, ns: str, name: str, arity: int) -> Iterator[Clause]:
        pred = self._ns(ns).lookup(name, arity)
        return iter(()) if pred is None else (e.clause for e in pred.entries)

    def predicates(self, ns: str) -> list[PredicateInfo]:
        out: list[PredicateInfo] = []
        for pred in self._ns(ns).predicates.values():
            count = len(pred.entries)
            if count or pred.declared_dynamic:
                out.append(PredicateInfo(pred.name, pred.arity, not pred.static, count))
        return out


def _record(
    namespace: MirrorNamespace,
    chunk: Sequence[tuple[int, Clause]],
    first: int,
    balls: list[Any],
    refused: list[tuple[int, ZpmError]],
    preds: dict[tuple[str, int], MirrorPredicate],
) -> None:
    """Mirror the clauses of ``chunk`` (index, clause) that SWI-Prolog added
    as clauses ``first``, ``first + 1``, ...; ``balls`` holds ``[offset,
    BallTokens]`` for each it refused, in order, which goes to ``refused``.
    ``preds`` caches the namespace's predicates by key."""
    refusals = {int(offset): tokens for offset, tokens in balls}
    for offset, (index, clause) in enumerate(chunk):
        if refusals:
            tokens = refusals.pop(offset, None)
            if tokens is not None:
                refused.append((index, PrologError(codec.decode(tokens))))
                continue
        key = clause.key
        pred = preds.get(key)
        if pred is None:
            pred = preds[key] = namespace.predicate(*key)
        pred.append(Entry(clause, first + offset))


def _first_argument(head: Term) -> object:
    """What a variant of ``head`` shares with it in its first argument: the
    constant itself, the name and arity of a compound, or that it is a variable."""
    if not isinstance(head, Struct):
        return None
    first = head.args[0]
    if isinstance(first, Var):
        return Var
    if isinstance(first, Struct):
        return (first.name, len(first.args))
    return (type(first), first)
