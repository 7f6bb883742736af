"""Integer arithmetic compiled in place (the ``ARITH`` instruction of ``code``).

``T is A + B``, ``T is A - B`` and the comparisons ``< > =< >= =:= =\\=``
whose operands are clause variables or integer constants become one ARITH
instruction.  The solver computes it directly when both operands are
integers at run time (Python integers are exact, as SWI-Prolog's are) and
otherwise calls the ``is/2`` or comparison built-in, so answers and errors
are always the built-in's.
"""

from __future__ import annotations

from typing import Any

from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.templates import slot_of, to_template
from zpm_domain.prolog.terms import Struct, Term, Var


def arith_instruction(
    name: str, args: tuple[Term, ...], fn: Any, varmap: dict[int, int]
) -> tuple[Any, ...] | None:
    """The ARITH instruction for goal ``name(args)`` of a clause body, or None if it does not fit.

    ``fn`` is the built-in that computes the general case.
    """
    if name == "is":
        target, expr = args
        if not isinstance(target, Var) or not isinstance(expr, Struct):
            return None
        kind = op.ARITH_KINDS.get(expr.name)
        if kind is None or kind > 1 or len(expr.args) != 2:
            return None
        a, b = expr.args
        target_slot = slot_of(target, varmap)
    else:
        kind = op.ARITH_KINDS.get(name)
        if kind is None or kind < 2:
            return None
        a, b = args
        target_slot = -1
    left, right = _operand(a, varmap), _operand(b, varmap)
    if left is None or right is None:
        return None
    tmpls = tuple(to_template(x, varmap) for x in args)
    return (op.ARITH, kind, *left, *right, target_slot, fn, tmpls)


def _operand(t: Term, varmap: dict[int, int]) -> tuple[int, int] | None:
    """``(slot, 0)`` for a variable, ``(-1, n)`` for an integer, else None."""
    if isinstance(t, Var):
        return (slot_of(t, varmap), 0)
    if type(t) is int:
        return (-1, t)
    return None
