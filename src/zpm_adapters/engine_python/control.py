"""Nondeterministic control built-ins of the solver: ``between/3`` and ``repeat/0``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    context,
    deref,
    instantiation_error,
    nondet,
    type_error,
)
from zpm_domain.terms import Atom

_INFINITE = frozenset({"inf", "infinite"})


@nondet("between", 3)
def between(m: Any, args: tuple[RTerm, ...]) -> Iterator[None]:
    """``between(Low, High, X)`` as SWI-Prolog 9: ``High`` may be ``inf`` or ``infinite``.

    Errors (context ``system:between/3``): an unbound ``Low`` or ``High`` is
    an ``instantiation_error``; a ``Low``, ``High`` or bound ``X`` that is
    not an integer a ``type_error(integer, _)``.
    """
    ctx = context("between", 3)
    low, high, x = deref(args[0]), deref(args[1]), deref(args[2])
    if type(low) is Ref:
        raise instantiation_error(ctx)
    if type(low) is not int:
        raise type_error("integer", low, ctx)
    if type(high) is Ref:
        raise instantiation_error(ctx)
    infinite = type(high) is Atom and high.name in _INFINITE
    if type(high) is not int and not infinite:
        raise type_error("integer", high, ctx)
    if type(x) is int:
        if low <= x and (infinite or x <= high):  # type: ignore[operator]
            yield
        return
    if type(x) is not Ref:
        raise type_error("integer", x, ctx)
    i = low
    while infinite or i <= high:  # type: ignore[operator]
        if m.unify(x, i):
            yield
        i += 1


@nondet("repeat", 0)
def repeat(m: Any, args: tuple[RTerm, ...]) -> Iterator[None]:
    """Succeed again on every backtrack, forever (limits stop it)."""
    while True:
        yield
