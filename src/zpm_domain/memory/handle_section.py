"""The ``handles`` section of a snapshot: each clause's handle and provenance.

One JSON line with the memory's counter (``{"next": n}``), then one line per
run of clauses, in the snapshot's clause order: ``[first, count, tool,
client, at]`` stands for ``count`` clauses whose handles are ``first``,
``first + 1``, … and whose provenance is the same.  A memory of clauses
stored one call after another is a few lines; the worst case is a line per
clause.  A snapshot written before handles existed has no such section: its
clauses are loaded unnumbered and numbered once (``zpm_domain.memory.memory``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from zpm_domain.stored.clauses import Clause
from zpm_domain.stored.clauses import number as number_clause
from zpm_domain.stored.handles import is_handle
from zpm_domain.stored.provenance import UNKNOWN, Provenance, shared
from zpm_domain.stored.sections import SectionDamaged

SECTION = "handles"


def section(next_number: int, clauses: Iterable[Clause]) -> list[str]:
    """The section's lines for ``clauses`` (the snapshot's, in order)."""
    lines = [json.dumps({"next": next_number})]
    for first, count, provenance in _runs(clauses):
        p = provenance or UNKNOWN
        lines.append(json.dumps([first, count, p.tool, p.client, p.at], ensure_ascii=False))
    return lines


def _runs(clauses: Iterable[Clause]) -> Iterator[tuple[int | None, int, Provenance | None]]:
    first: int | None = None
    count = 0
    kept: Provenance | None = None
    for clause in clauses:
        handle, provenance = clause.handle, clause.provenance
        if count and (
            (handle is None and first is None)
            or (
                handle is not None
                and first is not None
                and handle == first + count
                and (provenance is kept or provenance == kept)
            )
        ):
            count += 1
            continue
        if count:
            yield first, count, kept
        first, count, kept = handle, 1, provenance
    if count:
        yield first, count, kept


@dataclass(frozen=True)
class Handles:
    """A section read back."""

    next_number: int
    runs: list[tuple[int | None, int, Provenance]]

    @classmethod
    def read(cls, lines: list[str]) -> Handles | None:
        """The section written by :func:`section` (``None`` for no lines);
        ``SectionDamaged`` when it does not read."""
        if not lines:
            return None
        try:
            head = json.loads(lines[0])
            next_number = head["next"]
        except (ValueError, KeyError, TypeError) as error:
            raise SectionDamaged(1, f"does not read ({error})") from None
        if not isinstance(next_number, int) or isinstance(next_number, bool) or next_number < 1:
            raise SectionDamaged(1, "'next' must be a positive integer")
        runs: list[tuple[int | None, int, Provenance]] = []
        for number, line in enumerate(lines[1:], start=2):
            try:
                first, count, tool, client, at = json.loads(line)
            except (ValueError, TypeError) as error:
                raise SectionDamaged(number, f"does not read ({error})") from None
            if not (first is None or is_handle(first)):
                raise SectionDamaged(number, "not a clause handle")
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise SectionDamaged(number, "not a count of clauses")
            if not all(v is None or isinstance(v, str) for v in (tool, client, at)):
                raise SectionDamaged(number, "tool, client and at must be strings or null")
            runs.append((first, count, shared(tool, client, at)))
        return cls(next_number, runs)

    def check(self, clauses: int) -> None:
        """``SectionDamaged`` unless the runs cover exactly ``clauses`` clauses."""
        covered = sum(count for _, count, _ in self.runs)
        if covered != clauses:
            raise SectionDamaged(len(self.runs) + 1, f"{covered} handles for {clauses} clauses")

    def stamp(self, clauses: list[Clause], *, in_place: bool = False) -> list[Clause]:
        """``clauses`` (the snapshot's, in order) with their handles and
        provenance; ``SectionDamaged`` when the runs do not cover them exactly.
        A clause that carries them already is kept itself (the clauses of a
        memory's own image: a fork copies them).  ``in_place``: ``clauses``
        were just read and nothing else holds them, so a clause without a
        handle is numbered itself (``number``) rather than copied."""
        self.check(len(clauses))
        stamped: list[Clause] = []
        for first, count, provenance in self.runs:
            part = clauses[len(stamped) : len(stamped) + count]
            if first is None:
                stamped.extend(part)
                continue
            for i, c in enumerate(part):
                if c.handle == first + i and (
                    c.provenance is provenance or c.provenance == provenance
                ):
                    stamped.append(c)
                elif in_place and c.handle is None:
                    number_clause(c, first + i, provenance)
                    stamped.append(c)
                else:
                    stamped.append(c.stamped(first + i, provenance))
        return stamped
