"""Rules of a Hypothesis state machine with weights, and a tour that runs every rule in every case.

Hypothesis picks the next rule uniformly among the enabled ones, and in each
test case leaves a random share of the rules disabled (swarm testing: each
rule has its own flag, off with a probability drawn per case); its choices
also lean towards the first rules of its list.  That finds bugs that need
one kind of call repeated, but it leaves whole runs without some rules.
Two things balance it:

* **weights**: ``rule(weight=N, ...)`` makes a rule N rules (the copies
  ``name__2``... ``name__N``, added by ``with_weights``, each with its own
  flag), so it runs about N times as often and a case leaves it out only
  when it leaves out all N;
* **the tour** (``ScheduledMachine``): after each step, the machine also
  runs up to two rules that the case has run fewer than ``tour_rounds``
  times (drawn among those run least, with arguments drawn from the rule's
  own strategies), until every rule whose precondition holds has run
  ``tour_rounds`` times in the case.  A rule marked
  ``toured=False`` (a costly one, such as a restart) is left to Hypothesis.

Every rule runs through ``ScheduledMachine.run_rule`` under its own name, so
the machine counts rules by name (``rule_ran``); a rule (or an
initialisation) that calls another rule's method directly just calls the
method, and only the outer rule counts.
``when`` is the rule's precondition, for every copy and for the tour.

Hypothesis orders the rules (by target, then by number of arguments, then by
name), and the first case it generates takes every choice at its simplest:
the first rule of that order at every step.  ``ScheduledMachine``'s own rule
``_tour_only`` comes first in that order and calls nothing, so that case is
the tour alone (every rule, with its simplest arguments) rather than one
rule of the machine repeated for every step; in the other cases it is one
rule among the many, a step that only tours.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, precondition
from hypothesis.stateful import rule as hypothesis_rule

Machine = TypeVar("Machine", bound=type[RuleBasedStateMachine])
_SPEC = "_zpm_rule_spec"
_TOUR_DATA = "zpm_tour_data"
"""The hidden argument of every rule: the data the tour draws from."""


@dataclass(frozen=True)
class RuleSpec:
    """One rule as declared: its method, weight, target bundle, precondition,
    argument strategies and whether the tour runs it."""

    method: Callable[..., Any]
    weight: int
    target: Bundle[Any] | None
    when: Callable[[Any], bool] | None
    arguments: dict[str, Any]
    toured: bool

    @property
    def name(self) -> str:
        return self.method.__name__

    def allowed(self, machine: object) -> bool:
        return self.when is None or self.when(machine)


def _copy(spec: RuleSpec, copy_name: str) -> Callable[..., Any]:
    """One Hypothesis rule of ``spec`` named ``copy_name``, run by the machine as ``spec``."""

    def run(self: ScheduledMachine, *args: Any, **kwargs: Any) -> Any:
        data: st.DataObject | None = kwargs.pop(_TOUR_DATA, None)
        if data is None:  # the method called directly, by another rule or an initialisation
            return spec.method(self, *args, **kwargs)
        return self.run_rule(spec, kwargs, data)

    run.__name__ = run.__qualname__ = copy_name
    run.__doc__ = spec.method.__doc__
    arguments = {**spec.arguments, _TOUR_DATA: st.data()}
    ruled: Callable[..., Any] = hypothesis_rule(target=spec.target, **arguments)(run)
    ruled = ruled if spec.when is None else precondition(spec.when)(ruled)
    setattr(ruled, _SPEC, spec)
    return ruled


def rule(
    *,
    weight: int = 1,
    target: Bundle[Any] | None = None,
    when: Callable[[Any], bool] | None = None,
    toured: bool = True,
    **arguments: Any,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Hypothesis's ``rule`` (``target`` and the arguments' strategies), with
    the precondition ``when``, ``weight`` copies and a place in the tour
    (see the module docstring)."""
    assert weight >= 1, "a rule's weight is at least 1"

    def accept(method: Callable[..., Any]) -> Callable[..., Any]:
        spec = RuleSpec(method, weight, target, when, arguments, toured)
        return _copy(spec, method.__name__)

    return accept


