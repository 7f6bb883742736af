"""The refusals every engine applies before changing a predicate."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zpm_domain.errors import InvalidClause
from zpm_domain.ports.store_checks import (
    changeable,
    check_addition,
    check_additions,
    check_change,
    stored_themselves,
)
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.reader import read_term
from zpm_domain.stored.clauses import Clause


@dataclass
class State:
    static: bool = False
    declared_dynamic: bool = False
    clauses: int = 0

    def has_clauses(self) -> bool:
        return self.clauses > 0


def nothing(name: str, arity: int) -> None:
    raise AssertionError(f"looked up {name}/{arity}")


def clause(text: str) -> Clause:
    return Clause.from_term(read_term(text))


STATIC = "Cannot modify static predicate p/1: it is defined in a knowledge file"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("append(a, b, c)", "Cannot modify built-in predicate: append/3"),
        ("call(x)", "Cannot modify built-in predicate: call/1"),
        ("(a, b)", "Cannot modify built-in predicate: (',')/2"),
        ("halt", "Cannot modify built-in predicate: halt/0"),
    ],
)
def test_built_ins_and_control_cannot_be_defined(text: str, message: str) -> None:
    with pytest.raises(PermissionDenied) as caught:
        check_addition(clause(text), nothing, static=False)
    assert str(caught.value) == message


def test_a_head_must_be_callable() -> None:
    with pytest.raises(InvalidClause, match="Clause head is not callable: 3"):
        check_addition(Clause(3), nothing, static=False)


@pytest.mark.parametrize(
    ("state", "static", "refused"),
    [
        (None, False, False),
        (None, True, False),
        (State(), True, False),
        (State(clauses=2), False, False),
        (State(static=True, clauses=1), True, False),
        (State(static=True, clauses=1), False, True),
        (State(clauses=1), True, True),
        (State(declared_dynamic=True), True, False),
        (State(declared_dynamic=True, clauses=1), True, False),
        (State(declared_dynamic=True), False, False),
    ],
)
def test_static_and_dynamic_do_not_mix(state: State | None, static: bool, refused: bool) -> None:
    if refused:
        with pytest.raises(PermissionDenied, match=STATIC):
            check_addition(clause("p(a)"), lambda n, a: state, static=static)
    else:
        check_addition(clause("p(a)"), lambda n, a: state, static=static)


def test_static_predicates_cannot_change() -> None:
    check_change("p", 1, None)
    check_change("p", 1, State(clauses=1))
    with pytest.raises(PermissionDenied, match=STATIC):
        check_change("p", 1, State(static=True))
    with pytest.raises(PermissionDenied, match="built-in predicate: member/2"):
        check_change("member", 2, None)


def test_changeable_looks_up_the_head_s_predicate() -> None:
    known = {("p", 1): State(clauses=1), ("s", 1): State(static=True)}
    seen: list[tuple[str, int]] = []

    def lookup(name: str, arity: int) -> State | None:
        seen.append((name, arity))
        return known.get((name, arity))

    assert changeable(read_term("p(X)"), lookup) is known[("p", 1)]
    assert changeable(read_term("q(X, Y)"), lookup) is None
    assert changeable(read_term("42"), lookup) is None
    with pytest.raises(PermissionDenied, match="static predicate s/1"):
        changeable(read_term("s(_)"), lookup)
    assert seen == [("p", 1), ("q", 2), ("s", 1)]


def test_a_batch_is_checked_once_per_predicate_with_the_verdicts_in_order() -> None:
    looked_up: list[str] = []

    def lookup(name: str, arity: int) -> State | None:
        looked_up.append(f"{name}/{arity}")
        return State(static=True, clauses=1) if name == "s" else None

    batch = [clause(t) for t in ["p(1)", "s(1)", "p(2)", "1", "append(a, b, c)", "s(2)", "q"]]
    accepted, refused = check_additions(batch, lookup)
    assert accepted == [(0, batch[0]), (2, batch[2]), (6, batch[6])]
    assert [(index, type(error).__name__) for index, error in refused] == [
        (1, "PermissionDenied"),
        (3, "InvalidClause"),
        (4, "PermissionDenied"),
        (5, "PermissionDenied"),
    ]
    assert refused[0][1].message == refused[3][1].message == STATIC.replace("p/1", "s/1")
    assert looked_up == ["p/1", "s/1", "q/0"]


def test_stored_themselves_finds_clauses_by_identity_not_by_value() -> None:
    a, b, twin_of_a, missing = clause("p(a)"), clause("p(b)"), clause("p(a)"), clause("p(c)")
    stored = [("first", a), ("second", b), ("third", a), ("fourth", twin_of_a)]
    found, others = stored_themselves(stored, [missing, a, b, a, a, twin_of_a], lambda e: e[1])
    assert [name for name, _ in found] == ["first", "second", "third", "fourth"]
    assert [id(c) for c in others] == [id(missing), id(a)]
