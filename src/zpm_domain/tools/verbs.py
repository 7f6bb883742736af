"""The verb tools of spec/verbs.md: assert, unassert, unassert-handle, query, matching.

They work on clauses by identity: every clause a memory holds has a handle
(``zpm_domain.stored.handles``) and a provenance.  ``assert`` stores a fact once
(a variant already held is answered with its handle); the two withdrawal
tools take client-stored clauses out of belief and keep a record of it
(``zpm_domain.beliefs.withdrawals``); ``matching`` reads stored facts without
inference, bounded before it reads: it stops at the ``limit + 1``-th
candidate.  Knowledge-file clauses are monotonic: they match, and nothing
withdraws them.  ``query`` answers as ``query_logic`` does, each answer with
its bindings as Prolog text and, when asked, its justification: the first
proof of the instantiated goal, each node naming the handle of the clause
that proved it.

Each tool answers compact JSON, and the same object as structured content.
``context`` names the memory (omitted: the default memory).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, cast

from zpm_domain.analysis.justification import Justifier
from zpm_domain.changes.mutations import AddClause, Mutation
from zpm_domain.changes.withdraw import Withdraw
from zpm_domain.errors import (
    InvalidArguments,
    InvalidClause,
    LimitExceeded,
    MonotonicKnowledge,
    StrengthCapped,
)
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.ports.proofs import (
    ProofNode,
    encode_tree,
    flat_nodes,
)
from zpm_domain.prolog.allowlist import is_protected
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator, variables
from zpm_domain.prolog.unify import substitute, unify
from zpm_domain.prolog.writer import Renderer, render
from zpm_domain.stored.clauses import Clause
from zpm_domain.stored.handles import is_handle
from zpm_domain.stored.provenance import UNKNOWN
from zpm_domain.tools import verb_outputs
from zpm_domain.tools.answers import reported_variables
from zpm_domain.tools.definition import (
    ADD_IDEMPOTENT,
    CHANGE_IDEMPOTENT,
    QUERY,
    VERBS,
    Arg,
    Reply,
    ToolGroup,
    tool,
)
from zpm_domain.tools.fact_notes import variables_note
from zpm_domain.tools.inputs import is_clause_syntax, parse_term
from zpm_domain.tools.jsontext import dumps
from zpm_domain.tools.moments import AsOfArg, reading
from zpm_domain.tools.verb_outputs import (
    Asserted,
    HandledProof,
    JustificationNode,
    MatchingRow,
    VerbAnswer,
)

ContextArg = Annotated[
    str | None, Arg("The memory to use (optional, defaults to the default memory)")
]
MAX_LIMIT = 1000
DEFAULT_LIMIT = 100


class VerbTools(ToolGroup):
    toolset = VERBS

    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        ADD_IDEMPOTENT,
        "Store a fact once and return its handle, a number that names the stored clause for "
        "good. If a variant of the fact is already stored, nothing is added and its handle "
        "comes back with already_there true.",
        name="assert",
        details="Knowledge from clients is defeasible: strength is capped at default. A fact "
        "that keeps a variable written with a capital letter gets a note (a second text item) "
        "naming it.",
    )
    def assert_(
        self,
        sentence: Annotated[str, Arg('The fact to assert (e.g. "dog(muffet)")')],
        context: ContextArg = None,
        strength: Annotated[
            str | None, Arg('The strength of the belief: only "default" is accepted')
        ] = None,
    ) -> Reply[verb_outputs.Asserted]:
        if strength is not None and strength != "default":
            raise StrengthCapped()
        fact = _fact(sentence)
        note = variables_note(fact)
        kb = self._memories.resolve(context)
        with kb.writing():
            held = kb.find_variant(fact)
            if held is not None:
                assert held.handle is not None  # every clause a memory holds has one
                return Reply.of(Asserted(handle=held.handle, already_there=True)).with_notes(note)
            committed = kb.commit([AddClause(Clause(fact))])
        (added,) = committed
        assert isinstance(added, AddClause) and added.clause.handle is not None
        reply = Reply.of(Asserted(handle=added.clause.handle, already_there=False))
        return reply.with_notes(note, *committed.notes())

    @tool(
        CHANGE_IDEMPOTENT,
        "Withdraw every believed fact that unifies with the sentence (a fact or a pattern), in "
        "one change. Returns the handles of the withdrawal records ([] when nothing matched); "
        "knowledge-file facts cannot be withdrawn.",
        details="A fact is withdrawn whatever supports it (a plain assertion, assumptions). "
        "Each withdrawal is recorded with its own handle and kept in the memory's history. "
        "Knowledge-file facts are monotonic: if one matches, nothing is withdrawn.",
    )
    def unassert(
        self,
        sentence: Annotated[str, Arg('The fact or pattern to withdraw (e.g. "dog(X)")')],
        context: ContextArg = None,
    ) -> Reply[verb_outputs.ExceptingHandles]:
        pattern = _fact(sentence)
        key = indicator(pattern)
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        kb = self._memories.resolve(context)
        with kb.writing():
            monotonic = kb.file_fact_unifying(pattern)
            if monotonic is not None:
                raise _monotonic(monotonic)
            done = kb.commit([Withdraw(clause) for clause in kb.stored_facts_unifying(pattern)])
        records = [_record(m) for m in done]
        found: verb_outputs.ExceptingHandles = {"excepting_handles": records}
        return Reply.of(found).with_notes(*done.notes())

    @tool(
        CHANGE_IDEMPOTENT,
        "Withdraw exactly the clause (fact or rule) with this handle. Returns the handle of "
        "the withdrawal record, or null when the memory holds no such clause; knowledge-file "
        "clauses cannot be withdrawn.",
        name="unassert-handle",
        details="null means the handle is unknown or its clause already withdrawn. The "
        "withdrawal is kept in the memory's history with its own handle.",
    )
    def unassert_handle(
        self,
        sentex_handle: Annotated[int, Arg("The handle of the clause to withdraw")],
        context: ContextArg = None,
    ) -> Reply[verb_outputs.ExceptingHandle]:
        if not is_handle(sentex_handle):
            raise InvalidArguments(
                f"sentex_handle must be a clause handle: a positive integer below 2^53, "
                f"not {sentex_handle}"
            )
        kb = self._memories.resolve(context)
        with kb.writing():
            found = kb.file_clause_with(sentex_handle)
            if found is not None:
                raise _monotonic(found[0])
            clause = kb.stored_with(sentex_handle)
            if clause is None:
                return Reply.of({"excepting_handle": None})
            committed = kb.commit([Withdraw(clause)])
        (done,) = committed
        assert isinstance(done, Withdraw)
        withdrawn: verb_outputs.ExceptingHandle = {"excepting_handle": done.record}
        return Reply.of(withdrawn).with_notes(*committed.notes())

    @tool(
        QUERY,
        "Run a Prolog goal as query_logic does (at most 100 answers; truncated says whether "
        "the limit cut them), bindings as Prolog text; with include_justification, each "
        "answer's proof, naming the handles of the clauses it used.",
        details="Answers come in the order and under the limits of query_logic. A "
        "justification is the first proof of the answer's instantiated goal; null when none "
        "is found within the limits.",
    )
    def query(
        self,
        goal: Annotated[str, Arg('A Prolog goal (e.g. "dog(X)")')],
        context: ContextArg = None,
        include_justification: Annotated[
            bool | None, Arg("Also return each answer's first proof (default false)")
        ] = None,
        as_of: AsOfArg = None,
    ) -> Reply[verb_outputs.VerbQuery]:
        names: dict[str, Var] = {}
        term = parse_term(goal, "goal", names)
        check_goal(term)
        kb = reading(self._memories, context, as_of)
        self._memories.sync_all()
        limits = self.context.limits
        solutions = kb.first_solutions(term, limits)
        shown = reported_variables(variables(term))
        renderer = Renderer()
        texts: list[str] = []
        answers: list[VerbAnswer] = []
        for solution in solutions:
            bindings = {v.name or "": renderer.render(solution[v]) for v in shown}
            tree = None
            if include_justification:
                bound = {id(var): (var, value) for var, value in solution.items()}
                tree = self._justification(kb, substitute(term, bound), renderer)
            answers.append(
                {
                    "bindings": bindings,
                    "justification": None if tree is None else _handled(flat_nodes(tree)),
                }
            )
            shown_tree = "null" if tree is None else encode_tree(tree)
            texts.append(f'{{"bindings":{dumps(bindings)},"justification":{shown_tree}}}')
        truncated = len(answers) >= limits.max_solutions
        text = f'{{"answers":[{",".join(texts)}],"truncated":{dumps(truncated)}}}'
        return Reply(text, {"answers": answers, "truncated": truncated})

    def _justification(self, kb: Memory, goal: Term, renderer: Renderer) -> ProofNode | None:
        """The first proof of ``goal`` with handles, ``None`` when none is
        found within the limits (the answer itself was found within them)."""
        try:
            return Justifier(self._memories, self.context.limits).first_proof(kb, goal, renderer)
        except LimitExceeded:
            return None

    @tool(
        QUERY,
        "List the stored facts that unify with a pattern, in clause order, with handles and "
        "provenance; no rules run. At most limit facts are examined; truncated says more "
        "exist and after_handle continues after a row.",
        details="A literal match of believed facts: no rules run. Bounded before it reads: at "
        "most limit facts (default 100, at most 1000) are examined. asserted_only keeps the "
        "facts asserted plainly (not held only by assumptions).",
    )
    def matching(
        self,
        pattern: Annotated[str, Arg('One callable term to match (e.g. "likes(X, bacon)")')],
        context: ContextArg = None,
        asserted_only: Annotated[
            bool | None, Arg("Keep only facts asserted plainly (default false)")
        ] = None,
        limit: Annotated[
            int | None, Arg("How many candidate facts to examine, 1 to 1000 (default 100)")
        ] = None,
        after_handle: Annotated[
            int | None, Arg("Continue after the fact with this handle (the last row's)")
        ] = None,
        as_of: AsOfArg = None,
    ) -> Reply[verb_outputs.Matching]:
        term = parse_term(pattern, "pattern")
        _check_pattern(term, pattern)
        bound = DEFAULT_LIMIT if limit is None else limit
        if not 1 <= bound <= MAX_LIMIT:
            raise InvalidArguments(f"limit must be from 1 to {MAX_LIMIT}, not {bound}")
        kb = reading(self._memories, context, as_of)
        kb.sync()
        candidates: list[Clause] = []
        for clause in _candidates(kb, term, after_handle):
            candidates.append(clause)
            if len(candidates) > bound:
                break
        renderer = Renderer()
        rows: list[MatchingRow] = []
        for clause in candidates[:bound]:
            support = kb.support_of(clause)
            asserted = support is None or support.plain
            if asserted_only and not asserted:
                continue
            provenance = (clause.provenance or UNKNOWN).as_json(
                support.assumptions if support else ()
            )
            rows.append(
                {
                    "sentence": renderer.render(clause.head),
                    "context": kb.name,
                    "handle": _handle(clause),
                    "asserted": asserted,
                    "provenance": cast(verb_outputs.Provenance, provenance),
                }
            )
        truncated = len(candidates) > bound
        return Reply.of({"rows": rows, "count": len(rows), "truncated": truncated})


def _fact(sentence: str) -> Term:
    """A sentence: a fact (an atom or a compound term), not a rule or a variable."""
    term = parse_term(sentence, "sentence")
    if is_clause_syntax(term) or not isinstance(term, (Atom, Struct)):
        raise InvalidClause("sentence must be a fact (use define_rule to add rules)")
    return term


def _handle(clause: Clause) -> int:
    """The handle of a clause a memory holds (every one has one)."""
    assert clause.handle is not None
    return clause.handle


def _record(withdrawn: Mutation) -> int:
    """The handle of the record a committed withdrawal made."""
    assert isinstance(withdrawn, Withdraw) and withdrawn.record is not None
    return withdrawn.record


def _handled(nodes: list[dict[str, Any]]) -> HandledProof:
    """A proof's flat nodes (``ports.proofs.flat_nodes``) as the verbs' shape."""
    return {"nodes": cast(list[JustificationNode], nodes)}


def _monotonic(clause: Clause) -> MonotonicKnowledge:
    provenance = clause.provenance or UNKNOWN
    return MonotonicKnowledge(render(clause.head), f"{provenance.file}:{provenance.line}")


def _check_pattern(term: Term, text: str) -> None:
    if not isinstance(term, (Atom, Struct)) or is_clause_syntax(term):
        raise InvalidClause(
            f"matching needs one callable term as its pattern, not {text.strip()!r}"
        )
    if is_protected(*indicator(term)):
        name, arity = indicator(term)
        raise InvalidClause(
            f"matching reads stored facts: {name}/{arity} is a built-in or a control "
            "construct, not a stored predicate"
        )


def _candidates(kb: Memory, pattern: Term, after_handle: int | None) -> Iterator[Clause]:
    """The facts of ``kb`` that unify with ``pattern``, in clause order,
    after the fact with ``after_handle`` when given; read lazily, so the
    caller pays for the clauses up to the last candidate it takes."""
    clauses = kb.iter_clauses(*indicator(pattern))
    if after_handle is not None and not any(c.handle == after_handle for c in clauses):
        name, arity = indicator(pattern)
        raise InvalidArguments(
            f"after_handle {after_handle} is not a fact of {name}/{arity} in memory {kb.name}"
        )
    for clause in clauses:
        if clause.is_fact and unify(pattern, clause.head) is not None:
            yield clause
