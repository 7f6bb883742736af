"""Memory names: which names a created memory may take."""

from __future__ import annotations

import re

from zpm_domain.errors import InvalidArguments

DEFAULT_MEMORY = "default"
"""The memory that is always mounted, and that an omitted name means."""

NAME_PATTERN = re.compile(r"[a-z][A-Za-z0-9_]{0,127}\Z")
RESERVED_NAMES = frozenset({DEFAULT_MEMORY, "__all__", "system", "user", "prolog"})
"""Names no created memory may take: ``default`` and ``__all__`` (the spec's),
and the names of SWI-Prolog's own modules, which an engine that maps memories
to modules one to one would clash with."""


def check_name(name: str) -> str:
    """``name`` if a created memory may take it, else ``InvalidArguments``."""
    if not NAME_PATTERN.match(name) or name in RESERVED_NAMES:
        raise InvalidArguments(
            f"'{name}' is not a valid memory name: a snake_case atom of at most 128 "
            "characters (letter first; not default, system, user or prolog)"
        )
    return name
