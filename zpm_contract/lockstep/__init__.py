"""Differential testing: random tool-call sequences applied to several engines in lockstep.

``machine.lockstep_machine(targets)`` returns a ``RuleBasedStateMachine``
class, ``machine.LockstepMachine`` bound to the targets.  Each test case
starts one ``zpm serve`` per target (``case``: each in its own temporary
project, with its own ``XDG_DATA_HOME`` for global memories; a target whose
memories are in a database runs as two servers of one space, ``Replicas``,
each call going to one of them at random), sends every
generated call to all of them and requires the same result text, the same
further text items (hints and notes) and ``isError`` from each; a difference
raises ``failures.Divergence``, whose message names the step, the call and
the engines that disagree (with their answers), then lists every call of the
test case up to it, so the sequence can be replayed even when Hypothesis
cannot shrink it (an engine that is not deterministic).
Three parts of an answer are machine-specific and masked before comparing
(``comparison``).
After every step that may have changed memories (a call that succeeded, of
a tool not annotated read-only) the invariant (``checks``) compares, in each
of them, ``get_knowledge_schema``, ``list_assumptions`` (once the case has
made an assumption) and the answers of every predicate that was given
clauses, across engines the same way; after a
removal, the predicate's whole listing (``matching``, handles included) too.
A failure can be replayed (``replay``): ``replay(machine, calls)`` and
``shortest_reproduction`` (the calls of a divergence, left out chunk by
chunk while it still diverges).  ``hunt`` runs a machine for a bug known to
be there, and ends the run at the first divergence or loss on restart.

Rules have weights, and each case also tours every rule once
(``zpm_contract.rule_schedule``); the machine counts, over a run, the calls
of every tool made by rules, those made by checks, the runs of every rule
and the restarts (``coverage``, a ``zpm_contract.coverage.Coverage`` per
``lockstep_machine``), and the test compares them with its profile's
minimums.  Every tool of the catalogue has a rule that calls it.

The rules are in ``rules``, one mixin per feature (its docstring tells
which calls they generate); the strategies of their arguments are in
``zpm_contract.calls``.
"""
