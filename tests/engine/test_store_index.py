"""The python store's first-argument index against the plain definition of candidates.

Whatever the history of additions (at either end, keyed or with a variable
first argument), removals (one in place or copied, several at once), and
copies into another namespace (which share the index until either side
changes it), a key's candidates are exactly the current clauses with that
key or with a variable first argument, in order; and a sequence of
candidates handed out earlier still holds what it held then, plus clauses
added at its end (the logical update view).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from zpm_adapters.engine_python.compiled_clause import CClause
from zpm_adapters.engine_python.predicate import Predicate
from zpm_adapters.engine_python.store import Namespace
from zpm_domain.prolog.terms import Struct
from zpm_domain.stored.clauses import Clause

KEYS = (1, 2, 3, None)  # None: the first argument is a variable


@dataclass
class Side:
    """One predicate, the clauses it should hold, and what it handed out."""

    pred: Predicate
    model: list[CClause] = field(default_factory=list)
    handed: list[tuple[object, tuple[CClause, ...], object]] = field(default_factory=list)

    def check(self) -> None:
        current = self.pred.current()
        assert current == self.model
        for key in KEYS[:-1] + (4,):
            expected = [c for c in self.model if c.key is None or c.key == key]
            assert list(self.pred.candidates(key)) == expected, key
        for key, before, live in self.handed:
            assert tuple(live[: len(before)]) == before, key  # type: ignore[index]


def compiled(number: int, key: object) -> CClause:
    return CClause(Clause(Struct("p", (number,))), (number,), 0, None, (), key)


operations = st.lists(
    st.tuples(
        st.sampled_from(("end", "front", "remove", "remove_copy", "remove_many", "look", "adopt")),
        st.sampled_from(KEYS),
        st.integers(0, 50),
        st.booleans(),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(operations)
def test_candidates_are_the_clauses_of_the_key_or_a_variable_in_order(ops: list) -> None:
    sides = [Side(Predicate("p", 1, Namespace("a")))]
    made = 0
    for kind, key, pick, other in ops:
        side = sides[-1] if other and len(sides) > 1 else sides[0]
        if kind in ("end", "front"):
            made += 1
            clause = compiled(made, key)
            side.pred.add(clause, kind == "front")
            if kind == "front":
                side.model.insert(0, clause)
            else:
                side.model.append(clause)
        elif kind in ("remove", "remove_copy") and side.model:
            doomed = side.model[pick % len(side.model)]
            side.pred.current()
            side.pred.remove_stored(doomed, in_place=kind == "remove" and not side.handed)
            side.model.remove(doomed)
        elif kind == "remove_many" and side.model:
            doomed_many = side.model[pick % len(side.model) :: 2]
            side.pred.remove_many(doomed_many)
            side.model = [c for c in side.model if c not in doomed_many]
        elif kind == "look":
            live = side.pred.candidates(key) if key is not None else side.pred.current()
            side.handed.append((key, tuple(live), live))
        elif kind == "adopt" and side.model and all(c.body is None for c in side.model):
            copy = Side(Predicate("p", 1, Namespace(f"n{len(sides)}")), list(side.model))
            copy.pred.adopt(side.pred)
            sides.append(copy)
        for each in sides:
            each.check()
