"""``zpm import``: a file of clauses into a memory, in one durable step.

:func:`read_import` reads and checks the file; :func:`import_into` stores
its clauses and saves the memory as a snapshot the journal then starts
from (``Memory.import_clauses``): at the speed of loading a snapshot, not
of one tool call per clause, and whole or not at all.

Two formats, told apart by the caller (by the file's suffix):

* Prolog text (``.pl``): clauses, each ended by ``.``, with comments and
  blank lines between them, as a knowledge file holds them.  Directives
  (``:- ...``) are refused: a knowledge file is the place for them.
* JSON lines (``.jsonl``): each line that is not blank holds one clause,
  as a JSON string of its text (``"parent(tom, \\"Bob\\")"``, the final
  ``.`` optional) or as an object whose ``"clause"`` is that string (other
  keys are ignored).

Each clause is checked as the tools check it: a fact as ``remember_fact``
does, a rule (``Head :- Body``) as ``define_rule`` does, the sandbox
included.  The first clause that does not pass stops the reading with
``ImportRefused``, which names the file and the line.

Most lines of a large file are plain facts; those are read by the fast
path of snapshot loading (``read_plain_fact``), the rest by the full
reader.  A line is taken as a plain fact only where a clause may begin,
so a fact-like line inside a comment or a clause that spans lines is
read as part of it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass

from zpm_domain.changes.mutations import AddClause
from zpm_domain.constraints import functional
from zpm_domain.constraints.integrity import Violation
from zpm_domain.constraints.policy import Policy
from zpm_domain.errors import InvalidArguments, InvalidClause, PrologSyntaxError, ZpmError
from zpm_domain.memory import call_context
from zpm_domain.memory.mounts import Memories
from zpm_domain.ports.engine import Refusals
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.reader import ReadItem, read_clauses, read_term
from zpm_domain.prolog.reader.facts import read_plain_fact
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Struct, Term
from zpm_domain.stored.clauses import Clause
from zpm_domain.tools.inputs import check_body, is_clause_syntax, require_callable
from zpm_domain.tools.persistence import check_snapshot_name, same_but_case

log = logging.getLogger("zpm")

PENDING_LIMIT = 1000
"""Lines the full reader may hold without reading a whole clause: a clause
that still does not read then is reported, not carried to the end."""


class ImportRefused(ZpmError):
    """A clause of an import file that cannot be imported: ``FILE:LINE: why``.
    Nothing of the file is stored."""

    def __init__(self, label: str, line: int, reason: str) -> None:
        super().__init__(f"{label}:{line}: {reason}")
        self.label = label
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ImportClause:
    """A clause read from an import file, and the line it starts on."""

    line: int
    clause: Clause


def read_import(text: str, label: str, *, json_lines: bool) -> list[ImportClause]:
    """Every clause of ``text`` (the file ``label``), checked, in order;
    ``ImportRefused`` for the first one that does not pass.  Progress is
    reported per line (``zpm_domain.progress``)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    phase = f"reading {label}"
    read = _json_lines(lines, label) if json_lines else _prolog(lines, label)
    out: list[ImportClause] = []
    for line, term in read:
        out.append(ImportClause(line, checked_clause(term, label, line)))
        if len(out) % 4096 == 0:
            call_context.advance(line, len(lines), phase)
    call_context.advance(len(lines), len(lines), phase)
    return out


def checked_clause(term: Term, label: str, line: int) -> Clause:
    """``term`` as a clause the tools would store, or ``ImportRefused``."""
    try:
        if isinstance(term, Struct) and term.name == ":-" and len(term.args) == 1:
            raise InvalidClause("a directive is not imported (put it in a knowledge file)")
        clause = Clause.from_term(term)
        if is_clause_syntax(clause.head):
            raise InvalidClause("Invalid rule head: it must not contain rule syntax")
        require_callable(clause.head, "A clause head")
        if not clause.is_fact:
            check_body(clause.body)
            check_goal(clause.body)
    except ZpmError as error:
        raise ImportRefused(label, line, error.message) from None
    return clause


def _prolog(lines: list[str], label: str) -> Iterator[tuple[int, Term]]:
    """``(line, term)`` of each clause of Prolog text ``lines``."""
    pending: list[str] = []  # lines for the full reader, from line `first`
    first = 0
    for number, line in enumerate(lines, 1):
        if not pending:
            if line.endswith("."):
                fact = read_plain_fact(line)
                if fact is not None:
                    yield number, fact
                    continue
            stripped = line.strip()
            if not stripped or stripped.startswith("%"):
                continue
            first = number
        pending.append(line)
        if not line.rstrip().endswith(".") and len(pending) < PENDING_LIMIT:
            continue
        items = read_clauses("\n".join(pending))
        if all(item.error is None for item in items):
            pending = []
            yield from _reported(items, first, label)
        elif items[-1].error is None or len(pending) >= PENDING_LIMIT:
            # an error before a clause that reads is no clause still open
            yield from _reported(items, first, label)
    if pending:
        yield from _reported(read_clauses("\n".join(pending)), first, label)


