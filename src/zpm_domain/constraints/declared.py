"""The constraints a memory holds: where each was declared, and its policy.

Two places declare that a predicate is functional: a knowledge file
(``:- functional(Name/Arity).`` or ``:- functional(Name/Arity, Policy).``,
people's), and ``describe_predicate`` (``functional`` and ``policy``, kept
with the predicate's description: journaled, carried by forks, reviewed in
merges; ``zpm_domain.stored.descriptions``).  A knowledge file's declaration
of a predicate wins; a tool cannot change it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from zpm_domain.constraints.policy import DEFAULT, Policy
from zpm_domain.stored.descriptions import Descriptions

Key = tuple[str, int]

DESCRIBED = "describe_predicate"
"""Where a constraint declared with ``describe_predicate`` was declared."""


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


class Constraints:
    """A memory's declared constraints: its knowledge files' (in the order
    they were declared), then those its descriptions declare."""

    def __init__(self, descriptions: Descriptions, default: Policy = DEFAULT) -> None:
        self.default = default
        self._descriptions = descriptions
        self._files: dict[Key, Functional] = {}

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
        return other

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
