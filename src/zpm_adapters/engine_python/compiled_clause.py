"""A compiled clause (``CClause``) and the key its first argument is indexed by.

A stored clause is compiled (``cclause.compile_clause``) into head
templates, a slot count and body code; its ``key`` (:func:`arg_key` of its
first argument, ``None`` for a variable) places it in its predicate's
first-argument index (``clause_index``).
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python.code import Code
from zpm_adapters.engine_python.runtime import Ref, RTerm
from zpm_domain.prolog.terms import Atom, String, Struct
from zpm_domain.stored.clauses import Clause

NAN_KEY = object()
"""Index key of a NaN first argument (NaN unifies with NaN but not ``==``)."""


def arg_key(t: RTerm) -> object | None:
    """Index key of a (dereferenced) first argument; ``None`` for a variable.

    Atoms key by identity, integers by value, floats as ``(float, x)`` (so
    that ``1`` and ``1.0`` differ), strings by the :class:`String` value and
    compound terms by name and arity: the name alone for arity 2 (lists and
    pairs, the common case, need no allocation), ``(name, arity)`` otherwise.
    """
    tt = type(t)
    if tt is Atom or tt is int or tt is String:
        return t
    if tt is Struct:
        n = len(t.args)  # type: ignore[union-attr]
        return t.name if n == 2 else (t.name, n)  # type: ignore[union-attr]
    if tt is float:
        return (float, t) if t == t else NAN_KEY
    if tt is Ref:
        return None
    return t


class CClause:
    """A compiled clause; ``clause`` is the domain clause as it was added.

    ``fixed`` marks a clause of a knowledge file, which no removal takes.
    ``readable`` caches what the proof interpreters need (see ``proofs``).
    ``seq`` is its place in its predicate, given when it is added
    (``Predicate.add``).
    """

    __slots__ = ("clause", "head", "nvars", "body", "fresh", "key", "fixed", "readable", "seq")

    def __init__(
        self,
        clause: Clause,
        head: tuple[Any, ...],
        nvars: int,
        body: Code | None,
        fresh: tuple[int, ...],
        key: object | None,
    ) -> None:
        self.clause = clause
        self.head = head
        self.nvars = nvars
        self.body = body
        self.fresh = fresh
        self.key = key
        self.fixed = False
        self.readable: Any = None
        self.seq = 0

    def __repr__(self) -> str:
        return f"<CClause {self.clause!r}>"