def _reported(items: list[ReadItem], first: int, label: str) -> Iterator[tuple[int, Term]]:
    """The terms of ``items`` (read from line ``first`` on), up to the first
    error, which is raised."""
    for item in items:
        line = first + item.line - 1
        if item.error is not None:
            raise ImportRefused(label, line, f"Invalid Prolog syntax: {item.error.message}")
        assert item.term is not None
        yield line, item.term


def _json_lines(lines: list[str], label: str) -> Iterator[tuple[int, Term]]:
    """``(line, term)`` of each clause of JSON lines ``lines``."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as error:
            raise ImportRefused(label, number, f"not JSON: {error}") from None
        if isinstance(value, dict):
            value = value.get("clause")
        if not isinstance(value, str):
            raise ImportRefused(
                label, number, 'expected a JSON string, or an object with a "clause" string'
            )
        text = value.rstrip()
        fact = read_plain_fact(text if text.endswith(".") else f"{text}.")
        if fact is not None:
            yield number, fact
            continue
        try:
            yield number, read_term(text)
        except PrologSyntaxError as error:
            raise ImportRefused(label, number, f"Invalid Prolog syntax: {error.message}") from None


def import_into(
    memories: Memories, name: str | None, read: list[ImportClause], snapshot: str, label: str
) -> tuple[str, list[str]]:
    """Store the clauses ``read`` from file ``label`` at the end of their
    predicates in memory ``name`` (``None``: ``default``), and save it as
    snapshot ``snapshot`` (a new name), which the journal starts from;
    returns the memory's name and what it says of the facts it stored that
    contradict others of a functional predicate (``zpm_domain.constraints``:
    an import takes the file as it is, so ``supersede`` withdraws nothing
    and they are kept, reported), and the violations its clauses make the
    integrity rules find (``keep``).  Nothing is stored when a clause's
    predicate may not be changed by tools, or a fact breaks a constraint
    whose policy is ``refuse`` (``ImportRefused`` names its first line; an
    integrity rule's refusal is ``ConstraintViolated``), or the memory
    cannot be written; no clauses: nothing changes."""
    check_snapshot_name(snapshot)
    memory = memories.resolve(name)
    taken = same_but_case(memory, snapshot) or next(
        (info.name for info in memory.snapshot_infos() if info.name == snapshot), None
    )
    if taken is not None:
        raise InvalidArguments(
            f"memory {memory.name} has a snapshot '{taken}' already: name the import's "
            "snapshot otherwise"
        )
    if not read:
        return memory.name, []
    first_of: dict[tuple[str, int], ImportClause] = {}
    for item in read:
        first_of.setdefault(item.clause.key, item)
    failure: BaseException | None = None
    made: list[Violation | str] = []
    refused: Refusals = []
    with memory.writing():
        for item in first_of.values():
            try:
                memory.check_mutable(item.clause.head)
            except PermissionDenied as denied:
                raise ImportRefused(label, item.line, denied.message) from None
        found = functional.conflicts(memory, [AddClause(item.clause) for item in read])
        lines = {id(item.clause.head): item.line for item in read}
        for conflict in found:
            if conflict.policy is Policy.REFUSE:
                raise ImportRefused(label, lines[id(conflict.fact)], conflict.refusal())
        checked = memory.check_integrity([AddClause(item.clause) for item in read])
        try:
            refused = memory.import_clauses([item.clause for item in read], snapshot)
            made = [] if refused else memory.integrity_made(checked)
        except BaseException as error:  # this process is ahead of the storage now
            failure = error
    if failure is not None or refused:
        try:
            memories.open_again(memory.name)
        except Exception as trouble:  # it opens again at the start of a later call
            log.warning("memory %s does not open again yet: %s", memory.name, trouble)
    if failure is not None:
        raise failure
    if refused:
        index, refusal = refused[0]
        raise ImportRefused(label, read[index].line, refusal.message)
    notes = [f"{label}:{lines[id(c.fact)]}: {c.note()}" for c in found]
    notes += [f"{label}: {v if isinstance(v, str) else v.note()}" for v in made]
    return memory.name, notes
