"""What a solve of the python engine hands out, as the domain's terms and errors.

A solve runs on runtime terms (``runtime``); its answers are read back as
domain terms (``rterms.to_answer``) within the answer limits, and an
uncaught ball becomes the ``ZpmError`` the port reports (``PrologError``,
or ``CyclicBall`` / the error of a ball too large to show).  The library's
predicates that the engine calls for reasoning answer through
:func:`library_answer`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import closing

from zpm_adapters.engine_python.builtins.cycles import is_acyclic
from zpm_adapters.engine_python.machine import Machine
from zpm_adapters.engine_python.rterms import AnswerBudget, to_answer
from zpm_adapters.engine_python.runtime import PrologThrow, Ref, RTerm, deref, to_runtime
from zpm_domain.errors import AnswersTooLarge, CyclicAnswer, CyclicBall, ZpmError
from zpm_domain.limits import Limits
from zpm_domain.ports.solutions import Solution, answered_variables
from zpm_domain.prolog.errors import PrologError, thrown_too_large
from zpm_domain.prolog.terms import Struct, Term, Var


def answers_of(machine: Machine, goal: Term) -> Iterator[Solution]:
    """The solutions of ``goal`` (a domain term) that ``machine`` finds, each
    binding the goal's answered variables (``answered_variables``) to domain
    terms, within the answer limits (``AnswerBudget``); an answer binding one
    to a cyclic term raises ``CyclicAnswer`` naming it, an uncaught ball the
    error of :func:`_thrown`.  Closing the iterator early closes the solve."""
    mapping: dict[int, object] = {}
    runtime_goal = to_runtime(goal, mapping)  # type: ignore[arg-type]
    goal_vars = answered_variables(goal)
    budget = AnswerBudget(machine.limits)
    try:
        with closing(machine.solutions(runtime_goal)) as solutions:
            for _ in solutions:
                names: dict[int, Var] = {}
                answer: dict[Var, Term] = {}
                for v in goal_vars:
                    try:
                        answer[v] = to_answer(mapping[id(v)], names, budget)  # type: ignore[arg-type]
                    except CyclicAnswer:
                        raise CyclicAnswer(v.name) from None
                yield answer
    except PrologThrow as exc:
        raise _thrown(exc.ball, machine.limits) from None


def _thrown(ball: RTerm, limits: Limits) -> ZpmError:
    """The error an uncaught ``ball`` is reported as: held to the answer
    limits on its own, so a huge ball costs a walk of at most
    ``max_answer_cells`` compound terms and no copy."""
    try:
        return PrologError(to_answer(ball, {}, AnswerBudget(limits)))
    except CyclicAnswer:
        return CyclicBall()
    except AnswersTooLarge:
        shown = deref(ball)
        formal = iso_formal_of(shown)
        if formal is not None:
            shown = formal
        if type(shown) is Struct:
            return thrown_too_large(shown.name, len(shown.args), formal is not None)
        return thrown_too_large(None, 0, formal is not None)


def iso_formal_of(ball: RTerm) -> RTerm | None:
    """The formal term of a runtime ball ``error(Formal, _)``, else ``None``."""
    if type(ball) is Struct and ball.name == "error" and len(ball.args) == 2:
        return deref(ball.args[0])
    return None


def library_answer(
    machine: Machine, name: str, args: tuple[Term, ...], watched: Sequence[Var] = ()
) -> Term | None:
    """The last argument of the first solution of library predicate ``name``
    called with ``args`` and a fresh variable, or ``None`` when it fails; a
    variable of ``watched`` (of ``args``) that the solution binds to a
    cyclic term raises ``CyclicAnswer`` naming it."""
    result = Ref()
    mapping: dict[int, Ref] = {}
    goal = Struct(name, (*(to_runtime(t, mapping) for t in args), result))
    budget = AnswerBudget(machine.limits)
    try:
        with closing(machine.solutions(goal)) as solutions:
            for _ in solutions:
                for v in watched:
                    if not is_acyclic(mapping[id(v)]):
                        raise CyclicAnswer(v.name)
                return to_answer(result, {}, budget)
    except PrologThrow as exc:
        raise _thrown(exc.ball, machine.limits) from None
    return None
