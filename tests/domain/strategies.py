"""Hypothesis strategies for domain terms, shared by the test suites.

``terms()`` draws any term: atoms with odd names (operators, quotes,
``'[]'`` next to ``[]``, control characters, Unicode), strings, integers
far beyond 64 bits, floats including infinities and NaN, operators nested
in every position, partial and proper lists, curly terms, named variables
(shared by name inside one term) and anonymous ones.  ``callable_terms()``
draws atoms and compound terms.

Every term drawn reads back from its rendering: distinct named variables
have distinct names, each ``Var("_")`` occurs once, and no name looks like
the ``_G<n>`` names given to unnamed variables.
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from zpm_domain.prolog.reader.operators import INFIX, PREFIX
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var, make_list, map_vars

ODD_NAMES = [
    "", " ", "a b", "it's", "\\", "\\\\", "\n", "\t", "\x00", "\x7f", "\x85", "\u2028",
    "[]", "{}", "[|]", ",", "|", ";", "!", "!!", ".", "..", "/*", "+/*", "%", "'", '"',
    "`", "A", "_", "_x", "Abc", "1", "1a", "a1", "aB_9", "ü", "üb", "É", "a.b", "$VAR",
    "é", "→", "→→", "a→", "中", "🙂", "a-b", "end_of_file", "[a]", "f(x)", "e10",
]  # fmt: skip
OPERATOR_NAMES = sorted(set(INFIX) | set(PREFIX))

atom_names: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(ODD_NAMES),
    st.sampled_from(OPERATOR_NAMES),
    st.from_regex(r"[a-z][a-zA-Z0-9_]{0,5}", fullmatch=True),
    st.text(max_size=5),
)
atoms: st.SearchStrategy[Atom] = st.one_of(atom_names.map(Atom), st.just(NIL))
integers: st.SearchStrategy[int] = st.one_of(
    st.integers(-1000, 1000),
    st.integers(),
    st.integers(-(10**60), 10**60),
)
floats: st.SearchStrategy[float] = st.floats(allow_nan=True, allow_infinity=True)
strings: st.SearchStrategy[String] = st.text(max_size=8).map(String)
VAR_NAMES = ["X", "Y", "Z", "A1", "Abc", "X_y", "_Foo", "_x", "_1", "Ωx", "Élan"]
var_names: st.SearchStrategy[str] = st.sampled_from(VAR_NAMES)


def _share_by_name(term: Term) -> Term:
    """Rebuild ``term`` so that named variables with one name are one variable.

    ``_`` and unnamed variables stay distinct.
    """
    by_name: dict[str, Var] = {}

    def share(var: Var) -> Term:
        if var.name in (None, "_"):
            return var
        return by_name.setdefault(var.name, var)

    return map_vars(term, share)


_LEAVES: st.SearchStrategy[Term] = st.one_of(
    atoms,
    integers,
    floats,
    strings,
    var_names.map(Var),
    st.builds(Var),  # unnamed: renders as _G<n>
    st.builds(lambda: Var("_")),
)


def _compounds(children: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
    infix = st.builds(
        lambda name, a, b: Struct(name, (a, b)), st.sampled_from(sorted(INFIX)), children, children
    )
    prefix = st.builds(
        lambda name, a: Struct(name, (a,)), st.sampled_from(sorted(PREFIX)), children
    )
    plain = st.builds(
        lambda name, args: Struct(name, tuple(args)),
        atom_names,
        st.lists(children, min_size=1, max_size=3),
    )
    lists = st.builds(make_list, st.lists(children, max_size=4), st.one_of(st.just(NIL), children))
    curly = st.builds(lambda a: Struct("{}", (a,)), children)
    return st.one_of(infix, prefix, plain, lists, curly)


def _trees(max_leaves: int) -> st.SearchStrategy[Term]:
    return st.recursive(_LEAVES, _compounds, max_leaves=max_leaves)


@functools.cache
def terms(max_leaves: int = 12) -> st.SearchStrategy[Term]:
    """Any term (see the module documentation)."""
    return _trees(max_leaves).map(_share_by_name)


@functools.cache
def callable_terms(max_leaves: int = 12) -> st.SearchStrategy[Term]:
    """Atoms (not ``[]``) and compound terms, with the variety of :func:`terms`."""
    compound = st.builds(
        lambda name, args: Struct(name, tuple(args)),
        atom_names,
        st.lists(_trees(max_leaves // 2), min_size=1, max_size=3),
    )
    operator = st.builds(
        lambda name, a, b: Struct(name, (a, b)),
        st.sampled_from(sorted(INFIX)),
        _trees(max_leaves // 2),
        _trees(max_leaves // 2),
    )
    callables: st.SearchStrategy[Term] = st.one_of(atom_names.map(Atom), compound, operator)
    return callables.map(_share_by_name)
