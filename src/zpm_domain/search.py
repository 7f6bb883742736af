"""Keyword search over a memory's knowledge: which clauses mention some words.

The query and every name in a clause are split into *word parts*: runs of
letters and runs of digits, a camelCase or PascalCase name split where its
case changes (``authToken`` gives ``auth`` and ``token``, ``HTTPServer``
gives ``http`` and ``server``), all compared case-insensitively
(``str.casefold``).  A query word matches a word part that is the same
word, or that starts with it when the word has at least
:data:`PREFIX_FROM` characters (``auth`` matches ``authentication``;
``db`` matches only ``db``).

A clause is searched where it names things: its predicate's name, the
predicate's description and argument names (``zpm_domain.descriptions``),
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
engine answers the same.  The cost is one pass over the clauses, each
distinct name split at most once per search (and only when some query word
occurs in it).  Withdrawn and defeated clauses are not held by the engine,
so they are never found.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from zpm_domain.clauses import Clause
from zpm_domain.descriptions import Description
from zpm_domain.memory import Memory
from zpm_domain.terms import Atom, String, Struct, Term

PREFIX_FROM = 3
"""The shortest query word that matches the beginning of a longer word part."""

PLACES = ("predicate", "description", "argument", "body")
"""Where a word matches, best first."""
PREDICATE, DESCRIPTION, ARGUMENT, BODY = range(4)

_RUNS = re.compile(r"[^\W\d_]+|\d+")

Best = tuple[int, int, str]
"""Where one query word matched: (place, 0 for a whole word or 1 for a prefix, part)."""


def word_parts(text: str) -> list[str]:
    """The word parts of ``text``, casefolded, in order (see the module docstring)."""
    parts: list[str] = []
    for run in _RUNS.findall(text):
        if run.islower() or run.isupper() or run.isdigit() or len(run) < 2:
            parts.append(run.casefold())
        else:
            parts.extend(part.casefold() for part in _camel_parts(run))
    return parts


def _camel_parts(run: str) -> list[str]:
    """``run`` (letters only) split where its case changes: before an
    uppercase letter that follows a lowercase one, and before the last
    uppercase letter of a row of them that a lowercase letter follows."""
    parts: list[str] = []
    start = 0
    for i in range(1, len(run)):
        before, here = run[i - 1], run[i]
        after = run[i + 1] if i + 1 < len(run) else ""
        if here.isupper() and (not before.isupper() or after.islower()):
            parts.append(run[start:i])
            start = i
    parts.append(run[start:])
    return parts


def query_words(text: str) -> list[str]:
    """The distinct word parts of a query, in order."""
    return list(dict.fromkeys(word_parts(text)))


class Matcher:
    """The query's words, and which of them each name matches (each name
    split at most once)."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words = tuple(words)
        self._memo: dict[str, tuple[tuple[int, int, str], ...]] = {}

    def hits(self, text: str) -> tuple[tuple[int, int, str], ...]:
        """``(word index, 0 whole / 1 prefix, part)`` for each query word that
        ``text`` matches (its best part); empty for most names."""
        found = self._memo.get(text)
        if found is None:
            found = self._memo[text] = self._match(text)
        return found

    def _match(self, text: str) -> tuple[tuple[int, int, str], ...]:
        folded = text.casefold()
        present = [(i, w) for i, w in enumerate(self.words) if w in folded]
        if not present:
            return ()
        parts = word_parts(text)
        found = []
        for index, word in present:
            if word in parts:
                found.append((index, 0, word))
            elif len(word) >= PREFIX_FROM:
                part = next((p for p in parts if p.startswith(word)), None)
                if part is not None:
                    found.append((index, 1, part))
        return tuple(found)


@dataclass(frozen=True, slots=True)
class Found:
    """A search result: a clause of ``memory`` (``None`` for a described
    predicate without clauses), its predicate, the predicate's description,
    and where each matched query word matched (by word index)."""

    memory: Memory
    key: tuple[str, int]
    clause: Clause | None
    description: Description | None
    matched: dict[int, Best]

    def rank(self) -> tuple[int, int, int]:
        """The ranking criteria, each negated so that smaller sorts first."""
        best = self.matched.values()
        return (
            -len(self.matched),
            -sum(1 for place, _, _ in best if place <= DESCRIPTION),
            -sum(1 for _, prefix, _ in best if not prefix),
        )


