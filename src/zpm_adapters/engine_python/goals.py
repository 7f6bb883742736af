"""Goal terms at run time: adding closure arguments, resolving ``M:G`` modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zpm_adapters.engine_python.rterms import rstruct
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    context,
    deref,
    instantiation_error,
    type_error,
)
from zpm_domain.errors import MemoryNotMounted
from zpm_domain.terms import Atom, String, Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.store import Namespace


def add_args(goal: RTerm, extra: tuple[RTerm, ...], ctx: tuple[str, int]) -> RTerm:
    """The goal ``call(goal, *extra)`` runs: ``goal`` with ``extra`` appended.

    ``M:G`` keeps its module (``call(m:p(1), 2)`` runs ``m:p(1, 2)``).
    Raises ``instantiation_error`` for an unbound goal and
    ``type_error(callable, G)`` for a closure that is not callable (a plain
    ``call/1`` of a non-callable term is left to the compiler, which reports
    the whole goal).
    """
    g = deref(goal)
    if type(g) is Ref:
        raise instantiation_error(context(*ctx))
    if not extra:
        return g
    modules: list[RTerm] = []
    while type(g) is Struct and g.name == ":" and len(g.args) == 2:
        modules.append(g.args[0])
        g = deref(g.args[1])
        if type(g) is Ref:
            raise instantiation_error(context(*ctx))
    if type(g) is Atom:
        out: RTerm = rstruct(g.name, extra)
    elif type(g) is Struct:
        out = rstruct(g.name, g.args + extra)
    else:
        raise type_error("callable", g, context(*ctx))
    for module in reversed(modules):
        out = rstruct(":", (module, out))
    return out


def resolve_module(module: RTerm, namespaces: dict[str, Namespace]) -> Namespace:
    """The namespace named by ``module`` (the ``M`` of ``M:G``).

    Unbound → ``instantiation_error``; a string → ``type_error(atom, M)``;
    another non-atom → ``type_error(module, M)``; an atom that names no
    namespace → the domain error ``MemoryNotMounted``.
    """
    m = deref(module)
    if type(m) is Ref:
        raise instantiation_error(context("<meta-call>", 1))
    if type(m) is Atom:
        ns = namespaces.get(m.name)
        if ns is None:
            raise MemoryNotMounted(m.name)
        return ns
    kind = "atom" if type(m) is String else "module"
    raise type_error(kind, m, context("<meta-call>", 1))
