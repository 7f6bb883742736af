"""Weighted rules and the tour: copies with flags of their own, and every rule run in every case."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleStrategy, initialize, run_state_machine_as_test

from zpm_contract.rule_schedule import ScheduledMachine, rule, rule_specs, with_weights


@with_weights
class Counting(ScheduledMachine):
    """Rules that record their runs and arguments; ``cases`` keeps each case's runs."""

    cases: ClassVar[list[Counter[str]]] = []
    values = Bundle("values")

    def __init__(self) -> None:
        super().__init__()
        self.ran: Counter[str] = Counter()
        self.cases.append(self.ran)

    def rule_ran(self, name: str) -> None:
        self.ran[name] += 1

    @initialize(target=values)
    def first_value(self) -> int:
        return 7

    @rule(weight=3, target=values, n=st.integers(0, 9))
    def add(self, n: int) -> int:
        assert 0 <= n <= 9
        return n

    @rule(value=values)
    def use(self, value: int) -> None:
        assert 0 <= value <= 9 or value == 7

    @rule(data=st.data())
    def nested(self, data: st.DataObject) -> None:
        """Calls another rule's method: only ``nested`` counts."""
        self.add(data.draw(st.integers(0, 9)))

    @rule(when=lambda self: self.case_runs["add"] > 0)
    def after_add(self) -> None:
        assert self.case_runs["add"] > 0

    @rule(toured=False)
    def rare(self) -> None:
        pass


def test_a_weighted_rule_is_several_rules_with_names_of_their_own() -> None:
    names = {name for name in vars(Counting) if name.startswith("add")}
    assert names == {"add", "add__2", "add__3"}
    specs = rule_specs(Counting)
    assert sorted(specs) == ["add", "after_add", "nested", "rare", "use"]
    assert specs["add"].weight == 3 and not specs["rare"].toured


def run_cases(examples: int, steps: int, run_seed: int) -> list[Counter[str]]:
    """``Counting``'s runs per rule in each case of a run (``examples``
    cases of ``steps`` steps each, drawn from ``run_seed``), in order.
    (Hypothesis also makes machines for tries it drops before their first
    rule: those are left out.)"""
    Counting.cases.clear()
    chosen = settings(
        max_examples=examples,
        stateful_step_count=steps,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    run_state_machine_as_test(seed(run_seed)(Counting), settings=chosen, _min_steps=steps)
    return [ran for ran in Counting.cases if ran]


def test_every_case_runs_every_toured_rule_under_its_own_name() -> None:
    cases = run_cases(20, 8, 3)
    assert len(cases) >= 20
    toured = ("add", "use", "nested", "after_add")
    for ran in cases:
        assert all(ran[name] >= Counting.tour_rounds for name in toured), ran
        assert set(ran) <= {*toured, "rare"}, ran


def test_the_first_case_is_the_tour_alone() -> None:
    """Hypothesis's first case takes the first rule of its order at every
    step: ``_tour_only``, so the case runs each toured rule as many times
    as the tour makes sure of, and no more."""
    rules, _, _ = RuleStrategy._setup_for(Counting)
    assert rules[0].function.__name__ == "_tour_only"
    first = run_cases(1, 12, 5)[0]
    assert first == dict.fromkeys(("add", "use", "nested", "after_add"), Counting.tour_rounds)
