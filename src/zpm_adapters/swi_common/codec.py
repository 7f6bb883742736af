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
rewrites the call when it runs; a closure whose call turns the arguments it
is called with into goals (``maplist(call, L)``) becomes
``'$zpm_g'(Closure)``, and a refused predicate ``'$zpm_deny'(Goal)`` (see
``zpm_goals.pl``, which rewrites goals built at run time the same way).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zpm_domain.prolog.allowlist import META_ARGS, is_denied, meta_spec
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var
from zpm_domain.prolog.writer import int_text

Token = Any
QUALIFY = "$zpm_q"
RUNTIME = "$zpm_g"
CATCH = "$zpm_catch"
RENAMED = {"catch": CATCH, "setup_call_cleanup": "$zpm_scc"}
"""Meta-predicates run by zpm's own versions (``zpm_catch.pl``,
``zpm_cleanup.pl``): ``catch/3``
cannot catch a limit or a refusal, ``setup_call_cleanup/3`` lets the limits
stop its Setup and Cleanup."""
DEFERRED = "$zpm_m"
DENY = "$zpm_deny"
INLINED_USER = frozenset({("rational", 1)})
"""User predicates that SWI-Prolog's compiler turns into an instruction in a
clause body (a type test); they are called through ``call/1`` instead."""
CONTROL_GOALS = frozenset({(",", 2), (";", 2), ("->", 2), ("*->", 2), ("\\+", 1)})
DATA = -1


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
        if mode >= 0 and top is None and isinstance(t, (Struct, Atom)):
            wrapper = _wrapper(t, mode)
            if wrapper is not None:
                stack.append(((wrapper, 1), DATA))
                stack.append((t, DATA))
                continue
        if isinstance(t, Struct):
            name, args = t.name, t.args
            modes: Sequence[int]
            if top is not None:
                modes, top = top, None
            elif mode >= 0 and name == ":" and len(args) == 2:
                name, modes = QUALIFY, (DATA, mode)
            elif mode >= 0:
                meta = meta_spec(name, len(args) + mode)
                modes = meta[: len(args)] if meta else (DATA,) * len(args)
                if meta and len(args) + mode == 3 and name in RENAMED:
                    name = RENAMED[name]
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
                out.extend(("b", int_text(t)))
        elif isinstance(t, float):
            out.extend(("f", t))
        else:
            raise TypeError(f"not a term: {t!r}")
    out[0] = len(numbers)
    return out


def encode_fact(head: Term, *, big_ints: bool = True) -> list[Token]:
    """``encode(head :- true, top_modes=(DATA, 0))`` for a fact, faster: the
    head is data (nothing in it is rewritten), and the body ``true`` needs no
    wrapper.  Loading a snapshot of many facts takes this path."""
    numbers: dict[int, int] = {}
    out: list[Token] = [0]
    append, extend = out.append, out.extend
    stack: list[Any] = [head]
    pop, push = stack.pop, stack.extend
    while stack:
        t = pop()
        kind = type(t)
        if kind is Struct:
            push((("c", t.name, len(t.args)),))
            push(reversed(t.args))
        elif kind is tuple:
            extend(t)
        elif t is NIL:
            append("n")
        elif kind is Atom:
            extend(("a", t.name))
        elif kind is int:
            if big_ints or -(2**63) <= t < 2**63:
                extend(("i", t))
            else:
                extend(("b", int_text(t)))
        elif kind is String:
            extend(("s", t.value))
        elif kind is float:
            extend(("f", t))
        elif kind is Var:
            extend(("v", numbers.setdefault(id(t), len(numbers))))
        else:
            raise TypeError(f"not a term: {t!r}")
    extend(("a", "true", "c", ":-", 2))
    out[0] = len(numbers)
    return out


def _wrapper(goal: Struct | Atom, extra: int) -> str | None:
    """The run-time wrapper a goal (to be called with ``extra`` more
    arguments) needs, if any: ``'$zpm_deny'`` for a refused predicate,
    ``'$zpm_g'`` for a refused closure or a closure that makes goals of the
    arguments it is called with, ``'$zpm_m'`` for a meta-predicate call with a
    variable goal argument (:func:`_deferred`), ``call`` for
    :data:`INLINED_USER`."""
    args = goal.args if isinstance(goal, Struct) else ()
    if isinstance(goal, Struct) and goal.name == ":" and len(args) == 2:
        return None
    arity = len(args) + extra
    if is_denied(goal.name, arity):
        return DENY if extra == 0 else RUNTIME
    if extra == 0 and (goal.name, arity) in INLINED_USER:
        return "call"
    meta = meta_spec(goal.name, arity)
    if meta is None:
        return None
    if extra and any(m >= 0 for m in meta[len(args) :]):
        return RUNTIME
    if isinstance(goal, Struct) and _deferred(goal, extra):
        return DEFERRED
    return None


def _deferred(goal: Struct, extra: int) -> bool:
    """A meta-predicate call (not a control construct) with a variable goal
    argument, or a goal argument whose control structure holds a variable
    (so that SWI-Prolog compiles that argument as it is bound when it runs,
    and its errors name the whole argument), or a ``bagof``/``setof`` whose
    goal, under any ``^``, is a variable."""
    key = (goal.name, len(goal.args) + extra)
    meta = meta_spec(*key)
    if meta is None or key in CONTROL_GOALS:
        return False
    for arg, mode in zip(goal.args, meta, strict=False):
        if mode >= 0 and isinstance(arg, Var) or mode == 0 and _variable_in_skeleton(arg):
            return True
    if key not in (("bagof", 3), ("setof", 3)):
        return False
    inner = goal.args[1]
    while isinstance(inner, Struct) and inner.name == "^" and len(inner.args) == 2:
        inner = inner.args[1]
    return isinstance(inner, Var)


def _variable_in_skeleton(goal: Term) -> bool:
    """A variable in a goal position of ``goal``'s control structure."""
    stack = [goal]
    while stack:
        t = stack.pop()
        if isinstance(t, Var):
            return True
        if isinstance(t, Struct) and (t.name, len(t.args)) in CONTROL_GOALS:
            stack.extend(t.args)
        elif isinstance(t, Struct) and t.name == ":" and len(t.args) == 2:
            stack.append(t.args[1])
    return False


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
