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

from collections.abc import Callable

from hypothesis import strategies as st

from zpm_domain.reader.operators import INFIX, PREFIX
from zpm_domain.terms import NIL, Atom, String, Struct, Term, Var, make_list

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
var_names: st.SearchStrategy[str] = st.from_regex(
    r"[A-Z][A-Za-z0-9_]{0,3}|_[A-Za-z0-9][A-Za-z0-9_]{0,2}", fullmatch=True
).filter(lambda name: not (name.startswith("_G") and name[2:].isdigit()))


def _tree(pool: list[Var], max_leaves: int) -> st.SearchStrategy[Term]:
    leaves: list[st.SearchStrategy[Term]] = [
        atoms,
        integers,
        floats,
        strings,
        st.builds(Var),  # unnamed: renders as _G<n>
        st.builds(lambda: Var("_")),
    ]
    if pool:
        leaves.append(st.sampled_from(pool))
    return st.recursive(st.one_of(*leaves), _compounds, max_leaves=max_leaves)


def _compounds(children: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
    infix = st.builds(
        lambda name, a, b: Struct(name, (a, b)), st.sampled_from(sorted(INFIX)), children, children
    )
    prefix = st.builds(lambda name, a: Struct(name, (a,)), st.sampled_from(sorted(PREFIX)), children)
    plain = st.builds(
        lambda name, args: Struct(name, tuple(args)),
        atom_names,
        st.lists(children, min_size=1, max_size=3),
    )
    lists = st.builds(
        make_list, st.lists(children, max_size=4), st.one_of(st.just(NIL), children)
    )
    curly = st.builds(lambda a: Struct("{}", (a,)), children)
    return st.one_of(infix, prefix, plain, lists, curly)


@st.composite
def _with_pool(draw: st.DrawFn, build: Callable[[list[Var]], st.SearchStrategy[Term]]) -> Term:
    names = draw(st.lists(var_names, unique=True, max_size=4))
    return draw(build([Var(name) for name in names]))


def terms(max_leaves: int = 12) -> st.SearchStrategy[Term]:
    """Any term (see the module documentation)."""
    return _with_pool(lambda pool: _tree(pool, max_leaves))


def callable_terms(max_leaves: int = 12) -> st.SearchStrategy[Term]:
    """Atoms (not ``[]``) and compound terms, with the variety of :func:`terms`."""

    def build(pool: list[Var]) -> st.SearchStrategy[Term]:
        args = st.lists(_tree(pool, max_leaves), min_size=1, max_size=3)
        compound = st.builds(lambda name, a: Struct(name, tuple(a)), atom_names, args)
        operator = st.builds(
            lambda name, a, b: Struct(name, (a, b)), st.sampled_from(sorted(INFIX)),
            _tree(pool, max_leaves // 2), _tree(pool, max_leaves // 2),
        )  # fmt: skip
        return st.one_of(atom_names.map(Atom), compound, operator)

    return _with_pool(build)
