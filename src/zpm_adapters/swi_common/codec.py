"""Domain terms <-> the flat token lists that ``zpm_support.pl`` decodes and encodes.

Both directions use postfix order, so neither side recurses:

* ``a Name`` atom, ``n`` the empty list, ``s Text`` string, ``i Int`` integer
  (``b Text`` for an integer a binding cannot carry), ``f Float``, ``v K``
  variable number ``K``, ``c Name Arity`` a compound whose ``Arity``
  arguments precede it.
* Input lists start with the number of distinct variables.

:func:`encode` rewrites the goal positions it finds (the goal arguments of
control constructs and meta-predicates per ``META_ARGS``): ``M:G`` becomes
``'$zpm_q'(M, G)``, which maps the namespace name ``M`` to its module at run
time (an unknown ``M`` raises ``MemoryNotMounted``); ``catch/3`` becomes
``'$zpm_catch'/3``, which cannot catch a limit or a refusal; a variable ``V``
in a goal position of a control construct becomes ``'$zpm_g'(V)``, which
rewrites the goal ``V`` is bound to in the same way when it runs
(``zpm_goals.pl``); a meta-predicate call with a variable goal argument
(``bagof``/``setof``: under any ``^``) becomes ``'$zpm_m'(Call)``, which
rewrites the call when it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zpm_domain.builtins import META_ARGS
from zpm_domain.terms import NIL, Atom, String, Struct, Term, Var

Token = Any
QUALIFY = "$zpm_q"
RUNTIME = "$zpm_g"
CATCH = "$zpm_catch"
DEFERRED = "$zpm_m"
CONTROL_GOALS = frozenset({(",", 2), (";", 2), ("->", 2), ("*->", 2), ("\\+", 1)})
DATA = -1
TOO_LARGE = "the answers are too large to return; narrow the query"


def encode(
    term: Term,
    goal: int = DATA,
    *,
    top_modes: Sequence[int] | None = None,
    big_ints: bool = True,
) -> list[Token]:
    """Tokens for ``term``; ``goal`` is ``-1`` for data, else the extra arguments
    a call adds to it (``0`` = a goal).  ``top_modes`` gives the modes of the
    arguments of ``term`` itself (a compound) instead.  ``big_ints=False``
    sends integers beyond 64 bits as text."""
    numbers: dict[int, int] = {}
    out: list[Token] = [0]
    stack: list[tuple[Any, int]] = [(term, goal)]
    top = top_modes
    while stack:
        t, mode = stack.pop()
        if type(t) is tuple:
            out.extend(("c", t[0], t[1]))
            continue
        if isinstance(t, Struct):
            name, args = t.name, t.args
            modes: Sequence[int]
            if mode >= 0 and top is None and _deferred(t, mode):
                stack.append(((DEFERRED, 1), DATA))
                stack.append((t, DATA))
                continue
            if top is not None:
                modes, top = top, None
            elif mode >= 0 and name == ":" and len(args) == 2:
                name, modes = QUALIFY, (DATA, mode)
            elif mode >= 0:
                meta = META_ARGS.get((name, len(args) + mode))
                modes = meta[: len(args)] if meta else (DATA,) * len(args)
                if meta and name == "catch" and len(args) + mode == 3:
                    name = CATCH
            else:
                modes = (DATA,) * len(args)
            stack.append(((name, len(args)), DATA))
            stack.extend(zip(reversed(args), reversed(modes), strict=False))
        elif isinstance(t, Var):
            k = numbers.setdefault(id(t), len(numbers))
            out.extend(("v", k))
            if mode >= 0:
                out.extend(("c", RUNTIME, 1))
        elif t is NIL:
            out.append("n")
        elif isinstance(t, Atom):
            out.extend(("a", t.name))
        elif isinstance(t, String):
            out.extend(("s", t.value))
        elif isinstance(t, bool):
            raise TypeError("bool is not a term")
        elif isinstance(t, int):
            if big_ints or -(2**63) <= t < 2**63:
                out.extend(("i", t))
            else:
                out.extend(("b", str(t)))
        elif isinstance(t, float):
            out.extend(("f", t))
        else:
            raise TypeError(f"not a term: {t!r}")
    out[0] = len(numbers)
    return out


def _deferred(goal: Struct, extra: int) -> bool:
    """A meta-predicate call (not a control construct) with a variable goal
    argument, or a ``bagof``/``setof`` whose goal, under any ``^``, is one."""
    key = (goal.name, len(goal.args) + extra)
    meta = META_ARGS.get(key)
    if meta is None or key in CONTROL_GOALS:
        return False
    if any(m >= 0 and isinstance(a, Var) for a, m in zip(goal.args, meta, strict=False)):
        return True
    if key not in (("bagof", 3), ("setof", 3)):
        return False
    inner = goal.args[1]
    while isinstance(inner, Struct) and inner.name == "^" and len(inner.args) == 2:
        inner = inner.args[1]
    return isinstance(inner, Var)


def meta_specs() -> list[list[Any]]:
    """``META_ARGS`` as ``[Name, Arity, Modes]`` lists for ``zpm_meta/1``."""
    return [[name, arity, list(modes)] for (name, arity), modes in sorted(META_ARGS.items())]


def decode(tokens: Sequence[Token]) -> Term:
    """The domain term of an output token list (fresh anonymous ``Var`` per number).

    Sizes are not checked here: ``zpm_solve`` refuses answers over the budget
    before it encodes them.
    """
    stack: list[Term] = []
    variables: dict[int, Var] = {}
    i, n = 0, len(tokens)
    while i < n:
        tag = _text(tokens[i])
        if tag == "a":
            stack.append(Atom(_text(tokens[i + 1])))
            i += 2
        elif tag == "n":
            stack.append(NIL)
            i += 1
        elif tag == "s":
            stack.append(String(_text(tokens[i + 1])))
            i += 2
        elif tag == "i":
            stack.append(int(tokens[i + 1]))
            i += 2
        elif tag == "b":
            stack.append(int(_text(tokens[i + 1])))
            i += 2
        elif tag == "f":
            stack.append(float(tokens[i + 1]))
            i += 2
        elif tag == "v":
            k = int(tokens[i + 1])
            var = variables.get(k)
            if var is None:
                var = variables[k] = Var(None)
            stack.append(var)
            i += 2
        elif tag == "c":
            arity = int(tokens[i + 2])
            args = tuple(stack[len(stack) - arity :])
            del stack[len(stack) - arity :]
            stack.append(Struct(_text(tokens[i + 1]), args))
            i += 3
        else:
            raise ValueError(f"bad token {tag!r} at {i}")
    if len(stack) != 1:
        raise ValueError("token list does not hold exactly one term")
    return stack[0]


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return str(value)
