"""Stopping a solve from another thread: a cancelled call ends at once.

Optional: by default nothing stops a solve but its limits.
"""

from __future__ import annotations

from zpm_domain.ports.engine_core import EngineCore


class Interrupt(EngineCore):
    """Capability ``interrupt``: :meth:`interrupt` and :meth:`resume`."""

    capability = "interrupt"

    def interrupt(self) -> None:  # noqa: B027 (optional hook, a no-op unless overridden)
        """Stop solving: the solve running now, and every solve that starts
        before :meth:`resume`, ends soon with ``Interrupted`` (the built-in
        engines stop within milliseconds).  Safe to call from any thread,
        including while another thread solves.  The default does nothing:
        a cancelled solve then runs until its limits end it.
        """

    def resume(self) -> None:  # noqa: B027 (optional hook, a no-op unless overridden)
        """Forget an :meth:`interrupt`; called by the thread that uses the
        engine, before each tool call, after the interrupt was requested."""
