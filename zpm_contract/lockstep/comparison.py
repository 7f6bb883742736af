"""How the engines' answers are compared: a call described, and the
machine-specific parts of an answer masked.

Three parts of an answer are machine-specific and masked before comparing
(``MASKS``): the ``dir:`` line of ``get_persistence_status``, the
``latest_at`` time of ``get_kb_overview`` and, in any answer, the project
folder of a knowledge file that an error names (``KNOWLEDGE_FILE``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from zpm_contract.server import ToolOutcome

MASKS: dict[str, Callable[[str], str]] = {
    "get_persistence_status": lambda text: re.sub(r"(?m)^dir: .*$", "dir: <dir>", text),
    "get_kb_overview": lambda text: re.sub(r'"latest_at":"[^"]*"', '"latest_at":"<t>"', text),
}
"""Machine-specific parts of answers (a project's path, a file's mtime)."""
KNOWLEDGE_FILE = re.compile(
    r"knowledge file (?:/\S+/\.zpm/|postgresql://\S+ space \S+ memory \S+, )"
)
"""A knowledge file named in an error (its project's folder, or its space in
a database, differs per engine)."""


def describe(tool: str, arguments: dict[str, Any]) -> str:
    """The call as a failure and the calls of a case show it: the tool, its arguments as JSON."""
    return f"{tool} {json.dumps(arguments, ensure_ascii=False)}"


def masked(tool: str, outcome: ToolOutcome) -> ToolOutcome:
    """``outcome`` with the machine-specific parts of ``tool``'s answer masked."""
    mask = MASKS.get(tool)
    text = outcome.text if mask is None else mask(outcome.text)
    text = KNOWLEDGE_FILE.sub("knowledge file <zpm>/", text)
    notes = tuple(KNOWLEDGE_FILE.sub("knowledge file <zpm>/", note) for note in outcome.notes)
    return ToolOutcome(text, outcome.is_error, notes)
