"""Keyword search over a memory's knowledge: which clauses mention some words.

The query and every name in a clause are split into *word parts*: runs of
letters and runs of digits, a camelCase or PascalCase name split where its
case changes (``authToken`` gives ``auth`` and ``token``, ``HTTPServer``
gives ``http`` and ``server``), all compared case-insensitively
(``str.casefold``).  A query word matches a word part that is the same
word, or that starts with it when the word has at least
``words.PREFIX_FROM`` characters (``auth`` matches ``authentication``;
``db`` matches only ``db``).

A clause is searched where it names things: its predicate's name, the
predicate's description and argument names (``zpm_domain.stored.descriptions``),
the atoms, strings and functor names of its head's arguments, and those of
its body (a rule's).  Each query word that matches counts once, where it
matches best: in the predicate's name, then its description, then an
argument, then the body; a whole word before a prefix.  Clauses rank by

1. how many of the query's words they match,
2. how many of those words match in the predicate's name or description,
3. how many of those words match as whole words (where they match best),

then by memory (in the order given) and by position in the memory
(predicates in order of definition, clauses in order, knowledge-file
clauses first).  A described predicate that has no clauses is found by
its name and description alone, after the clauses of its memory.

Everything is computed here, from the clauses the memory holds, so every
engine answers the same.  A search makes one pass over the clauses, in
steps that cost little per clause: the words a predicate's name and
description match are found once per predicate; the clauses that may hold
one of the other words are found by a substring search of their canonical
texts (``Clause.text``, rendered once per clause and kept); only those are
read term by term, each distinct name split at most once (and the split
kept for later searches).  Withdrawn and defeated clauses are not held by
the engine, so they are never found.
"""

from __future__ import annotations

import gc
import heapq
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import accumulate, count, islice
from operator import add

from zpm_domain.analysis.words import (
    ARGUMENT,
    BODY,
    DESCRIPTION,
    PREDICATE,
    Best,
    Masks,
    Matcher,
    rank,
)
from zpm_domain.memory.memory import Memory
from zpm_domain.prolog.terms import TRUE, Atom, String, Struct, Term
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.descriptions import Description


@dataclass(frozen=True, slots=True)
class Found:
    """A search result: a clause of ``memory`` (``None`` for a described
    predicate without clauses), its predicate and the predicate's description."""

    memory: Memory
    key: tuple[str, int]
    description: Description | None
    clause: Clause | None

    def matched(self, matcher: Matcher) -> dict[int, Best]:
        """Where each query word it matches matched best, by word index (for
        equally good places, the first name in reading order)."""
        best: dict[int, Best] = {}
        _note(best, matcher.best_parts(self.key[0]), PREDICATE)
        if self.description is not None:
            for text in (self.description.text, *(self.description.arguments or ())):
                _note(best, matcher.best_parts(text), DESCRIPTION)
        clause = self.clause
        if clause is not None:
            if isinstance(clause.head, Struct):
                for text in _names(clause.head.args):
                    _note(best, matcher.best_parts(text), ARGUMENT)
            if not clause.is_fact:
                for text in _names((clause.body,)):
                    _note(best, matcher.best_parts(text), BODY)
        return best


def _note(best: dict[int, Best], hits: list[tuple[int, int, str]], place: int) -> None:
    for index, prefix, part in hits:
        known = best.get(index)
        if known is None or (place, prefix) < known[:2]:
            best[index] = (place, prefix, part)


def _names(terms: Sequence[Term]) -> Iterator[str]:
    """The atoms, strings and functor names of ``terms``, in reading order."""
    stack = list(reversed(terms))
    while stack:
        term = stack.pop()
        if isinstance(term, Atom):
            yield term.name
        elif isinstance(term, Struct):
            yield term.name
            stack.extend(reversed(term.args))
        elif isinstance(term, String):
            yield term.value


Where = tuple[Memory, tuple[str, int], Description | None]
"""A predicate's memory, name and arity, and description."""
Entry = tuple[int, int, int, int, int, Clause | None, Where]
"""A ranked result: its rank, its memory's order, its position there, its
clause (``None``: a described predicate without clauses) and predicate."""


def search(
    memories: Sequence[Memory],
    matcher: Matcher,
    skip: int,
    take: int,
    searched: Callable[[str], bool] = lambda name: True,
) -> tuple[list[Found], int]:
    """Results ``skip`` to ``skip + take`` of searching ``memories``, best
    first, and how many results there are in all; only the predicates whose
    name passes ``searched`` are searched."""
    wanted = min(skip + take, sys.maxsize)
    entries: list[Entry] = []
    total = 0
    with _collector_paused():
        for order, memory in enumerate(memories):
            total += _rank_memory(memory, order, matcher, wanted, searched, entries)
        best = heapq.nsmallest(wanted, entries)  # (order, position) differ: never a clause
    return [Found(*where, clause) for *_, clause, where in best[skip:]], total


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused: a search makes many small
    objects and no cycles (reference counting frees them), and the collector
    would otherwise run again and again over the memory's clauses."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _rank_memory(
    memory: Memory,
    order: int,
    matcher: Matcher,
    wanted: int,
    searched: Callable[[str], bool],
    entries: list[Entry],
) -> int:
    """Add the results of ``memory`` that may be among the first ``wanted``
    to ``entries``; how many results it has."""
    total = 0
    position = 0
    descriptions = memory.descriptions
    with_clauses = set()
    for info in memory.predicates():
        if not searched(info.name):
            continue
        clauses = memory.clauses(*info.key)
        if not clauses:
            continue
        with_clauses.add(info.key)
        where = (memory, info.key, descriptions.of(*info.key))
        own = _own_masks(matcher, info.name, where[2])
        head = own[0][0] | own[1][0]
        others = matcher.every & ~head
        candidates = _mentioning(clauses, matcher, others) if others else []
        if candidates:
            total += _rank_clauses(
                clauses, candidates, own, matcher, (order, position, wanted), where, entries
            )
        if head:
            # every other clause matches at the predicate alone: one rank, in order
            r0, r1, r2 = rank((*own, (0, 0), (0, 0)))
            plain = _except(len(clauses), candidates)
            total += len(clauses) - len(candidates)
            for index in islice(plain, wanted):
                entries.append((r0, r1, r2, order, position + index, clauses[index], where))
        position += len(clauses)
    for key, description in descriptions.described():
        if key in with_clauses or not searched(key[0]):
            continue
        own = _own_masks(matcher, key[0], description)
        if own[0][0] | own[1][0]:
            r0, r1, r2 = rank((*own, (0, 0), (0, 0)))
            entries.append((r0, r1, r2, order, position, None, (memory, key, description)))
            total += 1
        position += 1
    return total


