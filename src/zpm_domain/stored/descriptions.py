"""Predicate descriptions: the vocabulary a memory keeps beside its clauses.

``describe_predicate`` gives ``name/arity`` a one-line description and,
optionally, a name for each of its arguments, so that every session that
reads the memory uses the same words for the same relation.  A description
belongs to the memory, not to any clause: a predicate may be described
before it has clauses (vocabulary first), and keeps its description when
its clauses go.  Describing a predicate again replaces its description; an
empty description removes it.  Built-in predicates cannot be described;
knowledge-file predicates can (the description is the memory's, the
clauses stay the file's).

Descriptions are journaled (operation ``describe``, the change
``zpm_domain.changes.describe.DescribePredicate``), kept in snapshots (section
``descriptions``), copied into forks with the rest of a memory's state, moved
by ``rename_predicate`` and carried into the base by a merge.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from zpm_domain.errors import InvalidArguments
from zpm_domain.stored.sections import SectionDamaged

SECTION = "descriptions"
"""The snapshot section holding a memory's descriptions (see :func:`section`)."""

MAX_TEXT = 500
"""The longest description and the longest list of argument names, in characters."""

Key = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Description:
    """A predicate's one-line ``text`` and the names of its arguments
    (``None``: not named)."""

    text: str
    arguments: tuple[str, ...] | None = None

    def as_json(self) -> dict[str, Any]:
        """``{"description": text}``, plus ``"arguments"`` when they are named:
        the fields the schema, the overview and search_facts add."""
        shown: dict[str, Any] = {"description": self.text}
        if self.arguments is not None:
            shown["arguments"] = list(self.arguments)
        return shown


class Descriptions:
    """A memory's descriptions by predicate, in the order they were first given."""

    def __init__(self) -> None:
        self._by_key: dict[Key, Description] = {}

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Iterator[tuple[Key, Description]]:
        return iter(list(self._by_key.items()))

    def of(self, name: str, arity: int) -> Description | None:
        return self._by_key.get((name, arity))

    def put(self, key: Key, description: Description | None) -> None:
        """Describe ``key`` (a replaced description keeps its place); ``None`` removes."""
        if description is None:
            self._by_key.pop(key, None)
        else:
            self._by_key[key] = description

    def clear(self) -> None:
        self._by_key.clear()


def described(text: str, arguments: str | None, arity: int) -> Description | None:
    """The description a caller gives ``name/arity``: ``text`` (one line) and
    ``arguments`` (comma-separated names, exactly ``arity`` of them, or
    ``None``); ``None`` when ``text`` is empty (a removal, which takes no
    argument names).  Raises ``InvalidArguments`` saying what is wrong."""
    text = text.strip()
    if not text:
        if arguments is not None and arguments.strip():
            raise InvalidArguments(
                "an empty description removes the description; leave 'arguments' out"
            )
        return None
    _check_line(text, "description")
    if arguments is None:
        return Description(text)
    _check_line(arguments, "arguments")
    names = tuple(name.strip() for name in arguments.split(",")) if arguments.strip() else ()
    if any(not name for name in names):
        raise InvalidArguments(
            f"arguments must be names separated by commas (like 'service, person'), "
            f"not {arguments!r}"
        )
    if len(names) != arity:
        raise InvalidArguments(
            f"arguments gives {len(names)} name(s); the predicate has {arity} argument(s)"
        )
    return Description(text, names)


def _check_line(text: str, what: str) -> None:
    if len(text) > MAX_TEXT:
        raise InvalidArguments(f"{what} is {len(text)} characters long; at most {MAX_TEXT}")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise InvalidArguments(f"{what} must be one line of text, without control characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArguments(f"{what} is not valid Unicode text") from None


def section(descriptions: Descriptions) -> list[str]:
    """The snapshot section: one JSON line per description, in order:
    ``[name, arity, text, arguments]`` (``arguments`` a list of names or null)."""
    return [
        json.dumps(
            [name, arity, d.text, None if d.arguments is None else list(d.arguments)],
            ensure_ascii=False,
        )
        for (name, arity), d in descriptions
    ]


def read_section(lines: Iterable[str]) -> dict[Key, Description]:
    """The descriptions of a section written by :func:`section`, in order."""
    found: dict[Key, Description] = {}
    for number, line in enumerate(lines, start=1):
        try:
            entry = json.loads(line)
        except ValueError as error:
            raise SectionDamaged(number, f"does not read ({error})") from None
        if not (isinstance(entry, list) and len(entry) == 4):
            raise SectionDamaged(number, "not a description")
        name, arity, text, arguments = entry
        if not (isinstance(name, str) and isinstance(text, str) and text):
            raise SectionDamaged(number, "name and description must be text")
        if not isinstance(arity, int) or isinstance(arity, bool) or arity < 0:
            raise SectionDamaged(number, "arity must be a non-negative integer")
        if arguments is not None and not (
            isinstance(arguments, list) and all(isinstance(a, str) for a in arguments)
        ):
            raise SectionDamaged(number, "arguments must be a list of names or null")
        found[(name, arity)] = Description(text, None if arguments is None else tuple(arguments))
    return found
