"""The verb ``argue``: the four-valued status of a closed goal, with the case for and against.

*For* is the goal's first proof.  *Against* is, for one goal, the first
proof of its denial ``neg(Goal)`` (kind ``inference``), else, when the goal
is a stored fact that a functional predicate's knowledge defeats
(``zpm_domain.beliefs.defeat``), the defeat (kind ``defeat``): the loser, the
knowledge-file facts that win and the rule that makes them win.  A
conjunction's against side is that of its first conjunct that has one,
under a ``conjunction`` node.  The verdict follows: ``true`` (for only),
``false`` (against only), ``both`` (a contradiction to resolve), ``unknown``.

A goal qualified with a memory (``m:G``) is argued in that memory: its
denial is ``m:neg(G)`` and its defeat is decided by ``m``'s knowledge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, cast

from zpm_domain.analysis.justification import Justifier, unqualified
from zpm_domain.constraints.functional import constraint_text
from zpm_domain.errors import InvalidClause
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.ports.proofs import ProofNode, encode_tree, flat_nodes
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Atom, Struct, Term, indicator, terms_equal, variables
from zpm_domain.prolog.writer import Renderer, render
from zpm_domain.stored.clauses import DENIALS, Clause
from zpm_domain.tools import verb_outputs
from zpm_domain.tools.definition import QUERY, VERBS, Arg, Reply, ToolGroup, tool
from zpm_domain.tools.inputs import parse_term
from zpm_domain.tools.jsontext import dumps
from zpm_domain.tools.moments import AsOfArg, reading

CONJUNCTION = "conjunction"
"""The ``rule_applied`` of the node that carries a conjunction's against side."""


@dataclass(frozen=True, slots=True)
class DefeatReport:
    """Why a stored fact is not believed: the ``defeat`` against side."""

    loser: dict[str, Any]
    winners: list[dict[str, Any]]
    placed_in: list[str]
    kind = "defeat"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "loser": self.loser,
            "winners": self.winners,
            "placed_in": self.placed_in,
        }


@dataclass(frozen=True, slots=True)
class ConflictReport:
    """A stored fact of a functional predicate and the stored facts it
    conflicts with (``zpm_domain.constraints``): the ``conflict`` against side."""

    fact: dict[str, Any]
    conflicting: list[dict[str, Any]]
    placed_in: list[str]
    kind = "conflict"

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "fact": self.fact,
            "conflicting": self.conflicting,
            "placed_in": self.placed_in,
        }


Report = DefeatReport | ConflictReport
Against = ProofNode | Report
"""One goal's against side: the proof of its denial, its defeat or its conflict."""


@dataclass(frozen=True, slots=True)
class ConjunctionAgainst:
    """A conjunction's against side: that of its first conjunct that has one."""

    goal: str
    conjunct: str
    child: Against


class ArgueTools(ToolGroup):
    toolset = VERBS

    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        QUERY,
        "Argue a ground goal both ways. The verdict is true (proved), false (a proof of its "
        "denial neg(Goal), or a stored fact defeated by knowledge), both (a contradiction) or "
        "unknown, with the case for and the case against, naming clause handles.",
        details="The case for is the goal's first proof. The case against is a proof of its "
        "denial neg(Goal) (kind inference) or, for a stored fact that a functional "
        "predicate's knowledge defeats, the defeat (kind defeat): the loser, the winning "
        "knowledge-file facts and the rule; or, for a stored fact of a functional predicate "
        "that other stored facts contradict (kept by the policy keep), the conflict (kind "
        "conflict). A conjunction of ground goals is argued conjunct by conjunct on the "
        "against side.",
    )
    def argue(
        self,
        closed_goal: Annotated[str, Arg('A ground goal (e.g. "flies(tweety)")')],
        context: Annotated[
            str | None, Arg("The memory to use (optional, defaults to the default memory)")
        ] = None,
        as_of: AsOfArg = None,
    ) -> Reply[verb_outputs.Argued]:
        goal = parse_term(closed_goal, "closed_goal")
        if variables(goal):
            raise InvalidClause(f"argue needs a closed (ground) goal: {render(goal)}")
        check_goal(goal)
        kb = reading(self._memories, context, as_of)
        self._memories.sync_all()
        justifier = Justifier(self._memories, self.context.limits)
        renderer = Renderer()
        for_side = justifier.first_proof(kb, goal, renderer)
        against = self._against(justifier, kb, goal, renderer)
        verdict = _verdict(for_side is not None, against is not None)
        for_text = "null" if for_side is None else encode_tree(for_side)
        text = (
            f'{{"verdict":"{verdict}","for_justification":{for_text},'
            f'"against_justification":{_against_text(against)}}}'
        )
        data: verb_outputs.Argued = {
            "verdict": verdict,
            "for_justification": None
            if for_side is None
            else {"nodes": cast(list[verb_outputs.JustificationNode], flat_nodes(for_side))},
            "against_justification": cast(
                verb_outputs.Inference
                | verb_outputs.Defeat
                | verb_outputs.FunctionalConflict
                | None,
                _against_data(against),
            ),
        }
        return Reply(text, data)

    def _against(
        self, justifier: Justifier, kb: Memory, goal: Term, renderer: Renderer
    ) -> Against | ConjunctionAgainst | None:
        parts = _conjuncts(goal)
        if len(parts) == 1:
            return self._against_one(justifier, kb, goal, renderer)
        shown = renderer.render(goal)
        for part in parts:
            found = self._against_one(justifier, kb, part, renderer)
            if found is not None:
                return ConjunctionAgainst(shown, renderer.render(part), found)
        return None

    def _against_one(
        self, justifier: Justifier, kb: Memory, goal: Term, renderer: Renderer
    ) -> Against | None:
        """A stated or derived denial first; else the goal's defeat, if it is
        stored and defeated."""
        denied = justifier.first_proof(kb, _denial(goal), renderer)
        if denied is not None:
            return denied
        return self._defeat(kb, goal, renderer) or self._conflict(kb, goal, renderer)

    def _defeat(self, kb: Memory, goal: Term, renderer: Renderer) -> DefeatReport | None:
        fact, memory = unqualified(goal, self._memories, kb)
        if not isinstance(fact, (Atom, Struct)):
            return None
        loser = memory.defeated_variant(fact)
        if loser is None:
            return None
        defeat = memory.defeat_of(loser)
        if defeat is None:  # stored defeated: the knowledge that defeated it is still there
            return None
        name, arity = loser.key
        rule = f"{name}/{arity} is functional ({defeat.declared})"
        winners = [
            {**_entry(winner, memory, renderer), "defeat_class": "functional", "rules": [rule]}
            for winner in defeat.winners
        ]
        return DefeatReport(_entry(loser, memory, renderer), winners, [memory.name])

    def _conflict(self, kb: Memory, goal: Term, renderer: Renderer) -> ConflictReport | None:
        """The stored facts the goal, a stored fact of a functional
        predicate, conflicts with, if any."""
        fact, memory = unqualified(goal, self._memories, kb)
        if not isinstance(fact, Struct):
            return None
        constraint = memory.constraints.functional(indicator(fact))
        if constraint is None:
            return None
        sharing = memory.stored_facts_sharing_prefix(fact)
        mine = next((c for c in sharing if terms_equal(c.head, fact)), None)
        last = fact.args[-1]
        others = [c for c in sharing if not terms_equal(c.head.args[-1], last)]  # type: ignore[union-attr]
        if mine is None or not others:
            return None
        rule = constraint_text(constraint, memory.constraints.policy_of(constraint))
        conflicting = [{**_entry(c, memory, renderer), "rules": [rule]} for c in others]
        return ConflictReport(_entry(mine, memory, renderer), conflicting, [memory.name])