def with_weights(machine: Machine) -> Machine:
    """``machine`` with the copies of each of its weighted rules (its own and
    those of the classes it inherits, such as mixins of rules)."""
    for name, spec in rule_specs(machine).items():
        for number in range(2, spec.weight + 1):
            copy_name = f"{name}__{number}"
            assert copy_name not in vars(machine), f"{copy_name} is taken"
            setattr(machine, copy_name, _copy(spec, copy_name))
    return machine


def rule_specs(machine: type) -> dict[str, RuleSpec]:
    """Each rule of ``machine`` (its own and inherited) by name, in the order
    of its classes (``machine.__mro__``) and, within a class, as declared; a
    rule declared again in a subclass is that one, in the subclass's place."""
    found: dict[str, RuleSpec] = {}
    for klass in machine.__mro__:
        for name, value in vars(klass).items():
            spec: RuleSpec | None = getattr(value, _SPEC, None)
            if spec is not None and spec.name == name:
                found.setdefault(name, spec)
    return found


class ScheduledMachine(RuleBasedStateMachine):
    """A state machine whose rules (declared with ``rule``) run through
    ``run_rule``: counted (``rule_ran``), then followed by the tour's next
    ``tour_per_step`` rules."""

    tour_per_step = 2
    """Rules of the tour after each step: a case of N steps tours 2N rules."""
    tour_rounds = 2
    """Runs of every toured rule that each case makes sure of."""

    def __init__(self) -> None:
        super().__init__()
        self._running: str | None = None
        self.case_runs: Counter[str] = Counter()
        """Runs of each rule in this case (outer runs only)."""
        self._tour = [spec for spec in rule_specs(type(self)).values() if spec.toured]

    @property
    def running_rule(self) -> str | None:
        """The rule running now (``None``: an initialisation or an invariant)."""
        return self._running

    def rule_ran(self, name: str) -> None:
        """Called as the rule ``name`` starts (not when another rule calls its method)."""

    @hypothesis_rule(zpm_tour_data=st.data())  # the argument ``_TOUR_DATA`` names
    def _tour_only(self, zpm_tour_data: st.DataObject) -> None:
        """A step that runs nothing but the tour (see the module docstring)."""
        self._tour_step(zpm_tour_data)

    def run_rule(self, spec: RuleSpec, kwargs: dict[str, Any], data: st.DataObject) -> Any:
        """Run ``spec``'s method with ``kwargs``; then, unless within another
        rule, the tour's next rule (see the module docstring)."""
        if self._running is not None:
            return spec.method(self, **kwargs)
        result = self._run(spec, kwargs)
        self._tour_step(data)
        return result

    def _run(self, spec: RuleSpec, kwargs: dict[str, Any]) -> Any:
        self._running = spec.name
        self.case_runs[spec.name] += 1
        self.rule_ran(spec.name)
        try:
            return spec.method(self, **kwargs)
        finally:
            self._running = None

    def _tour_step(self, data: st.DataObject) -> None:
        """The tour's part of a step: up to ``tour_per_step`` rules."""
        for _ in range(self.tour_per_step):
            self._run_next_of_tour(data)

    def _run_next_of_tour(self, data: st.DataObject) -> None:
        due = [
            s for s in self._tour if self.case_runs[s.name] < self.tour_rounds and s.allowed(self)
        ]
        if not due:
            return
        fewest = min(self.case_runs[s.name] for s in due)
        due = [s for s in due if self.case_runs[s.name] == fewest]
        spec = data.draw(st.sampled_from(due), label="tour")
        kwargs = {
            name: data.draw(strategy, label=f"{spec.name}.{name}")
            for name, strategy in spec.arguments.items()
        }
        self._run(spec, kwargs)
