"""The identity of a fact up to the names of its variables: a text equal for
two facts exactly when they are variants of each other."""

from __future__ import annotations

from collections.abc import Callable

from zpm_domain.prolog.reader.operators import is_operator
from zpm_domain.prolog.terms import Term, Var, map_vars
from zpm_domain.prolog.writer import Renderer, quote_atom_if_needed


def variant_key(fact: Term) -> str:
    """A text equal for two facts exactly when they are variants of each other."""
    fresh: dict[int, Var] = {}
    return Renderer().render(map_vars(fact, lambda v: fresh.setdefault(id(v), Var())))


def rekeying(old: str, arity: int, new: str) -> Callable[[str, Term], str]:
    """How the :func:`variant_key` of a fact of ``old/arity`` becomes that of
    the fact renamed to ``new`` (given as the second argument): a new prefix,
    unless an operator name changes how the fact prints."""
    if is_operator(old) or is_operator(new):
        return lambda _key, fact: variant_key(fact)
    before, after = quote_atom_if_needed(old), quote_atom_if_needed(new)
    if arity:
        before, after = before + "(", after + "("
    cut = len(before)
    return lambda key, _fact: after + key[cut:]
