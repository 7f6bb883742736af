"""SWI-Prolog through janus-swi.  Importing this package never loads libswipl."""

from __future__ import annotations

from zpm_adapters import swi_env


def probe() -> str:
    """The provisioned SWI-Prolog version text; raises ``RuntimeError`` with the
    reason (the fix is the caller's) when none is provisioned (janus needs SWI-Prolog >= 9.1.12)."""
    found = swi_env.discover()
    if isinstance(found, swi_env.NotProvisioned):
        raise RuntimeError(found.reason)
    return f"janus (SWI-Prolog {found.version_text})"
