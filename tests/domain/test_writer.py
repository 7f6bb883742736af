"""Rendering terms: layout, parentheses, quoting, numbers and variables."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.reader.facts import read_canonical_fact
from zpm_domain.prolog.reader.operators import INFIX, PREFIX
from zpm_domain.prolog.terms import NIL, TRUE, Atom, String, Struct, Term, Var, make_list
from zpm_domain.prolog.writer import (
    Renderer,
    end_clause,
    format_float,
    quote_atom_if_needed,
    render,
)
from zpm_domain.stored.clauses import Clause, render_clause
from zpm_domain.stored.provenance import UNKNOWN

LAYOUT = [
    # input text (read first), expected rendering
    ("f(a,b)", "f(a, b)"),
    ("[a,b]", "[a, b]"),
    ("[a,b|T]", "[a, b|T]"),
    ("{a,b}", "{a, b}"),
    ("{x}", "{x}"),
    ("(a,b)", "a, b"),
    ("(a;b)", "a ; b"),
    ("(a->b)", "a -> b"),
    ("(a->b;c)", "a -> b ; c"),
    ("(a*->b;c)", "a *-> b ; c"),
    ("X is Y+1", "X is Y + 1"),
    ("T>20", "T > 20"),
    ("a=..b", "a =.. b"),
    ("h:-b", "h :- b"),
    ("h:-a,b;c", "h :- a, b ; c"),
    ("risky(X):-untested(X),in_production(X)", "risky(X) :- untested(X), in_production(X)"),
    ("m:g(x)", "m:g(x)"),
    ("audit:task_status(X,critical)", "audit:task_status(X, critical)"),
    ("a:(-1)", "a: -1"),
    ("a:(-)", "a:(-)"),
    ("(-):a", "(-):a"),
    ("@@ : a", "@@ :a"),
    ("a: @@", "a: @@"),
    ("\\+a", "\\+ a"),
    ("\\+ (a,b)", "\\+ (a, b)"),
    ("-(1)", "- 1"),
    ("-(-(1))", "- - 1"),
    ("-(-1)", "- -1"),
    ("-(a)", "- a"),
    ("-(-(a))", "- - a"),
    ("-(-)", "- (-)"),
    ("-(-(-))", "- - (-)"),
    ("- (a=b)", "- (a = b)"),
    ("-(1.0Inf)", "- 1.0Inf"),
    ("-(2.0)", "- 2.0"),
    (":-a", ":- a"),
    (":- (:- a)", ":- (:- a)"),
    ("dynamic foo/1", "dynamic foo/1"),
    ("a/(-1)", "a/ -1"),
    ("'@@'/2", "@@ /2"),
    ("a/(1/2)", "a/(1/2)"),
    ("X is 10/2", "X is 10/2"),
    ("$a", "$ a"),
    ("a:-(b:-c)", "a :- (b :- c)"),
    ("1+2+3", "1 + 2 + 3"),
    ("1+(2+3)", "1 + (2 + 3)"),
    ("1-(2-3)", "1 - (2 - 3)"),
    ("2*(3+4)", "2 * (3 + 4)"),
    ("2^3^4", "2 ^ 3 ^ 4"),
    ("(2^3)^4", "(2 ^ 3) ^ 4"),
    ("a:b:c", "a:b:c"),
    ("(a:b):c", "(a:b):c"),
    ("((a,b),c)", "(a, b), c"),
    ("(a,b,c)", "a, b, c"),
    ("(a->b)->c", "(a -> b) -> c"),
    ("-(1)^2", "(- 1) ^ 2"),
    ("(-1)^2", "-1 ^ 2"),
    ("- (1^2)", "- 1 ^ 2"),
    ("1^(-1)", "1 ^ -1"),
    ("1^(-(1))", "1 ^ - 1"),
    ("2** -1", "2 ** -1"),
    ("2**(-(1))", "2 ** (- 1)"),
    ("1 - -1", "1 - -1"),
    ("1-(-(1))", "1 - - 1"),
    ("a- (-(b))", "a - - b"),
    ("-(1)+2", "- 1 + 2"),
    ("-(a) mod b", "- a mod b"),
    ("-(a mod b)", "- (a mod b)"),
    ("\\+a=b", "\\+ a = b"),
    ("(\\+a)=b", "(\\+ a) = b"),
    ("p:- \\+q", "p :- \\+ q"),
    ("(a:-b):-c", "(a :- b) :- c"),
    ("(a,b):-c", "a, b :- c"),
    ("f((a,b))", "f((a, b))"),
    ("f((a:-b))", "f((a :- b))"),
    ("f((a;b))", "f((a ; b))"),
    ("f((a|b))", "f((a | b))"),
    ("[(a:-b)|c]", "[(a :- b)|c]"),
    ("[a=b,(a:-b),(a,b)]", "[a = b, (a :- b), (a, b)]"),
    ("f(:- a)", "f((:- a))"),
    ("f(- 1)", "f(- 1)"),
    ("f(-1)", "f(-1)"),
    ("f(-(a))", "f(- a)"),
    ("-(-(a,b,c))", "- -(a, b, c)"),
    ("- =(a,b,c)", "- =(a, b, c)"),
    ("- [1]", "- [1]"),
    ("- {a}", "- {a}"),
    ("-((a,b))", "- (a, b)"),
    ("(1,2)-3", "(1, 2) - 3"),
    ("a|b", "a | b"),
    ("(a;b)|c", "a ; b | c"),
    ("a;(b|c)", "a ; (b | c)"),
    ("','(a,b,c)", "','(a, b, c)"),
    ("'|'(a)", "'|'(a)"),
    ("{}(x,y)", "{}(x, y)"),
    ("'{}'((a:-b))", "{a :- b}"),
    ("'[]'(x)", "'[]'(x)"),
    ("'$VAR'(1)", "'$VAR'(1)"),
    ("'$VAR'('Foo')", "'$VAR'('Foo')"),
    ('"str"', '"str"'),
    ("f(_)", "f(_)"),
]


@pytest.mark.parametrize(("text", "expected"), LAYOUT)
def test_layout_and_parentheses(text: str, expected: str) -> None:
    assert render(read_term(text)) == expected


OPERATOR_ATOMS = [
    ("f(+)", "f(+)"),
    ("[=,+]", "[=, +]"),
    ("f(:-)", "f(:-)"),
    ("[-]", "[-]"),
    ("[-|-]", "[-|-]"),
    ("f(-, a)", "f(-, a)"),
    ("f(dynamic, a)", "f(dynamic, a)"),
    ("{-}", "{-}"),
    ("a=(-)", "a = (-)"),
    ("(-)=x", "(-) = x"),
    ("(-)-(-)", "(-) - (-)"),
    ("a=(:-)", "a = (:-)"),
    ("a=(dynamic)", "a = (dynamic)"),
    ("a=(',')", "a = (',')"),
    ("(',')=a", "(',') = a"),
    ("a=('|')", "a = ('|')"),
    ("((-),a)", "(-), a"),
    ("\\+ (-)", "\\+ (-)"),
    ("- (\\+)", "- (\\+)"),
    ("f(;)", "f(;)"),
    ("f(',', a)", "f(',', a)"),
    ("[',', '|']", "[',', '|']"),
    (":-", ":-"),
    ("(-)", "-"),
    ("dynamic", "dynamic"),
]


@pytest.mark.parametrize(("text", "expected"), OPERATOR_ATOMS)
def test_operator_atoms(text: str, expected: str) -> None:
    assert render(read_term(text)) == expected


QUOTING = [
    ("a", "a"),
    ("hello", "hello"),
    ("aB_9", "aB_9"),
    ("hello world", "'hello world'"),
    ("Hello World", "'Hello World'"),
    ("it's", "'it\\'s'"),
    ("\n", "'\\n'"),
    ("\t", "'\\t'"),
    ("\a\b\f\v\r", "'\\a\\b\\f\\v\\r'"),
    ("\x00", "'\\x0\\'"),
    ("\x1b", "'\\x1B\\'"),
    ("\x7f", "'\\x7F\\'"),
    ("\x85", "'\\x85\\'"),
    ("\xa0", "'\\xA0\\'"),
    ("\u2028", "'\\x2028\\'"),
    ("a\u200b", "'a\\x200B\\'"),
    ("\\", "\\"),
    ("a\\b", "'a\\\\b'"),
    ("[]", "'[]'"),
    ("{}", "{}"),
    (",", "','"),
    ("|", "'|'"),
    (";", ";"),
    ("!", "!"),
    ("!!", "'!!'"),
    (";;", "';;'"),
    ("", "''"),
    ("A", "'A'"),
    ("_x", "'_x'"),
    ("_", "'_'"),
    ("1", "'1'"),
    ("1a", "'1a'"),
    ("+", "+"),
    ("->", "->"),
    (":-", ":-"),
    ("..", ".."),
    (".", "'.'"),
    ("a.b", "'a.b'"),
    ("/*", "'/*'"),
    ("/*a", "'/*a'"),
    ("+/*", "+/*"),
    ("*/", "*/"),
    ("%", "'%'"),
    ("$", "$"),
    ("$a", "'$a'"),
    ("$VAR", "'$VAR'"),
    ("#", "#"),
    ("`", "'`'"),
    ('"', "'\"'"),
    ('a"', "'a\"'"),
    ("ü", "ü"),
    ("üb", "üb"),
    ("É", "'É'"),
    ("aÉ", "aÉ"),
    ("λ", "λ"),
    ("Ωx", "'Ωx'"),
    ("→", "→"),
    ("→→", "→→"),
    ("a→", "'a→'"),
    ("中", "中"),
    ("🙂", "🙂"),
    ("a🙂", "'a🙂'"),
    ("·", "·"),
    ("a·", "'a·'"),
    ("à", "à"),
    ("\u0300", "'\u0300'"),
    ("Ａ", "'Ａ'"),
    ("ａ", "ａ"),
]


@pytest.mark.parametrize(("name", "expected"), QUOTING)
def test_atom_quoting_as_writeq(name: str, expected: str) -> None:
    assert quote_atom_if_needed(name) == expected
    assert render(Atom(name)) == expected


def test_empty_list_and_quoted_brackets() -> None:
    assert render(NIL) == "[]"
    assert render(Atom("[]")) == "'[]'"
    assert render(make_list([NIL, Atom("[]")])) == "[[], '[]']"
    assert render(Atom("{}")) == "{}"


STRINGS = [
    ("abc", '"abc"'),
    ("", '""'),
    ('a"b', '"a\\"b"'),
    ("it's", '"it\'s"'),
    ("a\\b", '"a\\\\b"'),
    ("a\nb\tc", '"a\\nb\\tc"'),
    ("\x07\x00", '"\\a\\x0\\"'),
    ("\x85\u2028", '"\\x85\\\\x2028\\"'),
    ("é中", '"é中"'),
    ("a`b", '"a`b"'),
]


@pytest.mark.parametrize(("value", "expected"), STRINGS)
def test_strings_as_writeq(value: str, expected: str) -> None:
    assert render(String(value)) == expected


FLOATS = [
    (1.0, "1.0"),
    (0.1, "0.1"),
    (2.5, "2.5"),
    (100.0, "100.0"),
    (1234567.0, "1234567.0"),
    (1e10, "10000000000.0"),
    (1e15, "1.0e+15"),
    (1e16, "1.0e+16"),
    (1e20, "1.0e+20"),
    (1e22, "1.0e+22"),
    (1e100, "1.0e+100"),
    (123456789012345680.0, "1.2345678901234568e+17"),
    (9007199254740993.0, "9.007199254740992e+15"),
    (-4480657516823541.5, "-4480657516823541.5"),
    (0.0001, "0.0001"),
    (0.001, "0.001"),
    (0.000123, "0.000123"),
    (1e-5, "1.0e-5"),
    (1e-7, "1.0e-7"),
    (-1.5e-7, "-1.5e-7"),
    (1e-10, "1.0e-10"),
    (5e-324, "5.0e-324"),
    (1.5e300, "1.5e+300"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
    (2.2250738585072014e-308, "2.2250738585072014e-308"),
    (0.30000000000000004, "0.30000000000000004"),
    (0.0, "0.0"),
    (-0.0, "-0.0"),
    (-2.5, "-2.5"),
    (math.inf, "1.0Inf"),
    (-math.inf, "-1.0Inf"),
    (math.nan, "1.5NaN"),
]


@pytest.mark.parametrize(("value", "expected"), FLOATS)
def test_floats_as_writeq(value: float, expected: str) -> None:
    assert format_float(value) == expected
    assert render(value) == expected


def test_integers_are_plain_and_unbounded() -> None:
    assert render(0) == "0"
    assert render(-42) == "-42"
    big = 7 * 10**12_000 + 3
    text = render(big)
    assert len(text) == 12_001 and text[0] == "7" and text[-1] == "3"
    assert set(text[1:-1]) == {"0"}
    assert render(-big) == "-" + text


def test_named_variables_print_their_names() -> None:
    x, foo, anon = Var("X"), Var("_Foo"), Var("_")
    assert render(Struct("f", (x, foo, anon, x))) == "f(X, _Foo, _, X)"


def test_unnamed_variables_are_numbered_by_first_appearance() -> None:
    a, b = Var(), Var()
    assert render(Struct("f", (b, a, b, Var("Y"), a))) == "f(_G1, _G2, _G1, Y, _G2)"


def test_one_renderer_numbers_across_outputs() -> None:
    a, b = Var(), Var()
    renderer = Renderer()
    assert renderer.render(Struct("p", (a,))) == "p(_G1)"
    assert renderer.render(Struct("q", (b, a))) == "q(_G2, _G1)"
    assert render(Struct("q", (b, a))) == "q(_G1, _G2)"


def test_render_clause() -> None:
    x = Var("X")
    fact = Clause(Struct("human", (Atom("socrates"),)))
    rule = Clause(Struct("mortal", (x,)), Struct("human", (x,)))
    assert render_clause(fact) == "human(socrates)"
    assert render_clause(rule) == "mortal(X) :- human(X)"
    assert render_clause(Clause(Atom("flag"), TRUE)) == "flag"
    body = Struct(";", (Struct("->", (Atom("a"), Atom("b"))), Atom("c")))
    assert render_clause(Clause(Atom("p"), body)) == "p :- a -> b ; c"
    a = Var()
    renderer = Renderer()
    assert renderer.render(Clause(Struct("p", (a,)), Struct("q", (a, Var()))).as_term()) == (
        "p(_G1) :- q(_G1, _G2)"
    )


def test_end_clause_keeps_a_final_symbol_atom_apart() -> None:
    assert end_clause("human(socrates)") == "human(socrates)."
    assert end_clause("x = @@") == "x = @@ ."
    assert end_clause("a :- b = +") == "a :- b = + ."
    assert read_term(end_clause(render(Struct("=", (Atom("x"), Atom("@@")))))) == Struct(
        "=", (Atom("x"), Atom("@@"))
    )


def _nested(name: str, depth: int, leaf: Term) -> Term:
    term = leaf
    for _ in range(depth):
        term = Struct(name, (term,))
    return term


def test_deep_and_long_terms_render_without_recursion() -> None:
    million = make_list(range(1_000_000))
    text = render(million)
    assert text.startswith("[0, 1, 2, ") and text.endswith(", 999999]")
    deep = _nested("f", 100_000, Atom("x"))
    assert render(deep) == "f(" * 100_000 + "x" + ")" * 100_000
    conj: Term = Atom("z")
    for _ in range(100_000):
        conj = Struct(",", (Atom("a"), conj))
    assert render(conj) == "a, " * 100_000 + "z"
    left: Term = Atom("z")
    for _ in range(100_000):
        left = Struct(",", (left, Atom("a")))
    assert render(left) == "(" * 99_999 + "z" + ", a)" * 99_999 + ", a"
    assert render(_nested("-", 100_000, Atom("a"))) == "- " * 100_000 + "a"
    colon: Term = Atom("g")
    for _ in range(100_000):
        colon = Struct(":", (Atom("m"), colon))
    assert render(colon) == "m:" * 100_000 + "g"


_NAMES = ["f", "fact", "p_2", "aB9", "is", "mod", "rem", "xor", "dynamic", "table", "div", "true"]
_ARGUMENTS = [
    "0",
    "-0",
    "007",
    "12",
    "-5",
    "1_000",
    "1.5",
    "999999999999999999",
    "-999999999999999999",
]
_ARGUMENTS += [
    "1000000000000000000",
    "a",
    "is",
    "mod",
    "dynamic",
    "v10",
    "[]",
    "'a'",
    "X",
    "_",
    "aB",
    '"value 1"',
    '""',
    '"a\\\\b"',
    '"é"',
    '"a\\nb"',
    "[a, b]",
    "[a,b]",
    "[[]]",
    '[1, "x y", -3]',
    "[a, [b]]",
    "[a|b]",
    "[ ]",
]


@given(
    st.sampled_from(_NAMES),
    st.lists(st.sampled_from(_ARGUMENTS), min_size=1, max_size=4),
    st.sampled_from([", ", ",", " , ", ",  "]),
)
def test_a_fact_read_as_canonical_is_the_writers(name: str, args: list[str], comma: str) -> None:
    """``read_canonical_fact`` reads what ``read_term`` reads, only texts the
    writer writes so, and every fact of plain atoms, integers, strings of
    printable ASCII and flat lists of those that the writer writes."""
    text = f"{name}({comma.join(args)})"
    fact = read_canonical_fact(text)
    try:
        term = read_term(text)
    except PrologSyntaxError:
        assert fact is None
        return
    written = render(term)
    if fact is not None:
        assert fact == term and written == text
    operator = (len(args) == 2 and name in INFIX) or (len(args) == 1 and name in PREFIX)
    item = r'0|-?[1-9][0-9]{0,17}|[a-z][A-Za-z0-9_]*|"[ !#-\[\]-~]*"|\[\]'
    plain = all(re.fullmatch(rf"{item}|\[(?:{item})(?:, (?:{item}))*\]", arg) for arg in args)
    if written == text and plain and not operator:
        assert fact is not None


def test_a_clause_keeps_its_text_once_rendered_and_copies_with_other_terms_do_not() -> None:
    clause = Clause(read_term("p(X, a)"), read_term("q(X)"))
    assert clause.text is None
    assert render_clause(clause) == "p(X, a) :- q(X)" == clause.text
    assert clause.stamped(7, UNKNOWN).text == "p(X, a) :- q(X)"
    assert clause.renamed("r").text is None
    assert render_clause(clause.renamed("r")) == "r(X, a) :- q(X)"
    assert clause.with_body(TRUE).text is None
    known = Clause(Atom("a"))
    render_clause(known)
    assert known == Clause(Atom("a")) and hash(known) == hash(Clause(Atom("a")))


def test_texts_read_as_canonical() -> None:
    assert read_canonical_fact("fact(12, v12)") == Struct("fact", (12, Atom("v12")))
    assert read_canonical_fact("p(-3, is, 0)") == Struct("p", (-3, Atom("is"), 0))
    for text in ("fact(12,v12)", "mod(1, 2)", "dynamic(a)", "f(-0)", "f(007)", "f(X)", "f"):
        assert read_canonical_fact(text) is None, text
    assert read_canonical_fact("mod(1)") and read_canonical_fact("dynamic(a, b)")


_CONSTANTS = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["a", "hello_World", "A", "[]", "{}", ",", "|", "-", "is", "é", "it's"]).map(
        Atom
    ),
    st.just(NIL),
    st.text(alphabet="ab \"'\\\n\té∀\x00", max_size=6).map(String),
)
_ARGUMENTS = st.one_of(
    _CONSTANTS,
    st.lists(_CONSTANTS, max_size=4).map(make_list),
    st.lists(_CONSTANTS, min_size=1, max_size=3).map(lambda items: make_list(items, Var("T"))),
    st.lists(st.lists(_CONSTANTS, max_size=2).map(make_list), min_size=1, max_size=2).map(
        make_list
    ),
    st.builds(lambda a: Struct("f", (a,)), _CONSTANTS),
)


@given(
    st.sampled_from(["fact", "p", "is", "-", "dynamic", "hello_World"]),
    st.lists(_ARGUMENTS, min_size=1, max_size=4),
)
def test_a_fact_of_constants_and_lists_renders_as_the_general_walk_does(
    name: str, arguments: list[Term]
) -> None:
    operator = (len(arguments) == 2 and name in INFIX) or (len(arguments) == 1 and name in PREFIX)
    assume(not operator)  # written with an operator's layout at the top: no plain fact
    fact = Struct(name, tuple(arguments))
    walked = render(Struct("w", (fact,)))  # an argument that is a compound: the walk
    assert render(fact) == walked[2:-1]
