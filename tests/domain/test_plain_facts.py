"""The fast path for plain facts reads exactly what the full reader reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.reader.facts import read_plain_fact
from zpm_domain.prolog.terms import Atom, String, Struct, make_list

names = st.from_regex(r"[a-z][A-Za-z0-9_]{0,6}", fullmatch=True)
quoted_text = st.text(
    alphabet=st.characters(blacklist_characters="'\\\n", blacklist_categories=("Cs",)), max_size=6
)
string_text = st.text(
    alphabet=st.characters(blacklist_characters='"\\\n', blacklist_categories=("Cs",)), max_size=6
)
numbers = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.from_regex(r"-?[0-9]{1,4}\.[0-9]{1,4}([eE][+-]?[0-9]{1,2})?", fullmatch=True),
    st.from_regex(r"-?0[0-9]{1,3}", fullmatch=True),
)
constants = st.one_of(
    numbers,
    names,
    quoted_text.map(lambda t: f"'{t}'"),
    string_text.map(lambda t: f'"{t}"'),
)
separators = st.sampled_from([", ", ",", ",  ", ",\t"])  # files other tools write use any
arguments = st.one_of(
    constants,
    st.just("[]"),
    st.builds(
        lambda xs, sep: "[" + sep.join(xs) + "]",
        st.lists(constants, min_size=1, max_size=4),
        separators,
    ),
)
plain_facts = st.one_of(
    names.map(lambda n: f"{n}."),
    st.builds(
        lambda n, args, sep: f"{n}({sep.join(args)}).",
        names,
        st.lists(arguments, min_size=1, max_size=5),
        separators,
    ),
)


@settings(max_examples=600)
@given(plain_facts)
def test_a_plain_fact_reads_as_the_full_reader_reads_it(line: str) -> None:
    fast = read_plain_fact(line)
    assert fast is not None, line
    assert fast == read_term(line), line


@settings(max_examples=600)
@given(st.text(alphabet="abfX_(),. '\"[]|-0123456789e:\\%\n", max_size=20))
def test_any_line_it_accepts_reads_the_same_and_the_rest_is_left_alone(line: str) -> None:
    fast = read_plain_fact(line)
    if fast is not None:
        assert fast == read_term(line), line


def test_examples() -> None:
    assert read_plain_fact('fact(42, "v 42", [a, b, 42]).') == Struct(
        "fact", (42, String("v 42"), make_list([Atom("a"), Atom("b"), 42]))
    )
    assert read_plain_fact("flag.") == Atom("flag")
    assert read_plain_fact("p('[]', []).") == read_term("p('[]', [])")
    for other in (
        "p(X).",
        "p(a) :- q.",
        "p(a, b)",
        "p(0'a).",
        "p('it''s').",
        'p("\\n").',
        "p(f(a)).",
        "p([a|b]).",
        "p(a-b).",
        " p(a).",
        "P(a).",
        "p(1.0Inf).",
        "p(1.0e400).",
    ):
        assert read_plain_fact(other) is None, other
