"""Reflection over the memory's own predicates: ``current_predicate/1,2`` and
``predicate_property/2``.

zpm's rule, not SWI-Prolog's: they see exactly the predicates that
``Engine.predicates(ns)`` lists for the namespace they run in (the
namespace of the clause or query that calls them; ``M:Spec`` / ``M:Head``
with ``M`` an atom looks in namespace ``M``): user predicates with at least
one clause and predicates declared dynamic, in order of first definition.
Built-ins, the library and anything internal are never seen.  The list is
taken when the call starts; ``number_of_clauses(N)`` counts the clauses
when the enumeration reaches the predicate.  Each predicate yields
:data:`~zpm_adapters.engine_python.code.LAST` with its last answer, so a
call whose last candidate matches exits deterministically.

Argument errors are SWI-Prolog 9.2.9's:

* ``current_predicate/1``: a spec that is not ``Name/Arity``,
  ``Name//Arity`` or a variable (after ``M:`` prefixes, the last of which
  counts), a name that is neither an atom nor a variable, or an arity that
  is neither a (32-bit) integer nor a variable → ``type_error(
  predicate_indicator, Spec)``; a negative arity → ``domain_error(
  not_less_than_zero, A)``; a module that is not an atom → ``type_error(
  atom, M)``; all in context ``system:current_predicate/1``.
* ``current_predicate/2`` fails for a name that is not an atom or a head
  that is not callable; a bound head with a module that is not an atom is a
  ``type_error(module, M)`` (unbound context), an unbound head with one
  fails.
* ``predicate_property/2`` never raises for its arguments: it fails.

zpm's own errors: an unbound module → ``instantiation_error`` (context
the predicate); an atom that names no mounted memory → ``MemoryNotMounted``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from zpm_adapters.engine_python.code import LAST
from zpm_adapters.engine_python.goals import cyclic_qualification
from zpm_adapters.engine_python.predicate import Predicate
from zpm_adapters.engine_python.runtime import (
    Ref,
    RTerm,
    context,
    deref,
    domain_error,
    error,
    instantiation_error,
    rstruct,
    type_error,
)
from zpm_adapters.engine_python.store import Namespace
from zpm_domain.errors import MemoryNotMounted
from zpm_domain.prolog.terms import NIL, Atom, Struct

if TYPE_CHECKING:
    from zpm_adapters.engine_python.machine import Machine

Reflect = Callable[["Machine", tuple[RTerm, ...], Namespace], Iterator[bool | None]]

_INT32 = 1 << 31


def _strip(t: RTerm, where: Struct) -> tuple[RTerm | None, RTerm]:
    """``(M, T)`` for ``M1:...:M:T`` (the last module counts), ``(None, T)`` unqualified.

    Qualifications around themselves (``X = m:X``) are ``type_error(acyclic_term, X)``.
    """
    module: RTerm | None = None
    t = deref(t)
    if type(t) is Struct and t.name == ":" and len(t.args) == 2 and cyclic_qualification(t):
        raise type_error("acyclic_term", t, where)
    while type(t) is Struct and t.name == ":" and len(t.args) == 2:
        module = t.args[0]
        t = deref(t.args[1])
    return module, t


def _namespace(m: Machine, module: RTerm, where: Struct) -> Namespace:
    """The namespace an atom ``module`` names; ``instantiation_error`` when unbound."""
    mod = deref(module)
    if type(mod) is Ref:
        raise instantiation_error(where)
    assert type(mod) is Atom, mod
    found = m.namespaces.get(mod.name)
    if found is None:
        raise MemoryNotMounted(mod.name)
    return found


def _head(pred: Predicate) -> RTerm:
    """A most general head of ``pred``: ``name(_, ..., _)``."""
    if not pred.arity:
        return Atom(pred.name)
    return rstruct(pred.name, tuple(Ref() for _ in range(pred.arity)))


def _unify_each(
    m: Machine, preds: list[Predicate], pairs: Callable[[Predicate], list[tuple[RTerm, RTerm]]]
) -> Iterator[bool | None]:
    """For each predicate, unify its ``pairs``; the last success yields ``LAST``."""
    trail = m.trail
    for i, pred in enumerate(preds):
        mark = trail.mark()
        if all(m.unify(a, b) for a, b in pairs(pred)):
            yield LAST if i == len(preds) - 1 else None
        trail.undo(mark)


def current_predicate1(m: Machine, args: tuple[RTerm, ...], ns: Namespace) -> Iterator[bool | None]:
    """``current_predicate(Spec)``: ``Spec`` is ``Name/Arity``, ``Name//Arity`` or unbound."""
    where = context("current_predicate", 1)
    spec = deref(args[0])
    module, pi = _strip(spec, where)
    extra = 0
    name: RTerm = Ref()
    arity: RTerm = Ref()
    if type(pi) is Struct and len(pi.args) == 2 and pi.name in ("/", "//"):
        name, arity = deref(pi.args[0]), deref(pi.args[1])
        extra = 2 if pi.name == "//" else 0
    elif type(pi) is not Ref:
        raise type_error("predicate_indicator", spec, where)
    if type(name) is not Atom and type(name) is not Ref:
        raise type_error("predicate_indicator", spec, where)
    if type(arity) is int and -_INT32 <= arity < _INT32:
        if arity < 0:
            raise domain_error("not_less_than_zero", arity, where)
    elif type(arity) is not Ref:
        raise type_error("predicate_indicator", spec, where)
    if module is not None:
        if type(deref(module)) not in (Atom, Ref):
            raise type_error("atom", deref(module), where)
        ns = _namespace(m, module, where)
    preds = [
        p
        for p in ns.visible()
        if (type(name) is Ref or p.name == name.name)
        and (p.arity == arity + extra if type(arity) is int else p.arity >= extra)
    ]
    if type(pi) is Ref:  # an unbound spec is Name/Arity
        return _unify_each(m, preds, lambda p: [(pi, rstruct("/", (Atom(p.name), p.arity)))])
    return _unify_each(m, preds, lambda p: [(name, Atom(p.name)), (arity, p.arity - extra)])


