"""What a write that would break a constraint does: the three policies."""

from __future__ import annotations

from enum import StrEnum

from zpm_domain.errors import InvalidArguments


class Policy(StrEnum):
    """``refuse``: the write is not stored, and its answer names the clause
    it conflicts with; ``supersede``: the new fact wins, the ones it
    conflicts with are withdrawn (kept in the history); ``keep``: both are
    stored, and the answer says which clause the new one conflicts with."""

    REFUSE = "refuse"
    SUPERSEDE = "supersede"
    KEEP = "keep"


DEFAULT = Policy.KEEP
"""The policy of a constraint declared without one, unless the project's
configuration says otherwise (``[constraints] policy``): nothing a client
writes is lost, and every conflict is reported."""

NAMES = tuple(policy.value for policy in Policy)
"""The policies by name (``zpm_domain.stored.descriptions.POLICIES`` keeps the
same names; this module stays light for the configuration to import)."""


def parse_policy(text: str, what: str = "policy") -> Policy:
    """The policy named ``text``; ``InvalidArguments`` naming the three."""
    try:
        return Policy(text)
    except ValueError:
        choices = ", ".join(f'"{name}"' for name in NAMES[:-1]) + f' or "{NAMES[-1]}"'
        raise InvalidArguments(f"{what} must be {choices}, not {text!r}") from None


def check_integrity_policy(policy: Policy) -> None:
    """``InvalidArguments`` unless an integrity rule may follow ``policy``:
    ``refuse`` or ``keep`` (a violation names no fact that could be
    superseded)."""
    if policy is Policy.SUPERSEDE:
        raise InvalidArguments(
            'an integrity rule\'s policy is "refuse" or "keep": a violation names no fact '
            "to supersede"
        )


def integrity_policy(default: Policy) -> Policy:
    """The policy of an integrity rule declared without one, when the
    memory's default is ``default`` (``supersede`` is ``keep`` there)."""
    return Policy.KEEP if default is Policy.SUPERSEDE else default
