"""The constraints a memory holds: where each was declared, and its policy.

Two places declare that a predicate is functional: a knowledge file
(``:- functional(Name/Arity).`` or ``:- functional(Name/Arity, Policy).``,
people's), and ``describe_predicate`` (``functional`` and ``policy``, kept
with the predicate's description: journaled, carried by forks, reviewed in
merges; ``zpm_domain.stored.descriptions``).  A knowledge file's declaration
of a predicate wins; a tool cannot change it.

Every integrity rule (a clause of ``integrity_violation/N``) is a
constraint without being declared; its predicate's policy is declared the
same two ways (``:- policy(integrity_violation/1, refuse).``, or
``describe_predicate`` with ``policy`` alone), else it is the memory's
default (``keep`` where that is ``supersede``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from zpm_domain.constraints.policy import DEFAULT, Policy, integrity_policy
from zpm_domain.stored.descriptions import INTEGRITY, Descriptions

Key = tuple[str, int]

DESCRIBED = "describe_predicate"
"""Where a constraint declared with ``describe_predicate`` was declared."""

DEFAULT_DECLARED = "default"
"""Where get_knowledge_schema says an integrity rule's policy was declared
when it was not: it follows the memory's default."""


@dataclass(frozen=True, slots=True)
class Functional:
    """``key`` is functional: among the ground facts tools store, no two
    share every argument but the last and differ in it.  ``policy`` is the
    one declared (``None``: the memory's default); ``where`` is the
    declaration's place (``file:line`` of a knowledge file, or
    :data:`DESCRIBED`)."""

    key: Key
    policy: Policy | None
    where: str

    @property
    def in_file(self) -> bool:
        return self.where != DESCRIBED


@dataclass(frozen=True, slots=True)
class Integrity:
    """The integrity rules of ``key`` (``integrity_violation/N``): a write
    may not make them find a violation they did not find before
    (``zpm_domain.constraints.integrity``).  ``policy`` is the one declared
    (``None``: the memory's default) at ``where`` (``None``: nowhere)."""

    key: Key
    policy: Policy | None = None
    where: str | None = None


def is_integrity(key: Key) -> bool:
    """Whether ``key``'s clauses are integrity rules."""
    return key[0] == INTEGRITY


class Constraints:
    """A memory's declared constraints: its knowledge files' (in the order
    they were declared), then those its descriptions declare."""

    def __init__(self, descriptions: Descriptions, default: Policy = DEFAULT) -> None:
        self.default = default
        self._descriptions = descriptions
        self._files: dict[Key, Functional] = {}
        self._integrity: dict[Key, Integrity] = {}

    def declare(self, functional: Functional) -> None:
        """A knowledge file declares ``functional`` (nothing when its
        predicate is declared already)."""
        self._files.setdefault(functional.key, functional)

    def reading(self, descriptions: Descriptions) -> Constraints:
        """These knowledge files' constraints with those ``descriptions``
        declare (the constraints a memory brought back to an earlier state
        of its descriptions would hold)."""
        other = Constraints(descriptions, self.default)
        other._files = self._files
        other._integrity = self._integrity
        return other

    def declare_integrity(self, integrity: Integrity) -> None:
        """A knowledge file declares the policy of ``integrity`` (nothing
        when it is declared already)."""
        self._integrity.setdefault(integrity.key, integrity)

    def integrity(self, key: Key) -> Integrity:
        """The declaration of integrity rules ``key``: a knowledge file's,
        else ``describe_predicate``'s, else none (the default policy)."""
        found = self._integrity.get(key)
        if found is not None:
            return found
        record = self._descriptions.record(key)
        if record is None or record.policy is None:
            return Integrity(key)
        return Integrity(key, Policy(record.policy), DESCRIBED)

    def integrity_policy(self, integrity: Integrity) -> Policy:
        """The policy ``integrity`` follows (its own, else the memory's
        default for integrity rules)."""
        return integrity.policy or integrity_policy(self.default)

    def functional(self, key: Key) -> Functional | None:
        """The functional constraint on ``key``, if any."""
        found = self._files.get(key)
        if found is not None:
            return found
        record = self._descriptions.record(key)
        if record is None or not record.functional:
            return None
        return Functional(key, None if record.policy is None else Policy(record.policy), DESCRIBED)

    def policy_of(self, functional: Functional) -> Policy:
        """The policy ``functional`` follows (its own, else the memory's default)."""
        return functional.policy or self.default

    def __bool__(self) -> bool:
        return bool(self._files) or self._descriptions.functional > 0

    def __iter__(self) -> Iterator[Functional]:
        yield from self._files.values()
        for key, record in self._descriptions:
            if record.functional and key not in self._files:
                found = self.functional(key)
                assert found is not None
                yield found