def current_predicate2(m: Machine, args: tuple[RTerm, ...], ns: Namespace) -> Iterator[bool | None]:
    """``current_predicate(Name, Head)``: the visible predicates whose head unifies."""
    name = deref(args[0])
    module, head = _strip(args[1], context("current_predicate", 2))
    if module is not None:
        mod = deref(module)
        if type(mod) is not Atom and type(mod) is not Ref:
            if type(head) is Ref:
                return iter(())
            raise error(rstruct("type_error", (Atom("module"), mod)))
        ns = _namespace(m, mod, context("current_predicate", 2))
    if type(name) is not Atom and type(name) is not Ref:
        return iter(())
    preds = _matching(ns, head)
    if type(name) is Atom:
        preds = [p for p in preds if p.name == name.name]
    return _unify_each(m, preds, lambda p: [(head, _head(p)), (name, Atom(p.name))])


_PROPERTIES = ("dynamic", "number_of_clauses", "defined")


def predicate_property(m: Machine, args: tuple[RTerm, ...], ns: Namespace) -> Iterator[bool | None]:
    """``predicate_property(Head, Property)``: per predicate ``dynamic`` (if it is),
    ``number_of_clauses(N)``, ``defined``."""
    module, head = _strip(args[0], context("predicate_property", 2))
    if module is not None:
        if type(deref(module)) not in (Atom, Ref):
            return iter(())
        ns = _namespace(m, module, context("predicate_property", 2))
    prop = deref(args[1])
    if type(prop) is not Ref and _property_name(prop) not in _PROPERTIES:
        return iter(())
    return _properties(m, _matching(ns, head), head, prop)


def _properties(
    m: Machine, preds: list[Predicate], head: RTerm, prop: RTerm
) -> Iterator[bool | None]:
    trail = m.trail
    for i, pred in enumerate(preds):
        names = _PROPERTIES if not pred.static else _PROPERTIES[1:]
        for k, kind in enumerate(names):
            value: RTerm = Atom(kind)
            if kind == "number_of_clauses":
                value = rstruct(kind, (len(pred.current()),))
            mark = trail.mark()
            if m.unify(head, _head(pred)) and m.unify(prop, value):
                yield LAST if i == len(preds) - 1 and k == len(names) - 1 else None
            trail.undo(mark)


def _matching(ns: Namespace, head: RTerm) -> list[Predicate]:
    """The visible predicates a head can name: all for a variable, none for a non-callable."""
    if type(head) is Ref:
        return ns.visible()
    if type(head) is Atom and head is not NIL:
        key = (head.name, 0)
    elif type(head) is Struct:
        key = (head.name, len(head.args))
    else:
        return []
    return [p for p in ns.visible() if (p.name, p.arity) == key]


def _property_name(prop: RTerm) -> str | None:
    if type(prop) is Atom and prop.name != "number_of_clauses":
        return prop.name
    if type(prop) is Struct and prop.name == "number_of_clauses" and len(prop.args) == 1:
        return prop.name
    return None


REFLECTION: dict[tuple[str, int], Reflect] = {
    ("current_predicate", 1): current_predicate1,
    ("current_predicate", 2): current_predicate2,
    ("predicate_property", 2): predicate_property,
}
"""The reflection built-ins, compiled to ``REFLECT`` instructions that pass
the calling namespace."""
