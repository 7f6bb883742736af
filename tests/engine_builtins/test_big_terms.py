"""Built-ins never recurse in Python: million-element lists and terms nested
100,000 deep work under a Python stack of a hundred frames.  Cyclic lists are
not lists (``type_error(list, L)``), as in SWI-Prolog.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from engine_builtins.harness import FakeMachine
from zpm_adapters.engine_python.builtins.arith import evaluate
from zpm_adapters.engine_python.builtins.order import compare_terms, variant
from zpm_adapters.engine_python.builtins.swi_write import write, writeq
from zpm_adapters.engine_python.builtins.terms import copy_term, term_variables
from zpm_adapters.engine_python.runtime import BUILTINS, PrologThrow, Ref, RTerm, deref
from zpm_domain.prolog.terms import NIL, Atom, String, Struct

DEEP = 100_000
LONG = 1_000_000


@contextmanager
def shallow_python_stack(frames: int = 100) -> Iterator[None]:
    """Any recursion deeper than ``frames`` below this point raises RecursionError."""
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back  # type: ignore[assignment]
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + frames)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def call(m: FakeMachine, name: str, *args: RTerm) -> bool:
    builtin = BUILTINS[(name, len(args))]
    if builtin.deterministic:
        return bool(builtin.fn(m, args))
    return next(iter(builtin.fn(m, args)), False) is None


def nest(depth: int, leaf: RTerm, name: str = "f") -> RTerm:
    t = leaf
    for _ in range(depth):
        t = Struct(name, (t,))
    return t


def big_list(n: int) -> RTerm:
    t: RTerm = NIL
    for i in range(n - 1, -1, -1):
        t = Struct("[|]", (i, t))
    return t


@pytest.fixture(scope="module")
def long_list() -> RTerm:
    return big_list(LONG)


def test_list_built_ins_on_a_million_elements(long_list: RTerm) -> None:
    m = FakeMachine()
    n, s, mx = Ref(), Ref(), Ref()
    with shallow_python_stack():
        assert call(m, "is_list", long_list)
        assert call(m, "length", long_list, n)
        assert call(m, "sum_list", long_list, s)
        assert call(m, "max_list", long_list, mx)
        assert call(m, "memberchk", LONG - 1, long_list)
    assert (deref(n), deref(s), deref(mx)) == (LONG, LONG * (LONG - 1) // 2, LONG - 1)
    assert m.checks >= 3 * (LONG // 1024)


def test_sorting_and_building_long_lists() -> None:
    m = FakeMachine()
    numbers, sorted_list, size = Ref(), Ref(), Ref()
    with shallow_python_stack():
        assert call(m, "numlist", 1, 200_000, numbers)
        assert call(m, "msort", numbers, sorted_list)
        assert call(m, "length", sorted_list, size)
    assert deref(size) == 200_000


def test_text_of_a_million_characters() -> None:
    m = FakeMachine()
    text = "ab" * (LONG // 2)
    codes, atom, length = Ref(), Ref(), Ref()
    with shallow_python_stack():
        assert call(m, "atom_codes", Atom(text), codes)
        assert call(m, "atom_codes", atom, codes)
        assert call(m, "string_length", String(text), length)
    assert deref(atom) is Atom(text)
    assert deref(length) == LONG


def test_deep_terms_compare_copy_and_collect_variables() -> None:
    m = FakeMachine()
    x = Ref()
    a, b = nest(DEEP, x), nest(DEEP, x)
    with shallow_python_stack():
        assert compare_terms(a, b, m) == 0
        assert variant(a, nest(DEEP, Ref()), m)
        copy = copy_term(m, a)
        assert term_variables(m, a) == [x]
        assert call(m, "ground", nest(DEEP, Atom("end")))
        assert not call(m, "ground", a)
        assert call(m, "unify_with_occurs_check", Ref(), a)
        assert not call(m, "unify_with_occurs_check", x, a)
        assert call(m, "=@=", a, copy)
    assert deref(term_variables(m, copy)[0]) is not x


def test_deep_terms_are_written() -> None:
    term = nest(DEEP, Atom("a"))
    with shallow_python_stack():
        text = writeq(term)
        minus = write(nest(DEEP, Atom("a"), "-"))
    assert text == "f(" * DEEP + "a" + ")" * DEEP
    assert minus == "-" + " -" * (DEEP - 1) + "a"


def test_deep_arithmetic() -> None:
    m = FakeMachine()
    right = Atom("x")
    right_deep: RTerm = 1
    left_deep: RTerm = 1
    for _ in range(DEEP):
        right_deep = Struct("+", (1, right_deep))
        left_deep = Struct("+", (left_deep, 1))
    pctx = Struct("context", (Ref(), Ref()))
    with shallow_python_stack():
        assert evaluate(m, right_deep, pctx) == DEEP + 1
        assert evaluate(m, left_deep, pctx) == DEEP + 1
    assert right is Atom("x")


def test_deep_format_argument() -> None:
    m = FakeMachine()
    out = Ref()
    args = Struct("[|]", (nest(DEEP, Atom("a")), NIL))
    with shallow_python_stack():
        assert call(m, "format", Struct("atom", (out,)), String("~w"), args)
    assert len(deref(out).name) == 3 * DEEP + 1  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "arity"),
    [("length", 2), ("msort", 2), ("atom_codes", 2), ("atom_length", 2), ("keysort", 2)],
)
def test_cyclic_lists_are_not_lists(name: str, arity: int) -> None:
    m = FakeMachine()
    cell = Ref()
    cyclic = Struct("[|]", (Atom("a"), cell))
    cell.ref = cyclic
    args: list[RTerm] = [cyclic, Ref()] if name != "atom_codes" else [Ref(), cyclic]
    with pytest.raises(PrologThrow) as err:
        call(m, name, *args[:arity])
    formal = err.value.ball.args[0]  # type: ignore[union-attr]
    assert formal.name == "type_error"
    assert formal.args[0] in (Atom("list"), Atom("text"))
    assert not call(m, "is_list", cyclic)
