"""The walks of the spec's examples, and the answer each tool documents."""

from __future__ import annotations

import re
from typing import Any

from zpm_contract.scenarios.argue import ARGUE_EXAMPLES
from zpm_contract.scenarios.assumptions import TMS_EXAMPLES
from zpm_contract.scenarios.forks import FORK_EXAMPLES
from zpm_contract.scenarios.history import HISTORY_EXAMPLES
from zpm_contract.scenarios.knowledge import SPEC_EXAMPLES
from zpm_contract.scenarios.memories import MEMORY_EXAMPLES
from zpm_contract.scenarios.reasoning import REASONING_EXAMPLES
from zpm_contract.scenarios.recall import RECALL_EXAMPLES
from zpm_contract.scenarios.refactoring import REFACTOR_EXAMPLES, REFACTOR_MEMORY_EXAMPLES
from zpm_contract.scenarios.snapshots import OVERVIEW_EXAMPLE, SNAPSHOT_EXAMPLES
from zpm_contract.scenarios.steps import HOLES, Expected, Step
from zpm_contract.scenarios.verbs import VERB_EXAMPLES

SPEC_WALK: dict[str, list[Step]] = {
    "knowledge": SPEC_EXAMPLES,
    "snapshots": SNAPSHOT_EXAMPLES,
    "memories": MEMORY_EXAMPLES,
    "assumptions": TMS_EXAMPLES,
    "overview": OVERVIEW_EXAMPLE,
    "references and rename": REFACTOR_EXAMPLES,
    "cross-memory references and rename": REFACTOR_MEMORY_EXAMPLES,
    "reasoning": REASONING_EXAMPLES,
    "verbs": VERB_EXAMPLES,
    "argue": ARGUE_EXAMPLES,
    "forks": FORK_EXAMPLES,
    "recall": RECALL_EXAMPLES,
    "history": HISTORY_EXAMPLES,
}
"""The walks of the spec's examples that the contract tests run on every engine,
each in a fresh project (``test_spec_walk_covers_every_tool`` checks that
together they give every tool a documented answer)."""


def documented_examples() -> dict[str, tuple[dict[str, Any], str]]:
    """For each tool, its first successful call in the spec walks and the answer
    the spec documents (a template shows its holes as ``<dir>``, ``<bytes>``,
    ``<time>``): the examples of ``docs/tools.md``."""
    found: dict[str, tuple[dict[str, Any], str]] = {}
    for steps in SPEC_WALK.values():
        for name, arguments, expected, is_error in steps:
            if is_error or name in found:
                continue
            found[name] = (arguments, _shown(expected))
    return found


def _shown(expected: Expected) -> str:
    if isinstance(expected, str):
        return expected
    text = expected.pattern
    for hole, value in HOLES.items():
        text = text.replace(value, f"<{hole}>")
    return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL)
