"""SWI-Prolog through pyswip.  Importing this package never loads libswipl."""

from __future__ import annotations

from zpm_adapters import swi_env


def probe() -> str:
    """The provisioned SWI-Prolog version text; raises ``RuntimeError`` with the
    reason when none is provisioned."""
    found = swi_env.discover()
    if isinstance(found, swi_env.NotProvisioned):
        raise RuntimeError(found.reason)
    return f"pyswip (SWI-Prolog {found.version_text})"