def _rank_clauses(
    clauses: list[Clause],
    candidates: list[int],
    own: tuple[Masks, Masks],
    matcher: Matcher,
    at: tuple[int, int, int],
    where: Where,
    entries: list[Entry],
) -> int:
    """Add the ``candidates`` among a predicate's ``clauses`` that match (at
    ``at``: their memory's order and the predicate's first position; the
    first ``wanted`` are asked for) to ``entries``, the first ``wanted`` of
    each rank (no later one can be among the first ``wanted`` results); how
    many match.  :func:`rank`, unrolled: this loop may run for every clause
    of a memory."""
    (name_found, name_whole), (described_found, described_whole) = own
    head = name_found | described_found
    head_whole = name_whole | (described_whole & ~name_found)
    r1 = -head.bit_count()
    order, position, wanted = at
    known, remember = matcher.known(), matcher.remember
    kept: dict[int, int] = {}
    matching = 0
    text: str
    for index in candidates:
        clause = clauses[index]
        term = clause.head
        found = whole = 0
        if type(term) is Struct:  # type(), not isinstance(): this loop is the hot one
            for argument in term.args:
                kind = type(argument)
                if kind is Atom:
                    text = argument.name  # type: ignore[union-attr,assignment]
                elif kind is String:
                    text = argument.value  # type: ignore[union-attr]
                elif kind is Struct:
                    more, more_whole = _masks_of(matcher, (argument,))
                    found |= more
                    whole |= more_whole
                    continue
                else:
                    continue
                masks = known(text) or remember(text)
                found |= masks[0]
                whole |= masks[1]
        body_found = body_whole = 0
        if clause.body is not TRUE:
            body_found, body_whole = _masks_of(matcher, (clause.body,))
        matched = head | found | body_found
        if not matched:
            continue
        matching += 1
        whole = head_whole | (whole & ~head) | (body_whole & ~(head | found))
        r0, r2 = -matched.bit_count(), -whole.bit_count()
        code = r0 * 64 + r2
        ahead = kept.get(code, 0)
        if ahead < wanted:
            kept[code] = ahead + 1
            entries.append((r0, r1, r2, order, position + index, clause, where))
    return matching


def _own_masks(matcher: Matcher, name: str, description: Description | None) -> tuple[Masks, Masks]:
    """The words a predicate's name matches, and those its description and
    argument names match."""
    described = 0, 0
    if description is not None:
        for text in (description.text, *(description.arguments or ())):
            found, whole = matcher.masks(text)
            described = described[0] | found, described[1] | whole
    return matcher.masks(name), described


def _mentioning(clauses: list[Clause], matcher: Matcher, bits: int) -> list[int]:
    """The indexes, in order, of the clauses whose text contains one of the
    words in ``bits`` (case-insensitively): every clause that may match one
    of them, and a few that do not (a variable's name, a word across an
    escape)."""
    texts = [c.text if c.text is not None else render_clause(c) for c in clauses]
    joined = "\n".join(texts).casefold()
    pieces = joined.split("\n")
    if len(pieces) != len(texts):  # a text holds a line break (the writer escapes them)
        pieces = [text.casefold() for text in texts]
        joined = "\n".join(pieces)
    starts: list[int] = []
    found: set[int] = set()
    for index, word in enumerate(matcher.words):
        if not bits >> index & 1:
            continue
        if joined.count(word) * 8 > len(pieces):  # in many texts: test each text
            found.update([i for i, piece in enumerate(pieces) if word in piece])
            if len(found) == len(pieces):
                break
            continue
        if not starts:
            starts = [0, *map(add, accumulate(map(len, pieces)), count(1))]
        at = joined.find(word)
        while at != -1:
            clause = bisect_right(starts, at) - 1
            found.add(clause)
            at = joined.find(word, starts[clause + 1])
    return sorted(found)


def _masks_of(matcher: Matcher, terms: Sequence[Term]) -> Masks:
    found = whole = 0
    masks = matcher.masks
    stack = list(terms)
    while stack:
        term = stack.pop()
        if isinstance(term, Atom):
            matched = masks(term.name)
        elif isinstance(term, Struct):
            matched = masks(term.name)
            stack.extend(term.args)
        elif isinstance(term, String):
            matched = masks(term.value)
        else:
            continue
        found |= matched[0]
        whole |= matched[1]
    return found, whole


def _except(size: int, taken: list[int]) -> Iterator[int]:
    """``0 .. size - 1`` without the (sorted) indexes ``taken``."""
    skipped = iter(taken)
    next_taken = next(skipped, None)
    for index in range(size):
        if index == next_taken:
            next_taken = next(skipped, None)
        else:
            yield index
