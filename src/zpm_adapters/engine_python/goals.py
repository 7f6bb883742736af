"""Goal terms: well-formedness, adding closure arguments, resolving ``M:G`` modules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    deref,
    instantiation_error,
    representation_error,
    rstruct,
    type_error,
)
from zpm_domain.errors import MemoryNotMounted
from zpm_domain.prolog.terms import Atom, String, Struct, Var

if TYPE_CHECKING:
    from zpm_adapters.engine_python.store import Namespace

Ctx = tuple[str, str, int]
"""Where an error happened, as SWI-Prolog reports it: ``(module, name, arity)``."""

META_CALL: Ctx = ("system", "<meta-call>", 1)


def ctx_term(ctx: Ctx) -> RTerm:
    """``context(Module:Name/Arity, _)``, the second argument of an ISO error term."""
    module, name, arity = ctx
    where = rstruct(":", (Atom(module), rstruct("/", (Atom(name), arity))))
    return rstruct("context", (where, Ref()))


def add_args(goal: RTerm, extra: tuple[RTerm, ...], ctx: Ctx) -> RTerm:
    """The goal ``call(goal, *extra)`` runs: ``goal`` with ``extra`` appended.

    ``M:G`` keeps its module (``call(m:p(1), 2)`` runs ``m:p(1, 2)``).
    Raises ``instantiation_error`` for an unbound goal and
    ``type_error(callable, G)`` for a closure that is not callable (a plain
    ``call/1`` of a non-callable term is left to the compiler, which reports
    the whole goal).  A goal that is only module qualifications around
    itself (``G = m:G``) is SWI-Prolog's ``type_error(acyclic_term, G)``.
    """
    g = deref(goal)
    if type(g) is Ref:
        raise instantiation_error(ctx_term(ctx))
    if type(g) is Struct and g.name == ":" and len(g.args) == 2 and cyclic_qualification(g):
        raise type_error("acyclic_term", g, ctx_term(META_CALL))
    if not extra:
        return g
    modules: list[RTerm] = []
    while type(g) is Struct and g.name == ":" and len(g.args) == 2:
        modules.append(g.args[0])
        g = deref(g.args[1])
        if type(g) is Ref:
            raise instantiation_error(ctx_term(ctx))
    if type(g) is Atom:
        out: RTerm = rstruct(g.name, extra)
    elif type(g) is Struct:
        out = rstruct(g.name, g.args + extra)
    else:
        raise type_error("callable", g, ctx_term(ctx))
    for module in reversed(modules):
        out = rstruct(":", (module, out))
    return out


def cyclic_qualification(goal: Struct) -> bool:
    """True when following ``M:G`` arguments from ``goal`` comes back to a ``:`` term."""
    seen: set[int] = set()
    g: RTerm = goal
    while type(g) is Struct and g.name == ":" and len(g.args) == 2:
        if id(g) in seen:
            return True
        seen.add(id(g))
        g = deref(g.args[1])
    return False


def resolve_module(module: RTerm, namespaces: dict[str, Namespace]) -> Namespace:
    """The namespace named by ``module`` (the ``M`` of ``M:G``).

    Unbound → ``instantiation_error``; a string → ``type_error(atom, M)``;
    another non-atom → ``type_error(module, M)``; an atom that names no
    namespace → the domain error ``MemoryNotMounted``.
    """
    m = deref(module)
    if type(m) is Ref:
        raise instantiation_error(ctx_term(META_CALL))
    if type(m) is Atom:
        ns = namespaces.get(m.name)
        if ns is None:
            raise MemoryNotMounted(m.name)
        return ns
    kind = "atom" if type(m) is String else "module"
    raise type_error(kind, m, ctx_term(META_CALL))


_CHECK_CYCLES_AFTER = 1000
"""Control constructs a walk visits before it checks the skeleton for a cycle
(SWI-Prolog's compiler checks at depth 1,000 or 10,000)."""


def _skeleton(t: Any, runtime: bool) -> list[Any]:
    """The goal positions right below a control construct (none for a plain goal)."""
    if runtime:
        t = deref(t)
    if type(t) is not Struct:
        return []
    name, n = t.name, len(t.args)
    if n == 2 and name in (",", ";", "->", "*->"):
        return list(t.args)
    if n == 1 and name == "\\+":
        return [t.args[0]]
    if n == 2 and name == ":":
        return [t.args[1]]
    return []


def cyclic_skeleton(goal: Any, runtime: bool = True) -> bool:
    """True when the control structure of ``goal`` (``,`` ``;`` ``->`` ``*->``
    ``\\+`` ``:``) contains itself, e.g. ``G = (a, G)``.  Cyclic *arguments*
    of the goals (``X = f(X), call((true, p(X)))``) do not count."""
    on_path: set[int] = set()
    done: set[int] = set()
    stack: list[tuple[Any, bool]] = [(goal, True)]
    while stack:
        t, entering = stack.pop()
        if runtime:
            t = deref(t)
        key = id(t)
        if not entering:
            on_path.discard(key)
            done.add(key)
            continue
        if key in on_path:
            return True
        below = _skeleton(t, runtime)
        if not below or key in done:
            continue
        on_path.add(key)
        stack.append((t, False))
        stack.extend((b, True) for b in reversed(below))
    return False


def well_formed(goal: Any, runtime: bool) -> bool:
    """True when every goal position of ``goal``'s control structure is a
    variable or callable (and every module of ``M:G`` an atom or variable).

    A cyclic control structure is not well-formed (the compiler then reports
    ``representation_error(cyclic_term)``, see :func:`find_bad_module`).
    """
    stack = [goal]
    visited = 0
    while stack:
        t = stack.pop()
        if runtime:
            t = deref(t)
        if type(t) is Atom or type(t) is Ref or type(t) is Var:
            continue
        if type(t) is not Struct:
            return False
        name, n = t.name, len(t.args)
        if n == 2 and name in (",", ";", "->", "*->"):
            stack.extend(t.args)
        elif n == 1 and name == "\\+":
            stack.append(t.args[0])
        elif n == 2 and name == ":":
            m = deref(t.args[0]) if runtime else t.args[0]
            if type(m) not in (Atom, Ref, Var):
                return False
            stack.append(t.args[1])
        else:
            continue
        visited += 1
        if visited == _CHECK_CYCLES_AFTER and runtime and cyclic_skeleton(goal):
            return False
    return True


def find_bad_module(term: RTerm, ctx: Ctx) -> None:
    """Raise the error of a goal that is not well-formed, other than
    ``type_error(callable, _)``: ``representation_error(cyclic_term)`` for a
    cyclic control structure, ``type_error(module, M)`` for a module that is
    neither an atom nor a variable.  Returns when neither applies."""
    if cyclic_skeleton(term):
        raise representation_error("cyclic_term", ctx_term(ctx))
    stack = [term]
    while stack:
        t = deref(stack.pop())
        if type(t) is not Struct:
            continue
        if t.name in (",", ";", "->", "*->") and len(t.args) == 2:
            stack.extend(t.args)
        elif t.name == "\\+" and len(t.args) == 1:
            stack.append(t.args[0])
        elif t.name == ":" and len(t.args) == 2:
            m = deref(t.args[0])
            if type(m) is not Atom and type(m) is not Ref:
                raise type_error("module", m, ctx_term(ctx))
            stack.append(t.args[1])
