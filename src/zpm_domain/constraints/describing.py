"""What ``describe_predicate`` makes of a predicate's record: its
description, its argument names, and whether it is functional with which
policy, or the policy of its integrity rules
(``zpm_domain.stored.descriptions``)."""

from __future__ import annotations

from zpm_domain.constraints.declared import Functional, Integrity
from zpm_domain.constraints.policy import check_integrity_policy, parse_policy
from zpm_domain.errors import InvalidArguments
from zpm_domain.stored.descriptions import Description, described


def record_after(
    held: Description | None,
    shown: str,
    arity: int,
    *,
    description: str | None,
    arguments: str | None,
    functional: bool | None,
    policy: str | None,
    in_file: Functional | Integrity | None,
    integrity: bool = False,
) -> Description | None:
    """The record of predicate ``shown`` (``name/arity``, of ``arity``
    arguments) after a ``describe_predicate`` call that gives
    ``description`` (``None``: the text it has stays; empty: it goes),
    ``arguments`` (with a description only), ``functional`` and ``policy``
    (``None``: as they are), when it held ``held``; ``None`` when nothing
    is left to say.  ``integrity``: the predicate holds integrity rules
    (``integrity_violation/N``), which take a policy (``refuse`` or
    ``keep``) and cannot be functional.  A constraint that a knowledge file
    declares (``in_file``) cannot be changed here.  Raises
    ``InvalidArguments`` saying what is wrong."""
    if description is None and functional is None and policy is None:
        raise InvalidArguments("give a description, functional or a policy")
    if in_file is not None and (functional is not None or policy is not None):
        what = "functional" if isinstance(in_file, Functional) else "with a policy"
        raise InvalidArguments(f"{shown} is declared {what} in {in_file.where}: change it there")
    if integrity and functional:
        raise InvalidArguments(f"{shown} holds integrity rules: it cannot be functional")
    if description is not None:
        given = described(description, arguments, arity)
        text, names = ("", None) if given is None else (given.text, given.arguments)
    elif arguments is not None:
        raise InvalidArguments("arguments are named with a description: give the description too")
    else:
        text, names = ("", None) if held is None else (held.text, held.arguments)
    was = held is not None and held.functional
    now = was if functional is None else functional
    if now and arity == 0:
        raise InvalidArguments(f"{shown} cannot be functional: it has no argument")
    chosen = held.policy if held is not None and ((was and now) or integrity) else None
    if policy is not None:
        if not now and not integrity:
            raise InvalidArguments(
                f"a policy is what a functional predicate's writes follow: {shown} is not "
                "functional (give functional true)"
            )
        parsed = parse_policy(policy)
        if integrity:
            check_integrity_policy(parsed)
        chosen = parsed.value
    if not now and not integrity:
        chosen = None
    if not text and not now and chosen is None:
        return None
    return Description(text, names, now, chosen)


def declaration_text(
    shown: str, before: Description | None, after: Description | None, integrity: bool = False
) -> str:
    """What a call that changed whether ``shown`` is functional, or its
    policy, says of it (``integrity``: it holds integrity rules)."""
    if integrity:
        chosen = "the project's default" if after is None or after.policy is None else after.policy
        return (
            f"{shown} holds integrity rules: a write that makes them find a violation they "
            f"did not find follows the policy {chosen}"
        )
    if after is None or not after.functional:
        if before is not None and before.functional:
            return f"{shown} is no longer functional"
        return f"{shown} is not functional"
    policy = after.policy or "the project's default"
    return f"{shown} is functional: its stored facts follow the policy {policy}"
