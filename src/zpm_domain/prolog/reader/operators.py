"""The operator table: SWI-Prolog 9's default operators.

Both the reader and the writer use it, so that what is written reads back
as the same term.  Priorities are 1..1200; ``left``/``right``/``arg`` are the
highest priorities an operand may have (``p - 1`` on an ``x`` side, ``p``
on a ``y`` side).  ``,`` and ``|`` are listed as infix operators; the reader
treats them as such only where they do not separate arguments or list
elements.  Postfix operators and the dict operator ``.`` are not part of
the table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class InfixOp:
    name: str
    priority: int
    kind: str  # xfx, xfy, yfx
    left: int
    right: int


@dataclass(frozen=True, slots=True)
class PrefixOp:
    name: str
    priority: int
    kind: str  # fx, fy
    arg: int


_INFIX_SPEC = """
1200 xfx :- --> =>
1105 xfy |
1100 xfy ;
1050 xfy -> *->
1000 xfy ,
800 xfx :=
700 xfx = \\= == \\== @< @> @=< @>= =.. is =:= =\\= < > =< >= >:< :< as =@= \\=@=
600 xfy :
500 yfx + - /\\ \\/
400 yfx * / // rdiv << >> mod rem div xor
200 xfx **
200 xfy ^
"""

_PREFIX_SPEC = """
1200 fx :- ?-
1150 fx dynamic discontiguous initialization meta_predicate module_transparent multifile
1150 fx public thread_local thread_initialization volatile table
900 fy \\+
200 fy - + \\
1 fx $
"""


def _infix() -> dict[str, InfixOp]:
    table: dict[str, InfixOp] = {}
    for line in _INFIX_SPEC.strip().splitlines():
        prio, kind, *names = line.split()
        p = int(prio)
        left = p if kind[0] == "y" else p - 1
        right = p if kind[2] == "y" else p - 1
        for name in names:
            table[name] = InfixOp(name, p, kind, left, right)
    return table


def _prefix() -> dict[str, PrefixOp]:
    table: dict[str, PrefixOp] = {}
    for line in _PREFIX_SPEC.strip().splitlines():
        prio, kind, *names = line.split()
        p = int(prio)
        for name in names:
            table[name] = PrefixOp(name, p, kind, p if kind == "fy" else p - 1)
    return table


INFIX: dict[str, InfixOp] = _infix()
PREFIX: dict[str, PrefixOp] = _prefix()


def is_operator(name: str) -> bool:
    """True when ``name`` is an infix or prefix operator."""
    return name in INFIX or name in PREFIX
