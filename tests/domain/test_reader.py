"""Reading terms: structure, operators and SWI-Prolog's special cases.

Every expected text below is what SWI-Prolog 9 reads for the same input
(``write_canonical``), except where a comment says otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import NIL, Atom, String, Struct, Term, Var, variant

Canon = Callable[[Term], str]

STRUCTURE = [
    ("foo(a, b)", "foo(a,b)"),
    ("human( socrates ).", "human(socrates)"),
    ("mortal(X) :- human(X)", ":-(mortal(X),human(X))"),
    ("a :- b, c ; d -> e", ":-(a,;(','(b,c),->(d,e)))"),
    ("(a, b)", "','(a,b)"),
    ("f((a, b))", "f(','(a,b))"),
    ("f(a :- b)", "f(:-(a,b))"),
    ("f(a :- b, c)", "f(:-(a,b),c)"),
    ("[a :- b]", "[:-(a,b)]"),
    ("[a|b:-c]", "[a|:-(b,c)]"),
    ("[a, b|T]", "[a,b|T]"),
    ("[a|[]]", "[a]"),
    ("[a|'[]']", "[a|'[]']"),
    ("[ ]", "[]"),
    ("{a, b}", "{}(','(a,b))"),
    ("{a :- b}", "{}(:-(a,b))"),
    ("{ }", "{}"),
    ("{}(x)", "{}(x)"),
    ("'{}'(x, y)", "{}(x,y)"),
    ("'hello world'(x)", "'hello world'(x)"),
    ("a|b", "'|'(a,b)"),
    ("(a|b)", "'|'(a,b)"),
    ("f(a|b)", "f('|'(a,b))"),
    ("{a | b}", "{}('|'(a,b))"),
    ("a ; b | c", "'|'(;(a,b),c)"),
    ("a ',' b", "','(a,b)"),
    ("f(a ',' b)", "f(','(a,b))"),
    ("[a '|' b]", "['|'(a,b)]"),
    ("a:b:c", ":(a,:(b,c))"),
    ("m:g(x)", ":(m,g(x))"),
    ("1 - 2 - 3", "-(-(1,2),3)"),
    ("2^3^4", "^(2,^(3,4))"),
    ("X is Y + 1 * 2", "is(X,+(Y,*(1,2)))"),
    ("a =.. b", "=..(a,b)"),
    ("a=..b", "=..(a,b)"),
    ("a-->b", "-->(a,b)"),
    ("a=>b", "=>(a,b)"),
    ("a*->b", "*->(a,b)"),
    ("a:=b", ":=(a,b)"),
    ("a>:<b", ">:<(a,b)"),
    ("a:<b", ":<(a,b)"),
    ("X as Y", "as(X,Y)"),
    ("a rdiv b", "rdiv(a,b)"),
    ("a xor b mod c", "mod(xor(a,b),c)"),
    ("?- a", "?-(a)"),
    (":- a", ":-(a)"),
    (":- dynamic foo/1, bar/2.", ":-(dynamic(','(/(foo,1),/(bar,2))))"),
    ("$a", "$(a)"),
    ("\\+a", "\\+(a)"),
    ("\\+ (a, b)", "\\+(','(a,b))"),
    ("\\+(a, b)", "\\+(a,b)"),
    ("\\+ a = b", "\\+(=(a,b))"),
    ("\\+ \\+ a", "\\+(\\+(a))"),
    ("p :- \\+ q, r", ":-(p,','(\\+(q),r))"),
    ("a = \\+ , b", "','(=(a,\\+),b)"),
    ("a, \\+ , b", "','(a,','(\\+,b))"),
    ("\\+ -> a", "->(\\+,a)"),
    ("- ; a", ";(-,a)"),
]

MINUS_AND_PREFIX = [
    ("- 1", "-(1)"),
    ("-1", "-1"),
    ("- (1)", "-(1)"),
    ("-(1)", "-(1)"),
    ("-( 1)", "-(1)"),
    ("- 1.0", "-(1.0)"),
    ("-1.0", "-1.0"),
    ("-0.0", "-0.0"),
    ("-1.0Inf", "-1.0Inf"),
    ("-0x10", "-16"),
    ("-0'a", "-97"),
    ("a-1", "-(a,1)"),
    ("a -1", "-(a,1)"),
    ("a- -1", "-(a,-1)"),
    ("1 - -1", "-(1,-1)"),
    ("a- (-1)", "-(a,-1)"),
    ("[a -1]", "[-(a,1)]"),
    ("- -1", "-(-1)"),
    ("- - 1", "-(-(1))"),
    ("- - -1", "-(-(-1))"),
    ("- a", "-(a)"),
    ("-a", "-(a)"),
    ("-(a, b)", "-(a,b)"),
    ("- (a, b)", "-(','(a,b))"),
    ("- 1 + 2", "+(-(1),2)"),
    ("- (1) + 2", "+(-(1),2)"),
    ("-(1) ^ 2", "^(-(1),2)"),
    ("- (1) ^ 2", "-(^(1,2))"),
    ("- 1^2", "-(^(1,2))"),
    ("-1^2", "^(-1,2)"),
    ("- a = b", "=(-(a),b)"),
    ("- (a) :- b", ":-(-(a),b)"),
    ("+1", "+(1)"),
    ("- + 1", "-(+(1))"),
    ("1 * - 1", "*(1,-(1))"),
    ("a* -1", "*(a,-1)"),
    ("2 ^ - a", "^(2,-(a))"),
    ("- - a", "-(-(a))"),
    ("- $a", "-($(a))"),
    ("- =(a,b,c)", "-(=(a,b,c))"),
    ("- is(a)", "-(is(a))"),
]

OPERATORS_AS_ATOMS = [
    ("f(+)", "f(+)"),
    ("[-]", "[-]"),
    ("- (-)", "-(-)"),
    ("-(-)", "-(-)"),
    ("f(:-)", "f(:-)"),
    ("f(:-, a)", "f(:-,a)"),
    ("[:-]", "[:-]"),
    ("f(- , a)", "f(-,a)"),
    ("f(a, -)", "f(a,-)"),
    ("[-|T]", "[-|T]"),
    ("[- | a]", "[-|a]"),
    ("f(dynamic, a)", "f(dynamic,a)"),
    ("- , a", "','(-,a)"),
    ("- - , a", "','(-(-),a)"),
    ("- = x", "=(-,x)"),
    ("- - = x", "=(-(-),x)"),
    ("- * x", "*(-,x)"),
    ("* = x", "=(*,x)"),
    ("= = =", "=(=,=)"),
    ("a = \\+", "=(a,\\+)"),
    ("a = dynamic", "=(a,dynamic)"),
    ("X = - -", "=(X,-(-))"),
    ("\\+ \\+", "\\+(\\+)"),
    ("(:-)", ":-"),
    (":-", ":-"),
    ("-", "-"),
    ("\\+", "\\+"),
    ("- .", "-"),
    ("f(;, a)", "f(;,a)"),
    ("a ; ;", ";(a,;)"),
    ("!", "!"),
    ("[!|!]", "[!|!]"),
    ("'-'(1)", "-(1)"),
    ("- 'a'", "-(a)"),
    ("',' ',' ','", "','(',',',')"),
    ("\\+ ',' a", "','(\\+,a)"),
]


@pytest.mark.parametrize(("text", "expected"), STRUCTURE + MINUS_AND_PREFIX + OPERATORS_AS_ATOMS)
def test_reads_as_swi_prolog_does(text: str, expected: str, canon: Canon) -> None:
    assert canon(read_term(text)) == expected


def test_empty_list_and_quoted_brackets_are_different_atoms() -> None:
    assert read_term("[]") is NIL
    assert read_term("'[]'") is Atom("[]")
    assert read_term("'[]'") is not NIL
    assert read_term("{}") is Atom("{}")
    assert read_term("'{}'") is Atom("{}")


def test_strings_and_back_quotes() -> None:
    assert read_term('"abc"') == String("abc")
    assert read_term('""') == String("")
    assert read_term('"a""b"') == String('a"b')
    assert variant(read_term("`ab`"), Struct("[|]", (97, Struct("[|]", (98, NIL)))))
    assert read_term("``") is NIL


def test_variables_are_shared_by_name_and_underscore_is_always_fresh() -> None:
    term = read_term("f(X, Y, X, _, _, _Foo, _Foo)")
    assert isinstance(term, Struct)
    x, y, x2, anon1, anon2, foo1, foo2 = term.args
    assert x is x2 and x is not y
    assert anon1 is not anon2
    assert isinstance(anon1, Var) and anon1.name == "_"
    assert foo1 is foo2 and isinstance(foo1, Var) and foo1.name == "_Foo"


def test_variable_map_is_used_and_filled() -> None:
    names: dict[str, Var] = {}
    head = read_term("ancestor(X, Y)", names)
    body = read_term("parent(X, Z), ancestor(Z, Y), _", names)
    assert set(names) == {"X", "Y", "Z"}
    assert isinstance(head, Struct) and isinstance(body, Struct)
    assert head.args[0] is names["X"]
    parent = body.args[0]
    assert isinstance(parent, Struct) and parent.args[0] is names["X"]


def test_given_variables_are_reused() -> None:
    known = Var("X")
    term = read_term("f(X)", {"X": known})
    assert isinstance(term, Struct) and term.args[0] is known


def test_unicode_names() -> None:
    assert read_term("ü") is Atom("ü")
    assert read_term("中") is Atom("中")
    assert read_term("→ = x") == Struct("=", (Atom("→"), Atom("x")))
    upper = read_term("Ωx")
    assert isinstance(upper, Var) and upper.name == "Ωx"


def test_comments_and_layout() -> None:
    assert read_term("% lead\nf( a , /* inner */ b ) . % trail") == Struct(
        "f", (Atom("a"), Atom("b"))
    )
    assert read_term("a = /*x*/ b") == Struct("=", (Atom("a"), Atom("b")))
    assert read_term("a = +/*") == Struct("=", (Atom("a"), Atom("+/*")))
    assert read_term("a.%c") is Atom("a")
    assert read_term("a\t.\n") is Atom("a")


def test_deep_nesting_reads_without_recursion() -> None:
    depth = 20_000
    term = read_term("f(" * depth + "x" + ")" * depth)
    for _ in range(depth):
        assert isinstance(term, Struct) and term.name == "f"
        term = term.args[0]
    assert term is Atom("x")
    prefix = read_term("- " * depth + "a")
    assert isinstance(prefix, Struct)
    parens = read_term("(" * depth + "a" + ")" * depth)
    assert parens is Atom("a")


def test_long_conjunctions_and_lists() -> None:
    conj = read_term(", ".join(["a"] * 30_000))
    count = 1
    while isinstance(conj, Struct):
        assert conj.name == "," and conj.args[0] is Atom("a")
        conj, count = conj.args[1], count + 1
    assert count == 30_000
    items = read_term("[" + ", ".join(str(i) for i in range(100_000)) + "]")
    n = 0
    while isinstance(items, Struct):
        assert items.args[0] == n
        items, n = items.args[1], n + 1
    assert n == 100_000 and items is NIL
