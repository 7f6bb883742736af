"""The change that describes a predicate (journal operation ``describe``), and
the description changes a rename or a merge makes.

What a description is and how a memory keeps it: ``zpm_domain.stored.descriptions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from zpm_domain.changes.journal_args import BadOperation, text_arg
from zpm_domain.changes.mutations import Mutation
from zpm_domain.changes.target import Target
from zpm_domain.ports.journal import JournalOp
from zpm_domain.prolog.allowlist import is_protected
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.writer import indicator_text
from zpm_domain.stored.clauses import Origin
from zpm_domain.stored.descriptions import INTEGRITY, POLICIES, Description, Descriptions, Key


@dataclass(frozen=True, slots=True)
class DescribePredicate(Mutation):
    """Describe ``name/arity`` with ``description`` (``None``: remove its description)."""

    name: str
    arity: int
    description: Description | None
    op: ClassVar[str] = "describe"

    @property
    def key(self) -> Key:
        return (self.name, self.arity)

    @property
    def indicator(self) -> str:
        """``name/arity`` as Prolog text."""
        return indicator_text(self.name, self.arity)

    @classmethod
    def from_args(cls, args: Mapping[str, Any]) -> DescribePredicate:
        arity, arguments = args.get("arity"), args.get("arguments")
        if not isinstance(arity, int) or isinstance(arity, bool) or arity < 0:
            raise BadOperation("'arity' must be a non-negative integer")
        if not (
            arguments is None
            or (isinstance(arguments, list) and all(isinstance(a, str) for a in arguments))
        ):
            raise BadOperation("'arguments' must be a list of strings or null")
        functional, policy = args.get("functional", False), args.get("policy")
        if not isinstance(functional, bool):
            raise BadOperation("'functional' must be true or false")
        if not (policy is None or policy in POLICIES):
            raise BadOperation(f"'policy' must be one of {', '.join(POLICIES)} or null")
        text = text_arg(args, "description")
        names = None if arguments is None else tuple(arguments)
        name = text_arg(args, "name")
        kept = policy if functional or name == INTEGRITY else None
        description = Description(text, names, functional, kept)
        return cls(name, arity, description if text or description.declares else None)

    def footprint(self, target: Target) -> set[int] | None:
        return set()  # descriptions are compared whole (they are few)

    def journal_op(self) -> JournalOp:
        description = self.description
        arguments = None if description is None else description.arguments
        return JournalOp(
            self.op,
            {
                "name": self.name,
                "arity": self.arity,
                "description": "" if description is None else description.text,
                "arguments": None if arguments is None else list(arguments),
                **_declared(description),
            },
        )

    def check(self, target: Target) -> None:
        if is_protected(self.name, self.arity):
            raise PermissionDenied.builtin(self.name, self.arity)

    def apply(self, target: Target, origin: Origin) -> None:
        target.descriptions.put(self.key, self.description)


def _declared(description: Description | None) -> dict[str, Any]:
    """The fields of a constraint's declaration (none otherwise: a plain
    description's line stays as it always was)."""
    if description is None or not description.declares:
        return {}
    return {"functional": description.functional, "policy": description.policy}


def moved(descriptions: Descriptions, old: str, new: str, arity: int) -> list[DescribePredicate]:
    """The mutations that move ``old/arity``'s description to ``new/arity``
    (a rename), replacing any ``new/arity`` had; none when it has none."""
    held = descriptions.record((old, arity))
    if held is None:
        return []
    return [DescribePredicate(new, arity, held), DescribePredicate(old, arity, None)]


def changes(
    before: Mapping[Key, Description], after: Mapping[Key, Description]
) -> list[DescribePredicate]:
    """The mutations that turn descriptions ``before`` into ``after``: the
    new or changed ones in ``after``'s order, then the removals in
    ``before``'s order."""
    found = [
        DescribePredicate(name, arity, description)
        for (name, arity), description in after.items()
        if before.get((name, arity)) != description
    ]
    found += [
        DescribePredicate(name, arity, None)
        for (name, arity) in before
        if (name, arity) not in after
    ]
    return found


def merged(
    point: Mapping[Key, Description], fork: Mapping[Key, Description], base: Descriptions
) -> list[DescribePredicate]:
    """A merge's description changes: the fork's since its fork point
    (:func:`changes`) that the base does not hold already.  The fork's
    description wins over one the base changed meanwhile."""
    return [m for m in changes(point, fork) if base.of(m.name, m.arity) != m.description]