def _entry(clause: Clause, memory: Memory, renderer: Renderer) -> dict[str, Any]:
    return {
        "handle": clause.handle,
        "sentence": renderer.render(clause.head),
        "context": memory.name,
    }


def _conjuncts(goal: Term) -> list[Term]:
    """The goals of a conjunction ``(A, B, ...)`` in order, nested ones
    flattened; ``[goal]`` for any other goal."""
    parts: list[Term] = []
    stack = [goal]
    while stack:
        term = stack.pop()
        if isinstance(term, Struct) and term.name == "," and len(term.args) == 2:
            stack.extend(reversed(term.args))
        else:
            parts.append(term)
    return parts


def _denial(goal: Term) -> Term:
    """``neg(G)`` for ``G``; ``M:neg(G)`` for ``M:G``, so it is proved where ``G`` is."""
    if isinstance(goal, Struct) and goal.name == ":" and len(goal.args) == 2:
        return Struct(":", (goal.args[0], _denial(goal.args[1])))
    return Struct(DENIALS[0], (goal,))


def _verdict(proved: bool, denied: bool) -> verb_outputs.Verdict:
    if proved:
        return "both" if denied else "true"
    return "false" if denied else "unknown"


def _against_text(against: Against | ConjunctionAgainst | None) -> str:
    if against is None:
        return "null"
    if isinstance(against, ConjunctionAgainst):
        child = _child_text(against.child)
        tree = (
            f'{{"goal":{dumps(against.goal)},"rule_applied":"{CONJUNCTION}","children":[{child}]}}'
        )
        return f'{{"kind":"inference","tree":{tree}}}'
    if isinstance(against, (DefeatReport, ConflictReport)):
        return dumps(against.as_json())
    return f'{{"kind":"inference","tree":{encode_tree(against)}}}'


def _child_text(child: Against) -> str:
    if isinstance(child, (DefeatReport, ConflictReport)):
        return dumps(child.as_json())
    return encode_tree(child)


def _against_data(against: Against | ConjunctionAgainst | None) -> dict[str, Any] | None:
    """The against side as structured content: trees flat (``nodes``); a
    defeated conjunct is a ``defeat`` node that carries the defeat object."""
    if against is None:
        return None
    if isinstance(against, (DefeatReport, ConflictReport)):
        return against.as_json()
    if isinstance(against, ProofNode):
        return {"kind": "inference", "tree": {"nodes": flat_nodes(against)}}
    root = {"id": 0, "parent": None, "goal": against.goal, "rule_applied": CONJUNCTION}
    nodes: list[dict[str, Any]] = [{**root, "truncated": False}]
    child = against.child
    if isinstance(child, (DefeatReport, ConflictReport)):
        nodes.append(
            {
                "id": 1,
                "parent": 0,
                "goal": against.conjunct,
                "rule_applied": child.kind,
                "truncated": False,
                child.kind: child.as_json(),
            }
        )
    else:
        for node in flat_nodes(child):
            shifted = node["parent"]
            nodes.append(
                {**node, "id": node["id"] + 1, "parent": 0 if shifted is None else shifted + 1}
            )
    return {"kind": "inference", "tree": {"nodes": nodes}}
