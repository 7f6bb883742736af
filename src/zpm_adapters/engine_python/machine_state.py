"""What one solve of the python engine holds around its loop, and its limits.

A :class:`MachineState` is the state the solver loop (``machine``) runs
on, and the interface built-ins use (as ``m``):

* a *frame* ``(code, pc, slots, cut_barrier, next, depth)`` is "run
  ``code[pc:]`` with these clause slots, then continue with ``next``";
  ``depth`` is ``next``'s depth plus one (the length of the chain); ``fr``
  is the current one, as the loop last left it;
* the choicepoint stack ``cps`` holds lists ``[kind, trail_mark, ...]``;
* the trail records every binding so backtracking can undo it;
* ``guards`` holds the heights of the pending ``setup_call_cleanup/3``
  choicepoints (``CP_CLEANUP``), so that a cut that removes one runs its
  cleanup (see ``cleanup``);
* the budgets: time, inferences (``steps``), depth, the memory the process
  grew by and the text the solve made, checked every few thousand
  inferences (``Machine._loop`` calls :meth:`MachineState._periodic`) and when a built-in asks.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Any

from zpm_adapters.engine_python.resident import ResidentGuard
from zpm_adapters.engine_python.rterms import GuardedTrail
from zpm_adapters.engine_python.runtime import RTerm, unify
from zpm_adapters.engine_python.store import Namespace
from zpm_domain.errors import (
    DepthLimitExceeded,
    InferenceLimitExceeded,
    Interrupted,
    MemoryLimitExceeded,
    TimeLimitExceeded,
)
from zpm_domain.limits import Limits

_CHECK_EVERY = 2048


class StopFlag:
    """Set by ``PythonEngine.interrupt`` (any thread), read by the solves at
    their periodic limit checks."""

    __slots__ = ("requested",)

    def __init__(self) -> None:
        self.requested = False


def _weak_check(machine: MachineState) -> Callable[[], None]:
    """``machine.check_limits`` without a reference to ``machine`` (the
    trail's guard): a finished solve holds no reference cycle, so reference
    counting frees it, and the terms it built, as soon as it is dropped."""
    ref = weakref.ref(machine)

    def check() -> None:
        live = ref()
        if live is not None:
            live.check_limits()

    return check


class MachineState:
    """One solve's state: trail, choicepoints, the current frame and the
    budgets, in namespace ``ns`` reaching ``namespaces`` (``M:G``) with the
    library ``system``.

    Built-ins see it as ``m``: ``m.trail``, ``m.unify(a, b)``, ``m.limits``
    and ``m.check_limits()``.
    """

    def __init__(
        self,
        ns: Namespace,
        namespaces: dict[str, Namespace],
        system: Namespace | None,
        limits: Limits,
        stop: StopFlag | None = None,
    ) -> None:
        self.ns = ns
        self.stop = stop or StopFlag()
        self.namespaces = namespaces
        self.system = system
        self.limits = limits
        self.trail = GuardedTrail(_weak_check(self))
        self.cps: list[list[Any]] = []
        self.guards: list[int] = []
        self.steps = 0
        self.deadline = time.monotonic() + limits.time_s
        self.text_left = limits.max_memory_bytes
        self.resident = ResidentGuard(limits.max_memory_bytes)
        self.next_check = min(_CHECK_EVERY, limits.max_inferences + 1)
        self.fr: tuple[Any, ...] | None = None
        self.proofs: Any = None  # the proof interpreters' state (see ``proofs``)

    # -- the interface built-ins use -----------------------------------------
    def unify(self, a: RTerm, b: RTerm) -> bool:
        return unify(self.trail, a, b)

    def check_limits(self) -> None:
        """Raise ``Interrupted`` when the engine was interrupted, or a
        ``BudgetExceeded`` error if the time or inference budget is spent,
        or the process grew too much since the solve began (``resident``)."""
        if self.stop.requested:
            raise Interrupted()
        now = time.monotonic()
        if now > self.deadline:
            raise TimeLimitExceeded(self.limits)
        if self.steps > self.limits.max_inferences:
            raise InferenceLimitExceeded(self.limits)
        if self.resident.exceeded(now):
            raise MemoryLimitExceeded(self.limits)

    def charge_text(self, chars: int) -> None:
        """Count ``chars`` characters of text the solve makes (an atom, a
        string, a column of ``format/3``) against its memory budget, before
        they are made: all of them together, one byte per character, may
        not exceed ``limits.max_memory_mb`` (``MemoryLimitExceeded``).
        Nothing is given back on backtracking, as SWI-Prolog's atoms outlive
        it too."""
        self.text_left -= chars
        if self.text_left < 0:
            raise MemoryLimitExceeded(self.limits)

    def _periodic(self, steps: int, fr: tuple[Any, ...]) -> None:
        """The loop's check every ``_CHECK_EVERY`` inferences, at ``steps``
        with frame ``fr``: the limits, the depth (frames and choicepoints),
        and the trail dropped when nothing can backtrack over it."""
        self.steps = steps
        self.check_limits()
        limits = self.limits
        if fr[5] + len(self.cps) > limits.max_depth:
            raise DepthLimitExceeded(limits)
        if not self.cps:
            self.trail.cells.clear()  # nothing can backtrack over these bindings
        self.next_check = min(steps + _CHECK_EVERY, limits.max_inferences + 1)

    def _release(self) -> None:
        """Drop the choicepoints and frames of a finished solve: those of
        built-ins hold the machine, and a solve stopped early (an error, a
        limit, a closed generator) leaves some, which would keep the machine
        and every term it built alive until Python's cycle collector runs."""
        self.cps.clear()
        self.guards.clear()
        self.trail.cells.clear()
        self.fr = None
