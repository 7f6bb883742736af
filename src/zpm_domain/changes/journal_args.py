"""The arguments of journal operations: how a mutation writes its own
(``Mutation.journal_op``) and reads them back (``Mutation.from_args``), and
the error of one that does not read (:class:`BadOperation`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.reader.facts import read_canonical_fact, read_plain_fact
from zpm_domain.prolog.terms import TRUE, Atom, Struct, Term
from zpm_domain.stored.clauses import Clause, know_text
from zpm_domain.stored.handles import is_handle
from zpm_domain.stored.provenance import Provenance, shared


class BadOperation(ValueError):
    """A journal operation that names no known mutation or whose arguments are
    wrong; ``str()`` says why."""


def text_arg(args: Mapping[str, Any], name: str) -> str:
    """Argument ``name`` of a journal operation, which must be a string."""
    value = args.get(name)
    if not isinstance(value, str):
        raise BadOperation(f"'{name}' must be a string")
    return value


def clause_arg(args: Mapping[str, Any]) -> Clause:
    """Argument ``clause`` of a journal operation that stores it, with the
    handle and provenance the operation gives it (:func:`stamp_args`)."""
    text = text_arg(args, "clause")
    handle, provenance = stamp_args(args)
    stamp = None if handle is None else provenance
    fact = read_canonical_fact(text)
    if fact is not None:
        clause = Clause(fact, TRUE, handle, stamp)
        know_text(clause, text)
        return clause
    # a plain ground fact (strings, lists) reads fast too; anything else in full
    read = Clause.from_term(read_plain_fact(f"{text}.") or read_text(text))
    return Clause(read.head, read.body, handle, stamp)


def stamp_args(args: Mapping[str, Any]) -> tuple[int | None, Provenance]:
    """The handle and provenance a journal operation gives the clause it
    stores (``None`` and no provenance: written before handles existed)."""
    handle = args.get("handle")
    if handle is None:
        return None, Provenance(None, None, None)
    if not is_handle(handle):
        raise BadOperation("'handle' must be a clause handle")
    fields = [args.get(name) for name in ("tool", "client", "at")]
    if not all(value is None or isinstance(value, str) for value in fields):
        raise BadOperation("'tool', 'client' and 'at' must be strings or null")
    return handle, shared(*fields)


def stamp_json(handle: int | None, provenance: Provenance | None) -> dict[str, Any]:
    """The journal arguments of a stored clause's handle and provenance."""
    if handle is None:
        return {}
    p = provenance or Provenance(None, None, None)
    return {"handle": handle, "tool": p.tool, "client": p.client, "at": p.at}


def took_arg(args: Mapping[str, Any]) -> tuple[int, ...]:
    """Argument ``took`` of a removal: the handles of the clauses it took
    (none in journals older than it)."""
    took = args.get("took", [])
    if not (isinstance(took, list) and all(is_handle(h) for h in took)):
        raise BadOperation("'took' must be a list of clause handles")
    return tuple(took)


def took_json(took: tuple[int, ...]) -> dict[str, Any]:
    """The journal argument of the handles a removal took (none: left out)."""
    return {"took": list(took)} if took else {}


def fact_arg(args: Mapping[str, Any]) -> Term:
    """Argument ``fact`` of a journal operation: the text of a callable term."""
    fact = read_text(text_arg(args, "fact"))
    if not isinstance(fact, (Atom, Struct)):
        raise BadOperation("'fact' must be an atom or a compound term")
    return fact


def read_text(text: str) -> Term:
    """``text`` read as a term; ``BadOperation`` when it does not read."""
    try:
        return read_term(text)
    except PrologSyntaxError as error:
        raise BadOperation(f"clause does not read: {error.message}") from None
