"""query_logic answers as JSON values (architecture §7)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var, list_items
from zpm_domain.prolog.writer import Renderer
from zpm_domain.tools.jsontext import JsonValue


def reported_variables(variables: Sequence[Var]) -> list[Var]:
    """The goal variables that appear in answers: named, not ``_``-prefixed."""
    return [v for v in variables if v.name and not v.name.startswith("_")]


def encode_answers(
    variables: Sequence[Var], solutions: Iterable[Solution], renderer: Renderer
) -> list[dict[str, JsonValue]]:
    """One JSON object per solution, keys in order of first appearance.

    A success without reported variables is ``{}`` (so a ground goal that
    succeeds gives ``[{}]``).
    """
    shown = reported_variables(variables)
    return [{v.name or "": to_json_value(sol[v], renderer) for v in shown} for sol in solutions]


def to_json_value(term: Term, renderer: Renderer) -> JsonValue:
    """atom → name; number → number; string → string; proper list (``[]``
    included) → array;
    unbound → ``"_G<n>"``; anything else → its rendered text."""
    if term is NIL:
        return []
    if isinstance(term, Atom):
        return term.name
    if isinstance(term, (int, float)):
        return term
    if isinstance(term, String):
        return term.value
    if isinstance(term, Var):
        return renderer.render(term)
    if isinstance(term, Struct) and term.name == "[|]" and len(term.args) == 2:
        items, tail = list_items(term)
        if tail is NIL:
            return _encode_list(items, renderer)
    return renderer.render(term)


def _encode_list(items: list[Term], renderer: Renderer) -> list[JsonValue]:
    # Nested proper lists are encoded without recursion: build bottom-up.
    root: list[JsonValue] = []
    stack: list[tuple[list[Term], int, list[JsonValue]]] = [(items, 0, root)]
    while stack:
        elems, index, out = stack.pop()
        while index < len(elems):
            elem = elems[index]
            index += 1
            if isinstance(elem, Struct) and elem.name == "[|]" and len(elem.args) == 2:
                sub, tail = list_items(elem)
                if tail is NIL:
                    child: list[JsonValue] = []
                    out.append(child)
                    stack.append((elems, index, out))
                    stack.append((sub, 0, child))
                    break
            out.append(to_json_value(elem, renderer))
    return root
