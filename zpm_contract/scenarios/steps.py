"""A scenario's steps, how an answer matches what a step expects, and what many scenarios share.

Each step is ``(tool, arguments, expected, is_error)``.  ``expected`` is the
exact text, or a ``template``: a text whose ``<hole>`` parts stand for
machine-specific values (a directory, a journal size, a time), matched as a
whole.
"""

from __future__ import annotations

import re
from typing import Any

Expected = str | re.Pattern[str]
Step = tuple[str, dict[str, Any], Expected, bool]
OK, ERR = False, True

HOLES = {
    "dir": r"(/|postgresql).+",
    "bytes": r"[1-9][0-9]*",
    "time": r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z",
}
"""What a template's ``<dir>``, ``<bytes>`` and ``<time>`` stand for: an absolute
path (or, for memories kept in PostgreSQL, the database, space and memory),
a positive size and an ISO-8601 UTC time to the second."""


def template(text: str) -> re.Pattern[str]:
    """``text`` as a pattern: literal except its ``<dir>``, ``<bytes>`` and ``<time>``."""
    pattern = re.escape(text)
    for hole, value in HOLES.items():
        pattern = pattern.replace(re.escape(f"<{hole}>"), value)
    return re.compile(pattern)


def matches(expected: Expected, text: str) -> bool:
    """Whether ``text`` is ``expected`` (a template matches the whole text)."""
    if isinstance(expected, re.Pattern):
        return expected.fullmatch(text) is not None
    return text == expected


INVALID = "InvalidArguments"
"""The answer to arguments that the tool's schema refuses."""
DEFAULT = 2 << 32
"""Handles of the default memory in a fresh project (its id is 2)."""


PROVING = frozenset({"explain_why", "trace_dependency", "argue"})
"""The tools that prove goals (``Engine.explain``, ``tabled_answers``): they
need the ``reasoning`` capability, as ``query`` does with its justification."""


def proves(step: Step) -> bool:
    """Whether ``step`` needs the engine's ``reasoning``: a proving tool, or a
    ``query`` that asks for its justification.  Such a step reads and
    changes nothing, so a walk may leave it out."""
    tool, arguments, _, _ = step
    return tool in PROVING or (tool == "query" and arguments.get("include_justification") is True)


def answerable(steps: list[Step], capabilities: frozenset[str]) -> list[Step]:
    """The steps of ``steps`` an engine of ``capabilities`` can answer: all
    of them, or without the proving steps when it lacks ``reasoning``."""
    return steps if "reasoning" in capabilities else [s for s in steps if not proves(s)]
