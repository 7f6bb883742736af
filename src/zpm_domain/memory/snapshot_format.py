"""The snapshot file: consultable Prolog source with a versioned header.

::

    %% zpm snapshot 1
    %% zpm: 0.4.0
    %% memory: default
    %% saved: 2026-12-02T00:53:20Z
    %% clauses: 2
    %% id: 5f0c2d9e8a1b4c7d9e0f1a2b3c4d5e6f
    %% covers: 0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e 4
    %%
    %% Prolog source written by zpm: consult it with any Prolog, or bring it
    %% back with the restore_snapshot tool.

    :- style_check(-singleton).
    :- dynamic(human/1).
    :- dynamic(mortal/1).

    human(socrates).
    mortal(X) :- human(X).

The header is a block of ``%% key: value`` comment lines after the format
line ``%% zpm snapshot <format>``.  ``id`` names this file's content;
``covers`` says which journal generation it was saved from and how many of
that generation's records it holds (recovery uses both, see
``zpm_domain.memory.memory``).  Metadata that later versions add (assumptions,
clause handles, provenance, withdrawals, defeated clauses, predicate
descriptions) goes in sections after the clauses: a ``%% section: <name>``
line followed by ``%% <text>`` lines, for example::

    %% section: descriptions
    %% ["owner", 2, "who owns a service", ["service", "person"]]

A plain consult ignores comments, so it loads the clauses and nothing else;
this reader returns the sections it finds and ignores those it does not
know, and a snapshot written before a section existed simply has none of it.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from zpm_domain.errors import ZpmError
from zpm_domain.prolog.reader import read_clauses
from zpm_domain.prolog.reader.chars import is_symbol_char
from zpm_domain.prolog.reader.facts import read_canonical_fact, read_plain_fact
from zpm_domain.prolog.terms import Atom, Struct, Term
from zpm_domain.prolog.writer import end_clause, indicator_text
from zpm_domain.stored.clauses import Clause, know_text, render_clause
from zpm_domain.stored.sections import SectionDamaged

T = TypeVar("T")

FORMAT = 1
MAGIC = "%% zpm snapshot "
SECTION = "%% section: "


class SnapshotDamaged(ZpmError):
    """A snapshot file that cannot be read back; names the file and line."""

    def __init__(self, label: str, line: int, why: str) -> None:
        super().__init__(f"Snapshot damaged: {label}:{line}: {why}")
        self.label = label
        self.line = line
        self.why = why


@dataclass(frozen=True, slots=True)
class Covers:
    """The journal records a snapshot holds: the first ``records`` records of
    generation ``generation`` (the empty generation is a journal that no
    snapshot started)."""

    generation: str
    records: int


@dataclass(frozen=True)
class SnapshotHeader:
    memory: str
    saved: int
    clauses: int
    id: str
    covers: Covers
    zpm: str = ""


@dataclass(frozen=True)
class Snapshot:
    """A snapshot read back: its header, clauses in order and metadata sections."""

    header: SnapshotHeader
    clauses: list[Clause]
    sections: dict[str, list[str]] = field(default_factory=dict)
    section_lines: dict[str, int] = field(default_factory=dict)
    """The line of each section's ``%% section:`` line."""


def write_snapshot(
    header: SnapshotHeader,
    predicates: Sequence[tuple[tuple[str, int], Sequence[Clause]]],
    sections: Iterable[tuple[str, Sequence[str]]] = (),
    texts: Sequence[str] | None = None,
) -> str:
    """The text of a snapshot of ``predicates`` (``((name, arity), clauses)``
    in order; a predicate without clauses is declared dynamic all the same).
    ``texts``, when given, are the clauses' texts already rendered, in order."""
    saved = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(header.saved))
    lines = [
        f"{MAGIC}{FORMAT}",
        f"%% zpm: {header.zpm}",
        f"%% memory: {header.memory}",
        f"%% saved: {saved}",
        f"%% clauses: {header.clauses}",
        f"%% id: {header.id}",
        f"%% covers: {header.covers.generation or '-'} {header.covers.records}",
        "%%",
        "%% Prolog source written by zpm: consult it with any Prolog, or bring it",
        "%% back with the restore_snapshot tool.",
        "",
        ":- style_check(-singleton).",
    ]
    for (name, arity), _ in predicates:
        indicator = indicator_text(name, arity)
        lines.append(f":- dynamic({indicator}).")
    lines.append("")
    if texts is None:
        texts = [render_clause(c) for _, clauses in predicates for c in clauses]
    lines.extend(_clause_lines(texts))
    for name, body in sections:
        lines.append("")
        lines.append(f"{SECTION}{name}")
        lines.extend(f"%% {text}" for text in body)
    return "\n".join(lines) + "\n"


def _clause_lines(texts: Sequence[str]) -> list[str]:
    """Each of ``texts`` ended as a clause (``end_clause``), as lines: at
    C speed, as one block, when no text ends in a symbol character (the
    end token then needs no space before it)."""
    if not texts:
        return []
    if "" in texts or any(map(is_symbol_char, set(map(_LAST, texts)))):
        return [end_clause(text) for text in texts]
    return [".\n".join(texts) + "."]


_LAST = operator.itemgetter(-1)


