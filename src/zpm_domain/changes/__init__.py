"""Every kind of journaled change, registered in one place.

A change kind registers its journal operation when its module is imported
(``mutations.journaled``).  Importing this module imports each of those
modules, so whatever opens a memory (``zpm_domain.memory.memory`` imports this)
reads every operation a journal may hold, whether or not the tools were
loaded.  A new change kind's module is added to ``MODULES``.
"""

from __future__ import annotations

from zpm_domain.changes import assumptions, describe, merge_ops, mutations, renaming, withdraw

MODULES = (mutations, assumptions, describe, merge_ops, renaming, withdraw)
"""The modules that define change kinds, besides ``zpm_domain.memory.memory`` (whose
``base`` and ``number`` register when it is imported)."""
