"""The lockstep machine's rules, one mixin class per feature.

Each module holds the rules of one group of tools (``knowledge``, ``verbs``,
``changes``, ``reads``, ``beliefs``, ``renames``, ``recall``, ``history``,
``reasoning``, ``memories``, ``forks``, ``snapshots``, ``restarts``); each
class builds on ``zpm_contract.lockstep.case.LockstepCase`` (the servers of a
case, the one way a call is made, and what the case knows), and
``zpm_contract.lockstep.machine.LockstepMachine`` combines them all with the
checks into the one state machine.

Generated calls: series of facts of one predicate whose first arguments
repeat and interleave (one opens every case; then perhaps the repeated fact
or the middle one is withdrawn, or a rule joins the facts and the predicate
is renamed), facts (bundle ``facts``), rules beside facts (``calls.clauses.FACT_RULES``),
facts that keep variables
(stored by every tool that stores facts, so their notes are compared),
rules with recursion (``reach/2`` over acyclic ``link/2``), negation,
disjunction and aggregation over known predicates (bundle ``predicates``),
queries with findall/between/arithmetic/atoms, reflection (current_predicate,
predicate_property), setup_call_cleanup, subsumes_term and unifiable over
known predicates, queries over cyclic and finite terms (``calls.goals.term_goals``),
goals at the limits (``calls.goals.LIMIT_GOALS``: integers near the integer limit, the
memory budget, the answers' size, cyclic answers, through query_logic and
explain_why), forget/clear/update/upsert of known facts,
assumptions shared between facts (stored plainly or not), belief status,
justifications and retractions by name and by glob, the verb tools (assert,
``query`` with justifications, unassert by fact and pattern, unassert-handle
of handles that ``matching`` found and of unknown ones, bounded ``matching``
with pages and ``asserted_only``; every server tells the same time, so
provenance agrees), facts that a functional predicate's knowledge defeats
(``capital/2``, declared in a knowledge file of every project),
references (one memory,
``__all__``) and renames (with and without a dry run and propagation,
collisions included), predicate descriptions (of known predicates and of
predicates without clauses) and keyword searches in pages, the history
(whole, of a predicate, of a handle, by client and tool, from and until the
cursors earlier answers gave or a time, paged and as a feed), moments remembered
with what reads of one memory answered there (schema, assumptions, a search, a
listing) and asked again ``as_of`` their cursor later, across every change and
restart, and again plainly after a revert to their cursor (``WrongPast`` when
one answers otherwise), diffs between moments, the schema, and
bad input (syntax errors, unknown arguments, wrong JSON types, sandbox
violations, names that try to leave their folder).  Each knowledge call may
carry a ``memory`` argument; rule bodies and queries may call ``m:G`` in
another memory.  Memories ``alpha`` and ``beta`` are created in either
scope, mounted read-write or read-only, unmounted and deleted (``alpha`` is
created and mounted at the start of each case); forks ``fork_a`` and
``fork_b`` are made of any of them, written in, merged (after the same fact
was changed in a fork and in its base, so merges meet conflicts, won by
either side for all or per handle) and deleted; snapshots from a small pool
(names with ``-``, an inner dot, and two that differ only in case) are saved,
restored and listed in any mounted memory; the overview and the
persistence status are compared, and ``echo`` echoes.  In three cases of four
(and now and then in others) every server is stopped — all the same way, by
closing stdin or by SIGKILL — and started again on the same project: what
every mounted memory answered before must be answered after
(``LostOnRestart`` otherwise).
Rules ``rK`` only call facts, ``reach`` and rules ``rJ`` with ``J < K`` of
their own memory, and facts of another memory (``alpha:p(V0)``), so no
generated program loops until a rename gives a predicate the name of one it
calls (a check then leaves out, for the rest of the case, a predicate whose
listing ran out of its budget: ``runaway``).  The reasoning tools: ``path/2`` is defined over
``likes/2`` (often cyclic) in one of ``calls.reasoning.PATH_RULES``' shapes and traced
from random nodes; explain_why proves goals of the known predicates and
stored facts (never ``path/2``: a failing search of a dense cyclic graph may
take longer than the time limit on one engine only), with and without
``max_depth``; verify_consistency runs over ``calls.reasoning.VIOLATION_RULES``, with
and without a scope.
"""