def search(
    memories: Sequence[Memory],
    words: Sequence[str],
    skip: int,
    take: int,
    searched: Callable[[str], bool] = lambda name: True,
) -> tuple[list[Found], int]:
    """Results ``skip`` to ``skip + take`` of searching ``memories`` for
    ``words``, best first, and how many results there are in all; only the
    predicates whose name passes ``searched`` are searched."""
    matcher = Matcher(words)
    ranked: list[tuple[tuple[int, int, int], int, int, Found]] = []
    total = 0
    for order, memory in enumerate(memories):
        for position, found in enumerate(_found(memory, matcher, searched)):
            total += 1
            ranked.append((found.rank(), order, position, found))
    best = heapq.nsmallest(skip + take, ranked, key=lambda entry: entry[:3])
    return [entry[3] for entry in best[skip:]], total


def _found(memory: Memory, matcher: Matcher, searched: Callable[[str], bool]) -> Iterator[Found]:
    """The results of one memory, in its order: its clauses, then its
    described predicates that have none."""
    descriptions = memory.descriptions
    with_clauses = set()
    for info in memory.predicates():
        if not searched(info.name):
            continue
        clauses = memory.clauses(*info.key)
        if not clauses:
            continue
        with_clauses.add(info.key)
        description = descriptions.of(*info.key)
        own = _predicate_hits(matcher, info.name, description)
        for clause in clauses:
            matched = _clause_hits(matcher, clause, own)
            if matched:
                yield Found(memory, info.key, clause, description, matched)
    for key, description in descriptions:
        if key not in with_clauses and searched(key[0]):
            matched = _predicate_hits(matcher, key[0], description)
            if matched:
                yield Found(memory, key, None, description, matched)


def _predicate_hits(
    matcher: Matcher, name: str, description: Description | None
) -> dict[int, Best]:
    """Where the query's words match a predicate's name and description."""
    matched: dict[int, Best] = {}
    _note(matched, matcher.hits(name), PREDICATE)
    if description is not None:
        _note(matched, matcher.hits(description.text), DESCRIPTION)
        for argument in description.arguments or ():
            _note(matched, matcher.hits(argument), DESCRIPTION)
    return matched


def _note(matched: dict[int, Best], hits: tuple[tuple[int, int, str], ...], place: int) -> None:
    for index, prefix, part in hits:
        best = (place, prefix, part)
        known = matched.get(index)
        if known is None or best[:2] < known[:2]:
            matched[index] = best


def _clause_hits(matcher: Matcher, clause: Clause, own: dict[int, Best]) -> dict[int, Best]:
    """Where the query's words match ``clause``: ``own`` (its predicate's
    matches) and the names of its arguments and body."""
    if len(own) == len(matcher.words):
        return own  # a predicate match beats any other place
    matched = own
    head = clause.head
    if isinstance(head, Struct):
        matched = _walk(matcher, head.args, ARGUMENT, matched)
    if not clause.is_fact:
        matched = _walk(matcher, (clause.body,), BODY, matched)
    return matched


def _walk(
    matcher: Matcher, terms: tuple[Term, ...], place: int, matched: dict[int, Best]
) -> dict[int, Best]:
    """``matched`` with the matches of every atom, string and functor name
    in ``terms`` (a copy when anything is added)."""
    copied = False
    stack = list(reversed(terms))
    while stack:
        term = stack.pop()
        if isinstance(term, Atom):
            hits = matcher.hits(term.name)
        elif isinstance(term, Struct):
            hits = matcher.hits(term.name)
            stack.extend(reversed(term.args))
        elif isinstance(term, String):
            hits = matcher.hits(term.value)
        else:
            continue
        for index, prefix, part in hits:
            known = matched.get(index)
            if known is None or (place, prefix) < known[:2]:
                if not copied:
                    matched, copied = dict(matched), True
                matched[index] = (place, prefix, part)
    return matched
