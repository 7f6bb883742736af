"""The lockstep state machine: the rules of every feature and the checks, over
the servers of a case, and a machine bound to its targets."""

from __future__ import annotations

from collections.abc import Sequence

from zpm_contract.coverage import Coverage
from zpm_contract.lockstep.checks import StateChecks
from zpm_contract.lockstep.rules.beliefs import BeliefRules
from zpm_contract.lockstep.rules.changes import ChangeRules
from zpm_contract.lockstep.rules.forks import ForkRules
from zpm_contract.lockstep.rules.history import HistoryRules
from zpm_contract.lockstep.rules.knowledge import KnowledgeRules
from zpm_contract.lockstep.rules.memories import MemoryRules
from zpm_contract.lockstep.rules.reads import ReadRules
from zpm_contract.lockstep.rules.reasoning import ReasoningRules
from zpm_contract.lockstep.rules.recall import RecallRules
from zpm_contract.lockstep.rules.renames import RenameRules
from zpm_contract.lockstep.rules.restarts import RestartRules
from zpm_contract.lockstep.rules.snapshots import SnapshotRules
from zpm_contract.lockstep.rules.verbs import VerbRules
from zpm_contract.rule_schedule import ScheduledMachine, with_weights
from zpm_contract.scenarios.steps import PROVING
from zpm_contract.targets import EngineTarget


@with_weights
class LockstepMachine(
    KnowledgeRules,
    VerbRules,
    ChangeRules,
    ReadRules,
    BeliefRules,
    RenameRules,
    RecallRules,
    HistoryRules,
    ReasoningRules,
    MemoryRules,
    ForkRules,
    SnapshotRules,
    RestartRules,
    StateChecks,
    ScheduledMachine,
):
    """The state machine: every rule and check, over the servers of a case
    (``LockstepCase``).  The tour takes the rules in the order of these bases
    (``rule_schedule.rule_specs``)."""


def lockstep_machine(targets: list[EngineTarget]) -> type[LockstepMachine]:
    """A ``LockstepMachine`` subclass bound to ``targets`` (labels must
    differ), with a ``coverage`` of its own: what its runs exercised."""
    labels = [t.label for t in targets]
    assert len(set(labels)) == len(labels), f"duplicate engine labels: {labels}"
    return type(
        "Lockstep_" + "_".join(labels),
        (LockstepMachine,),
        {"targets": tuple(targets), "coverage": Coverage()},
    )


REASONING_TOOLS = PROVING
"""The tools the machine calls only when every target has ``reasoning``."""


def excused_tools(targets: Sequence[EngineTarget]) -> frozenset[str]:
    """The tools of the catalogue that a run on ``targets`` need not call:
    those that need a capability one of them lacks."""
    reasoning = all("reasoning" in target.capabilities for target in targets)
    return frozenset() if reasoning else REASONING_TOOLS
