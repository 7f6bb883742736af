"""The knowledge tools: remember, define, forget, clear, update, upsert.

Each method returns the tool's success text or raises a ``ZpmError`` whose
message is the error text.  Texts echo the canonical rendering of the parsed
input, with the caller's variable names (architecture §8.16).  A stored fact
that keeps a variable written with a capital letter gets a note
(``fact_notes``).
"""

from __future__ import annotations

from typing import Annotated

from zpm_domain.changes.assumptions import SupportPlainly
from zpm_domain.changes.mutations import AddClause, Mutation, RemoveAll, RemoveClause
from zpm_domain.errors import InvalidClause, NoMatchingClause
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Struct, Term, Var
from zpm_domain.prolog.terms import variables as variables_of
from zpm_domain.prolog.unify import substitute, walk
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause
from zpm_domain.tools.definition import (
    CHANGE,
    CHANGE_IDEMPOTENT,
    Arg,
    MemoryArg,
    Noted,
    ToolGroup,
    noted,
    tool,
)
from zpm_domain.tools.fact_notes import open_variables_note, variables_note
from zpm_domain.tools.inputs import (
    check_body,
    is_clause_syntax,
    parse_fact,
    parse_term,
    require_callable,
)


class KnowledgeTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        CHANGE,
        "Assert a Prolog fact into the knowledge base. The fact is written to the memory's "
        "journal before the call returns, so it survives restarts and crashes.",
    )
    def remember_fact(
        self,
        fact: Annotated[str, Arg('A Prolog fact to assert (e.g. "human(socrates)")')],
        memory: MemoryArg = None,
    ) -> str | Noted:
        """The spec's text, with notes: a fact that keeps a variable written
        with a capital letter (``fact_notes``); a fact that a functional
        predicate's knowledge defeats on arrival is stored and not believed
        (``zpm_domain.beliefs.defeat``)."""
        term = parse_fact(fact, "fact", hint=" (use define_rule to add rules)")
        kb = self._memories.resolve(memory)
        with kb.writing():
            committed = kb.commit([store_plainly(kb, term)])
        (done,) = committed
        defeated = None
        if isinstance(done, AddClause) and (defeat := kb.defeat_of(done.clause)) is not None:
            defeated = defeat.note()
        text = f"Asserted: {render(term)}"
        return noted(text, variables_note(term), defeated, *committed.notes())

    @tool(
        CHANGE,
        "Assert a Prolog rule into the knowledge base. Constructs a rule from head and body "
        "(`Head :- Body`), validates syntax (including balanced parentheses), and inserts "
        "via `assertz/1`.",
    )
    def define_rule(
        self,
        head: Annotated[str, Arg('The rule head (e.g. "mortal(X)")')],
        body: Annotated[str, Arg('The rule body (e.g. "human(X)")')],
        memory: MemoryArg = None,
    ) -> str | Noted:
        variables: dict[str, Var] = {}
        head_term = parse_term(head, "rule", variables)
        body_term = parse_term(body, "rule", variables)
        if is_clause_syntax(head_term):
            raise InvalidClause("Invalid rule head: it must not contain rule syntax")
        require_callable(head_term, "Rule head")
        check_body(body_term)
        check_goal(body_term)
        kb = self._memories.resolve(memory)
        with kb.writing():
            committed = kb.commit([AddClause(Clause(head_term, body_term))])
        text = f"Asserted rule: {render(Struct(':-', (head_term, body_term)))}"
        return noted(text, *committed.notes())

    @tool(
        CHANGE,
        "Remove a single fact from the knowledge base by retracting the first matching "
        "clause. Uses Prolog's `retract/1` semantics — when multiple identical facts exist, "
        "only one is removed per call.",
    )
    def forget_fact(
        self,
        fact: Annotated[str, Arg('A Prolog fact to retract (e.g. "human(socrates)")')],
        memory: MemoryArg = None,
    ) -> str | Noted:
        term = parse_fact(fact, "fact")
        kb = self._memories.resolve(memory)
        with kb.writing():
            kb.check_mutable(term)
            match = kb.first_fact(term)
            if match is None:
                raise NoMatchingClause(f"No matching clause found for: {render(term)}")
            committed = kb.commit([RemoveClause(match[0])])
        return noted(f"Retracted: {render(term)}", *committed.notes())

    @tool(
        CHANGE_IDEMPOTENT,
        "Remove all facts from the knowledge base matching a given category or pattern. "
        "Uses Prolog's `retractall/1` semantics — clears all clauses matching the pattern "
        "in a single operation. The tool always succeeds, even when no matching facts "
        "exist (idempotent behavior).",
    )
    def clear_context(
        self,
        category: Annotated[
            str,
            Arg(
                "A Prolog pattern to match facts for bulk deletion "
                '(e.g. "project(beta, _)", "role(_, _)")'
            ),
        ],
        memory: MemoryArg = None,
    ) -> str | Noted:
        pattern = parse_term(category, "category")
        require_callable(pattern, "category")
        kb = self._memories.resolve(memory)
        with kb.writing():
            kb.check_mutable(pattern)
            notes = kb.commit([RemoveAll(pattern)]).notes() if kb.holds_stored_head(pattern) else []
        return noted(f"Cleared all facts matching: {render(pattern)}", *notes)

    @tool(
        CHANGE,
        "Atomically replace an existing Prolog fact in the knowledge base (retract "
        "old_fact, assert new_fact). Returns an error if old_fact is not found, leaving the "
        "knowledge base unchanged.",
    )
    def update_fact(
        self,
        old_fact: Annotated[
            str, Arg('The existing Prolog fact to retract (e.g. "server(alpha, \\"1.0\\")")')
        ],
        new_fact: Annotated[
            str,
            Arg('The new Prolog fact to assert in its place (e.g. "server(alpha, \\"2.0\\")")'),
        ],
        memory: MemoryArg = None,
    ) -> str | Noted:
        """Replace the first fact unifying with ``old_fact`` by ``new_fact``.

        The two share variables: ``update_fact("age(bob, A)", "age(robert, A)")``
        carries ``A`` over.  Atomic: one journal batch.  A variable of
        ``new_fact`` that the replaced fact leaves unbound gets a note.
        """
        variables: dict[str, Var] = {}
        old = parse_fact(old_fact, "old_fact", variables)
        new = parse_fact(new_fact, "new_fact", variables)
        kb = self._memories.resolve(memory)
        with kb.writing():
            kb.check_mutable(old)
            kb.check_mutable(new)
            match = kb.first_fact(old)
            if match is None:
                raise NoMatchingClause(f"No matching clause for: {render(old)}")
            clause, bindings = match
            replacement = substitute(new, bindings)
            committed = kb.commit([RemoveClause(clause), store_plainly(kb, replacement)])
        still_open = [v for v in variables_of(new) if isinstance(walk(v, bindings), Var)]
        text = f"Updated: {render(old)} -> {render(new)}"
        return noted(text, open_variables_note(still_open), *committed.notes())

    @tool(
        CHANGE_IDEMPOTENT,
        "Insert or replace a Prolog fact in the knowledge base. Retracts all existing "
        "clauses matching the same functor and first argument, then asserts the new fact. "
        "Succeeds even if no prior fact exists.",
    )
    def upsert_fact(
        self,
        fact: Annotated[str, Arg('A Prolog fact to insert or replace (e.g. "deploy(prod, v2)")')],
        memory: MemoryArg = None,
    ) -> str | Noted:
        """Remove every clause with the same functor and first argument, then assert."""
        term = parse_fact(fact, "fact")
        kb = self._memories.resolve(memory)
        pattern = _upsert_pattern(term)
        with kb.writing():
            kb.check_mutable(term)
            mutations: list[Mutation] = []
            if kb.holds_stored_head(pattern):
                mutations.append(RemoveAll(pattern))
            mutations.append(store_plainly(kb, term))
            committed = kb.commit(mutations)
        return noted(f"Upserted: {render(term)}", variables_note(term), *committed.notes())


def store_plainly(memory: Memory, fact: Term) -> Mutation:
    """The mutation that stores ``fact`` plainly: a ``plain`` support for a fact
    that assumptions alone hold (no copy), else a new clause at the end."""
    support = memory.support(fact)
    if support is not None and not support.plain:
        return SupportPlainly(fact)
    return AddClause(Clause(fact))


def _upsert_pattern(fact: Term) -> Term:
    """Same functor, same first argument, fresh variables elsewhere."""
    if not isinstance(fact, Struct) or len(fact.args) == 1:
        return fact
    rest = tuple(Var("_") for _ in fact.args[1:])
    return Struct(fact.name, (fact.args[0], *rest))