def read_snapshot(text: str, label: str) -> Snapshot:
    """Read a snapshot back.  Raises ``SnapshotDamaged`` (naming ``label`` and
    the line) for a missing or unknown header, a clause that does not read,
    a directive other than ``dynamic``, or a clause count that differs from
    the header's."""
    lines = text.split("\n")
    header = _header(lines, label)
    clauses: list[Clause] = []
    for line, term, known in _terms(text, lines, label):
        if isinstance(term, Struct) and term.name == ":-" and len(term.args) == 1:
            if not _is_allowed_directive(term.args[0]):
                raise SnapshotDamaged(
                    label, line, "only dynamic/1 and style_check/1 directives belong here"
                )
            continue
        clause = Clause.from_term(term)
        if not isinstance(clause.head, (Atom, Struct)):
            raise SnapshotDamaged(label, line, "a clause head must be callable")
        if known is not None:
            know_text(clause, known)
        clauses.append(clause)
    if len(clauses) != header.clauses:
        raise SnapshotDamaged(
            label,
            len(lines),
            f"{len(clauses)} clauses where the header says {header.clauses} (truncated?)",
        )
    sections, section_lines = _sections(lines)
    return Snapshot(header, clauses, sections, section_lines)


class _NotLineByLine(Exception):
    """A chunk between plain facts does not read alone (a clause spans it)."""


def _terms(text: str, lines: list[str], label: str) -> list[tuple[int, Term, str | None]]:
    """Every clause term of the file with its line, and its canonical text
    when the line is known to hold it (``read_canonical_fact``).

    Plain facts (one per line, as the writer writes them) take the fast paths
    of ``read_canonical_fact`` and ``read_plain_fact``; the lines between
    them are read as chunks with the full reader.  If a chunk does not read
    on its own (a hand-edited clause or comment spanning lines), the whole
    text is read again with the full reader, which then also names the line
    of a real error.
    """
    try:
        return _terms_by_line(lines)
    except _NotLineByLine:
        found: list[tuple[int, Term, str | None]] = []
        for item in read_clauses(text):
            if item.error is not None:
                raise SnapshotDamaged(label, item.error.line, item.error.message) from None
            assert item.term is not None
            found.append((item.line, item.term, None))
        return found


def _terms_by_line(lines: list[str]) -> list[tuple[int, Term, str | None]]:
    found: list[tuple[int, Term, str | None]] = []
    chunk: list[str] = []
    chunk_start = 1

    def flush() -> None:
        if any(part.strip() for part in chunk):
            for item in read_clauses("\n".join(chunk)):
                if item.error is not None:
                    raise _NotLineByLine()
                assert item.term is not None
                found.append((chunk_start + item.line - 1, item.term, None))
        chunk.clear()

    for number, line in enumerate(lines, start=1):
        known = line[:-1] if line.endswith(").") else None
        fact: Term | None = None if known is None else read_canonical_fact(known)
        if fact is None:
            known = None
            fact = read_plain_fact(line)
        if fact is None:
            if not chunk:
                chunk_start = number
            chunk.append(line)
            continue
        if chunk:
            flush()
        found.append((number, fact, known))
    flush()
    return found


def _header(lines: list[str], label: str) -> SnapshotHeader:
    first = lines[0] if lines else ""
    if not first.startswith(MAGIC):
        raise SnapshotDamaged(label, 1, "not a zpm snapshot (no '%% zpm snapshot' line)")
    version = first[len(MAGIC) :].strip()
    if version != str(FORMAT):
        raise SnapshotDamaged(label, 1, f"unknown snapshot format {version!r}")
    fields: dict[str, tuple[str, int]] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.startswith("%%"):
            break
        key, sep, value = line[2:].strip().partition(": ")
        if sep:
            fields[key] = (value.strip(), number)
    try:
        generation, records = fields["covers"][0].split()
        return SnapshotHeader(
            memory=fields["memory"][0],
            saved=_epoch(fields["saved"][0]),
            clauses=int(fields["clauses"][0]),
            id=fields["id"][0],
            covers=Covers("" if generation == "-" else generation, int(records)),
            zpm=fields.get("zpm", ("", 0))[0],
        )
    except (KeyError, ValueError) as error:
        raise SnapshotDamaged(label, 2, f"incomplete header ({error})") from None


def _epoch(text: str) -> int:
    import calendar

    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def _sections(lines: list[str]) -> tuple[dict[str, list[str]], dict[str, int]]:
    sections: dict[str, list[str]] = {}
    starts: dict[str, int] = {}
    current: list[str] | None = None
    for number, line in enumerate(lines, start=1):
        if line.startswith(SECTION):
            name = line[len(SECTION) :].strip()
            starts.setdefault(name, number)
            current = sections.setdefault(name, [])
        elif current is not None and line.startswith("%% "):
            current.append(line[3:])
        else:
            current = None
    return sections, starts


def _is_allowed_directive(goal: Term) -> bool:
    """``dynamic(...)``, and ``style_check(...)`` (which quiets a plain consult's
    singleton warnings); both are declarations, not changes, for zpm."""
    return (
        isinstance(goal, Struct) and goal.name in ("dynamic", "style_check") and len(goal.args) == 1
    )


def read_section(snapshot: Snapshot, label: str, name: str, read: Callable[[list[str]], T]) -> T:
    """Section ``name`` of ``snapshot`` (read from ``label``) as ``read``
    reads its lines (no lines when the snapshot has no such section);
    ``SnapshotDamaged`` naming the file line when ``read`` raises
    ``SectionDamaged``."""
    try:
        return read(snapshot.sections.get(name, []))
    except SectionDamaged as damage:
        line = snapshot.section_lines.get(name, 0) + damage.entry
        raise SnapshotDamaged(label, line, f"section {name}: {damage}") from None
