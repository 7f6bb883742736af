"""The little a SWI binding must offer the shared engine logic."""

from __future__ import annotations

import ctypes
import signal
from abc import ABC, abstractmethod
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

SUPPORT_FILE = Path(__file__).with_name("zpm_support.pl")


class Binding(ABC):
    """One embedded SWI-Prolog, called with fixed goal texts and bound inputs.

    Goal texts are constants of this package; inputs (token lists, atoms,
    numbers) are handed over as values, never spliced into source text.
    """

    @abstractmethod
    def once(self, goal: str, inputs: Mapping[str, Any]) -> dict[str, Any] | None:
        """Run ``goal`` once with ``inputs`` bound to its variables.

        Returns the bindings of its other variables, or ``None`` when it
        fails.  Lists come back as Python lists, atoms and strings as
        ``str`` (or ``bytes``), numbers as numbers.  A Prolog exception
        raises ``RuntimeError`` whose ``args[0]`` is the binding's text.
        """

    @abstractmethod
    def version_text(self) -> str:
        """The binding's name and the embedded SWI-Prolog version."""

    @abstractmethod
    def interrupt_thread(self, thread_id: int) -> None:
        """Raise SIGUSR2 in Prolog thread ``thread_id`` (``zpm_thread_id/1``),
        whose handler (``zpm_support:zpm_interrupt/1``) stops a running solve.
        Safe from any OS thread."""


def raise_in_thread(libswipl: Path, thread_id: int) -> None:
    """``PL_thread_raise(thread_id, SIGUSR2)`` in the SWI-Prolog library
    ``libswipl`` (already loaded: opening it again finds the same copy)."""
    _library(str(libswipl)).PL_thread_raise(thread_id, signal.SIGUSR2)


@cache
def _library(path: str) -> Any:
    library = ctypes.CDLL(path)
    library.PL_thread_raise.argtypes = [ctypes.c_int, ctypes.c_int]
    library.PL_thread_raise.restype = ctypes.c_int
    return library
