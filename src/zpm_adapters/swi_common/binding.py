"""The little a SWI binding must offer the shared engine logic."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
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
