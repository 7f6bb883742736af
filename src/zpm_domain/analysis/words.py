"""Words for keyword search (``zpm_domain.analysis.search``): how a query and a
name split into word parts, which parts a query word matches, and how the
places where words match rank a clause."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

PREFIX_FROM = 3
"""The shortest query word that matches the beginning of a longer word part."""

PLACES = ("predicate", "description", "argument", "body")
"""Where a word matches, best first."""
PREDICATE, DESCRIPTION, ARGUMENT, BODY = range(4)

_RUNS = re.compile(r"[^\W\d_]+|\d+")
_SNAKE = re.compile(r"[a-z0-9_]+")
_LETTERS_OR_DIGITS = re.compile(r"[a-z]+|[0-9]+")

Masks = tuple[int, int]
"""The query words a name matches, as bit masks (bit ``i``: word ``i``):
``(matched at all, matched as a whole word)``."""
Best = tuple[int, int, str]
"""Where one query word matched: (place, 0 for a whole word or 1 for a prefix, part)."""
Rank = tuple[int, int, int]
"""The ranking criteria, each negated so that smaller sorts first."""


def word_parts(text: str) -> list[str]:
    """The word parts of ``text``, casefolded, in order (see the module docstring)."""
    return list(_parts(text))


@lru_cache(maxsize=1 << 17)
def _parts(text: str) -> tuple[str, ...]:
    if _SNAKE.fullmatch(text):  # most names: nothing to fold, no case to split at
        parts: list[str] = []
        for chunk in text.split("_"):
            if chunk.isalpha() or chunk.isdigit():
                parts.append(chunk)
            elif chunk:
                parts.extend(_LETTERS_OR_DIGITS.findall(chunk))
        return tuple(parts)
    return tuple(any_parts(text))


def any_parts(text: str) -> list[str]:
    """:func:`word_parts` of any text, the long way."""
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
    return list(dict.fromkeys(_parts(text)))


class Matcher:
    """The query's words, and which of them each name matches (each name
    looked at once per search)."""

    def __init__(self, words: Sequence[str]) -> None:
        self.words = tuple(words)
        self.every = (1 << len(self.words)) - 1
        self._masks: dict[str, Masks] = {}

    def masks(self, text: str) -> Masks:
        """The words ``text`` matches (most names match none: ``(0, 0)``)."""
        found = self._masks.get(text)
        if found is None:
            found = self.remember(text)
        return found

    def known(self) -> Callable[[str], Masks | None]:
        """The masks of a name already looked at (``None`` for another): with
        :meth:`remember`, :meth:`masks` for a loop that calls it very often."""
        return self._masks.get

    def remember(self, text: str) -> Masks:
        """Look at ``text`` (see :meth:`masks`)."""
        folded = text.casefold()
        matched = whole = 0
        parts: tuple[str, ...] | None = None
        for index, word in enumerate(self.words):
            if word not in folded:
                continue
            if parts is None:
                parts = _parts(text)
            if word in parts:
                matched |= 1 << index
                whole |= 1 << index
            elif len(word) >= PREFIX_FROM and any(p.startswith(word) for p in parts):
                matched |= 1 << index
        self._masks[text] = matched, whole
        return matched, whole

    def best_parts(self, text: str) -> list[tuple[int, int, str]]:
        """``(word index, 0 whole / 1 prefix, part)`` for each word ``text`` matches."""
        matched, whole = self.masks(text)
        found = []
        for index, word in enumerate(self.words):
            if whole >> index & 1:
                found.append((index, 0, word))
            elif matched >> index & 1:
                part = next(p for p in _parts(text) if p.startswith(word))
                found.append((index, 1, part))
        return found


def rank(places: Sequence[Masks]) -> Rank:
    """The rank of a result whose names match ``places`` (the masks of the
    predicate's name, its description, the arguments and the body)."""
    matched = before = whole = 0
    for found, found_whole in places:
        whole |= found_whole & ~before
        before |= found
        matched |= found
    head = places[PREDICATE][0] | places[DESCRIPTION][0]
    return (-matched.bit_count(), -head.bit_count(), -whole.bit_count())
