"""What a lockstep case fails with, and the calls a failure names."""

from __future__ import annotations

from typing import Any

Call = tuple[str, dict[str, Any]]
"""A tool call as the machine made it; ``(RESTART, {"kill": bool})`` stands
for a restart of every server."""
RESTART = "-- restart"


class Divergence(AssertionError):
    """Two engines answered the same call differently: on ``step``, whose
    call is the last of ``calls`` (every call of the test case so far)."""

    def __init__(self, message: str, step: int = 0, calls: tuple[Call, ...] = ()) -> None:
        super().__init__(message)
        self.step = step
        self.calls = calls


class LostOnRestart(AssertionError):
    """A server answered differently after a restart than before it."""


class WrongPast(AssertionError):
    """A read ``as_of`` a remembered cursor answered otherwise than the same
    read did when the memory stood there."""


Failure = Divergence | LostOnRestart | WrongPast


class Found(BaseException):
    """The first ``Divergence``, ``LostOnRestart`` or ``WrongPast`` of a hunt
    (``failure``), on its way out of Hypothesis: not an ``Exception``, so
    Hypothesis ends the run at once, as for an interrupt, instead of keeping
    the failure and running its case again to report it."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(str(failure))
        self.failure = failure
