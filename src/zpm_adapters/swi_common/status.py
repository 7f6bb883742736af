"""What a ``zpm_solve``/``zpm_prove`` call of ``zpm_support.pl`` gives back, read
for ``SwiEngine``: the limits it takes, the answers it collected and the
status that says how it ended (``raise_status``: the domain error, if any).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from zpm_adapters.swi_common import codec
from zpm_domain.errors import (
    AnswersTooLarge,
    CyclicAnswer,
    CyclicBall,
    ExecutionFailed,
    InferenceLimitExceeded,
    IntegerTooLarge,
    Interrupted,
    MemoryLimitExceeded,
    MemoryNotMounted,
    TimeLimitExceeded,
)
from zpm_domain.limits import Limits
from zpm_domain.ports.solutions import Solution
from zpm_domain.prolog.errors import PrologError, SandboxViolation, thrown_too_large
from zpm_domain.prolog.terms import Struct, Var


def limit_list(limits: Limits) -> list[float | int]:
    """The limits of a call as ``zpm_solve/6`` takes them."""
    return [
        float(limits.time_s),
        int(limits.max_inferences),
        int(limits.max_memory_bytes),
        int(limits.max_solutions),
        int(limits.max_answer_cells),
        int(limits.max_answer_chars),
    ]


def solutions(
    answers: list[Any],
    status: Any,
    goal_vars: list[Var],
    limits: Limits,
    watched: Sequence[Var] = (),
) -> Iterator[Solution]:
    for tokens in answers:
        if not isinstance(tokens, list):  # ``cyclic`` or ``too_large``: the status says
            break
        values = codec.decode(tokens)
        args = values.args if isinstance(values, Struct) else ()
        yield dict(zip(goal_vars, args, strict=True))
    raise_status(status, limits, [*watched, *goal_vars])


def raise_status(status: Any, limits: Limits, goal_vars: Sequence[Var] = ()) -> None:
    """Raise the domain error a ``zpm_solve`` status names (nothing for
    ``ok``); ``goal_vars`` are the variables a cyclic answer may name (the
    watched ones of ``zpm_prove``, then the answer's)."""
    if isinstance(status, list | tuple) and status:
        kind, rest = codec._text(status[0]), list(status[1:])
    else:
        kind, rest = codec._text(status), []
    if kind == "ok":
        return
    if kind == "time":
        raise TimeLimitExceeded(limits)
    if kind == "interrupted":
        raise Interrupted()
    if kind == "inferences":
        raise InferenceLimitExceeded(limits)
    if kind == "memory":
        raise MemoryLimitExceeded(limits)
    if kind == "integer":
        raise IntegerTooLarge()
    if kind == "cyclic":
        raise CyclicAnswer(goal_vars[int(rest[0]) - 1].name)
    if kind == "cyclic_ball":
        raise CyclicBall()
    if kind == "too_large":
        raise AnswersTooLarge()
    if kind == "denied":
        raise SandboxViolation(codec._text(rest[0]), int(rest[1]))
    if kind == "not_mounted":
        raise MemoryNotMounted(codec._text(rest[0]))
    if kind == "error":
        raise PrologError(codec.decode(rest[0]))
    if kind == "ball_too_large":
        formal = codec._text(rest[0]) == "formal"
        if len(rest) == 3:
            raise thrown_too_large(codec._text(rest[1]), int(rest[2]), formal)
        raise thrown_too_large(None, 0, formal)
    raise ExecutionFailed(f"unknown solve status {kind}")
