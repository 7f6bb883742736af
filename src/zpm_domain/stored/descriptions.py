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

A description also carries what ``describe_predicate`` declares of the
predicate as a constraint (``zpm_domain.constraints``): that its facts are
functional, and the policy a write that breaks that follows; or, for an
integrity rule's predicate (``integrity_violation/N``), the policy alone.
A predicate may be declared so without a description text: its record then
has an empty text, and it has no description (:meth:`Descriptions.of`).
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

POLICIES = ("refuse", "supersede", "keep")
"""The policies a constraint may declare (``zpm_domain.constraints.policy``)."""

INTEGRITY = "integrity_violation"
"""The name of the predicates whose rules are integrity rules: a record of
``integrity_violation/N`` may declare a policy without being functional."""


@dataclass(frozen=True, slots=True)
class Description:
    """A predicate's one-line ``text`` and the names of its arguments
    (``None``: not named); ``functional``: its facts are declared functional,
    with ``policy`` (``refuse``, ``supersede`` or ``keep``; ``None``: the
    memory's default); an integrity rule's predicate may have a ``policy``
    alone.  ``text`` is empty only for a record that declares a constraint
    and has no description."""

    text: str
    arguments: tuple[str, ...] | None = None
    functional: bool = False
    policy: str | None = None

    @property
    def said(self) -> bool:
        """Whether it has a description text (else it only declares a constraint)."""
        return bool(self.text)

    @property
    def declares(self) -> bool:
        """Whether it declares a constraint (functional, or a policy)."""
        return self.functional or self.policy is not None

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
        self.functional = 0
        """How many records declare their predicate functional (every write asks)."""

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Iterator[tuple[Key, Description]]:
        return iter(list(self._by_key.items()))

    def of(self, name: str, arity: int) -> Description | None:
        """The description of ``name/arity``, if it has one with a text."""
        found = self._by_key.get((name, arity))
        return found if found is not None and found.said else None

    def record(self, key: Key) -> Description | None:
        """What ``describe_predicate`` said of ``key``: a description, a
        constraint or both."""
        return self._by_key.get(key)

    def described(self) -> Iterator[tuple[Key, Description]]:
        """The records with a description text, in order."""
        return ((key, d) for key, d in list(self._by_key.items()) if d.said)

    def put(self, key: Key, description: Description | None) -> None:
        """Describe ``key`` (a replaced description keeps its place); ``None`` removes."""
        held = self._by_key.get(key)
        if held is not None:
            self.functional -= held.functional
        if description is None:
            self._by_key.pop(key, None)
        else:
            self._by_key[key] = description
            self.functional += description.functional

    def clear(self) -> None:
        self._by_key.clear()
        self.functional = 0


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
    ``[name, arity, text, arguments]`` (``arguments`` a list of names or
    null), and a fifth item ``{"functional": F, "policy": P}`` for a record
    that declares a constraint (``F`` true for a functional predicate, false
    for an integrity rule's policy; ``P`` null: the memory's default)."""
    lines = []
    for (name, arity), d in descriptions:
        entry: list[Any] = [name, arity, d.text, None if d.arguments is None else list(d.arguments)]
        if d.declares:
            entry.append({"functional": d.functional, "policy": d.policy})
        lines.append(json.dumps(entry, ensure_ascii=False))
    return lines


def read_section(lines: Iterable[str]) -> dict[Key, Description]:
    """The descriptions of a section written by :func:`section`, in order."""
    found: dict[Key, Description] = {}
    for number, line in enumerate(lines, start=1):
        try:
            entry = json.loads(line)
        except ValueError as error:
            raise SectionDamaged(number, f"does not read ({error})") from None
        if not (isinstance(entry, list) and len(entry) in (4, 5)):
            raise SectionDamaged(number, "not a description")
        name, arity, text, arguments = entry[:4]
        declared = entry[4] if len(entry) == 5 else {}
        if not isinstance(declared, dict):
            raise SectionDamaged(number, "a constraint must be an object")
        functional, policy = declared.get("functional", False), declared.get("policy")
        if not (isinstance(functional, bool) and (policy is None or policy in POLICIES)):
            raise SectionDamaged(number, "a constraint must be functional with a known policy")
        if not (isinstance(name, str) and isinstance(text, str) and (text or functional or policy)):
            raise SectionDamaged(number, "name and description must be text")
        if not isinstance(arity, int) or isinstance(arity, bool) or arity < 0:
            raise SectionDamaged(number, "arity must be a non-negative integer")
        if arguments is not None and not (
            isinstance(arguments, list) and all(isinstance(a, str) for a in arguments)
        ):
            raise SectionDamaged(number, "arguments must be a list of names or null")
        names = None if arguments is None else tuple(arguments)
        found[(name, arity)] = Description(text, names, functional, policy)
    return found
