"""Nondeterministic control built-ins of the solver: ``between/3`` and ``repeat/0``.

Their generators yield :data:`~zpm_adapters.engine_python.code.LAST` with a
last solution, so that the call exits deterministically where SWI-Prolog's
does (``between(1, 3, X)`` on ``X = 3``; ``repeat`` never).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zpm_adapters.engine_python.code import LAST
from zpm_adapters.engine_python.runtime import (
    BUILTINS,
    Builtin,
    Ref,
    RTerm,
    context,
    deref,
    instantiation_error,
    type_error,
)
from zpm_domain.prolog.terms import Atom

_INFINITE = frozenset({"inf", "infinite"})


def between(m: Any, args: tuple[RTerm, ...]) -> Iterator[bool | None]:
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
            yield LAST
        return
    if type(x) is not Ref:
        raise type_error("integer", x, ctx)
    i = low
    while infinite or i <= high:  # type: ignore[operator]
        m.unify(x, i)
        yield None if infinite or i < high else LAST  # type: ignore[operator]
        i += 1


def repeat(m: Any, args: tuple[RTerm, ...]) -> Iterator[None]:
    """Succeed again on every backtrack, forever (limits stop it)."""
    while True:
        yield


BUILTINS[("between", 3)] = Builtin("between", 3, between, False)
BUILTINS[("repeat", 0)] = Builtin("repeat", 0, repeat, False)
