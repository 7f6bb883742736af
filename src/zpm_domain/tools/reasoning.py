"""The reasoning tools: trace_dependency, verify_consistency, explain_why.

All three only read.  trace_dependency and explain_why run the engine's
proof interpreters (``Engine.tabled_answers``, ``Engine.explain``);
verify_consistency is one query.  Values in answers are encoded as
query_logic encodes a binding (``answers.to_json_value``).
"""

from __future__ import annotations

from typing import Annotated, cast

from zpm_domain.constraints.functional import held_conflicts
from zpm_domain.errors import InputSyntaxError, InvalidArguments
from zpm_domain.limits import Limits
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.ports.proofs import DEFAULT_MAX_DEPTH, build_tree, encode_explanation, flat_nodes
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, variables
from zpm_domain.prolog.writer import Renderer
from zpm_domain.tools import outputs
from zpm_domain.tools.answers import to_json_value
from zpm_domain.tools.definition import QUERY, Arg, MemoryArg, Reply, ToolGroup, tool
from zpm_domain.tools.inputs import parse_term, require_callable
from zpm_domain.tools.jsontext import JsonValue, dumps
from zpm_domain.tools.moments import AsOfArg, reading

TRACED = "path"
VIOLATION = "integrity_violation"
CONFLICT = "conflict"
"""``conflict(Held, Later)``: two stored facts of a functional predicate that a
``keep`` policy holds, as ``verify_consistency`` reports them."""


class ReasoningTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @property
    def _limits(self) -> Limits:
        return self.context.limits

    def _target(self, memory: str | None, moment: str | None) -> Memory:
        """The memory a goal runs in (as it was at ``moment``, when given),
        with every memory caught up (``m:G`` may reach any)."""
        kb = reading(self._memories, memory, moment)
        self._memories.sync_all()
        return kb

    @tool(
        QUERY,
        "Trace transitive dependencies from a start node using `path/2` rules. Queries the "
        "knowledge base for all nodes reachable from a given start node through dependency "
        "chains: the distinct values Y of `path(Start, Y)` (the start node is the FIRST "
        "argument of path/2), each once, in the order they are found, as JSON values. Safe "
        "on cyclic graphs: path/2 is evaluated like a tabled predicate. Each path/2 subgoal "
        "is expanded at most once per pass (a repeat adds nothing, as a reachability "
        "relation's answers have already reached the result); subgoals in tail position "
        "wait in a queue instead of nesting; a subgoal like the start reads the answers "
        "found so far; passes repeat until none finds anything new. No path/2 rules means no "
        "dependencies.",
    )
    def trace_dependency(
        self,
        start_node: Annotated[
            str, Arg('The starting node to trace dependencies from (e.g. "a", "module_a")')
        ],
        memory: MemoryArg = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.Trace]:
        """The distinct ``Y`` of ``path(Start, Y)`` (first-seen order) as a JSON
        array; structured: ``{"nodes": [...]}``.

        ``start_node`` is read as one ground term (a variable in it is
        ``InvalidArguments``); text that is not one term is a syntax error
        and nothing runs.
        """
        start = parse_term(start_node, "start_node")
        if variables(start):
            raise InvalidArguments("start_node must be a ground term: a node, not a pattern")
        kb = self._target(memory, as_of)
        goal = Struct(TRACED, (start, Var("Y")))
        renderer = Renderer()
        seen: set[str] = set()
        nodes: list[JsonValue] = []
        for answer in kb.tabled_answers(goal, self._limits):
            if not (isinstance(answer, Struct) and len(answer.args) == 2):
                continue
            value = to_json_value(answer.args[1], renderer)
            text = dumps(value)
            if text not in seen:
                seen.add(text)
                nodes.append(value)
        return Reply(dumps(nodes), {"nodes": nodes})

    @tool(
        QUERY,
        "Check the knowledge base for integrity violations by querying `integrity_violation/N` "
        "predicates. Without a scope: X of every solution of `integrity_violation(X)`, then "
        "the last argument X of every solution of `integrity_violation(S, X)`; with a scope "
        "(an atom, e.g. deployment): X of every solution of `integrity_violation(scope, X)`. "
        'Returns {"violations":[...]}: each distinct value once, in the order first found, '
        "from at most the answer limit of solutions (100 by default; truncated in the "
        "structured result says whether the limit cut them); undefined predicates give no "
        "violations.",
        details="Without a scope, the violations also list conflict(Held, Later) for each "
        "two stored facts of a functional predicate that share every argument but the last "
        "and differ in it (kept by the policy keep, or stored before it was declared).",
    )
    def verify_consistency(
        self,
        scope: Annotated[
            str | None, Arg('Optional domain scope to filter integrity checks (e.g. "deployment")')
        ] = None,
        memory: MemoryArg = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.Violations]:
        """``{"violations":[...]}``: the distinct X values, in the order first
        found, from the first ``max_solutions`` solutions; structured, also
        ``truncated``: whether that limit cut the solutions.

        A ``scope`` that does not read as an atom is ``InvalidArguments``.
        """
        x = Var("X")
        goal: Term
        if scope is None:
            goal = Struct(";", (Struct(VIOLATION, (x,)), Struct(VIOLATION, (Var(None), x))))
        else:
            goal = Struct(VIOLATION, (_scope_atom(scope), x))
        kb = self._target(memory, as_of)
        solutions = kb.first_solutions(goal, self._limits)
        renderer = Renderer()
        violations: dict[str, JsonValue] = {}
        for solution in solutions:
            value = to_json_value(solution[x], renderer)
            violations.setdefault(dumps(value), value)
        if scope is None:
            for conflict in held_conflicts(kb):
                value = renderer.render(Struct(CONFLICT, (conflict.held.head, conflict.fact)))
                violations.setdefault(dumps(value), value)
        found = list(violations.values())
        truncated = len(solutions) >= self._limits.max_solutions
        return Reply(dumps({"violations": found}), {"violations": found, "truncated": truncated})

    @tool(
        QUERY,
        "Trace the proof tree for a given fact and return a structured JSON explanation of "
        "how it was derived. A meta-interpreter over the memory's stored clauses finds the "
        "first proof in Prolog's order (cut included); each node holds the instantiated goal, "
        "the clause that proved it (`fact` for a fact, the rule as written for a rule, "
        "`builtin` for a built-in or a negation, which are leaves) and its children (the "
        "goals of the rule's body; of a disjunction, the branch that succeeded). `m:G` is "
        "proved with memory m's clauses. A goal that repeats one of its ancestors is not "
        "expanded again, so cyclic rules end. `max_depth` (0 or more; the root is depth 0; "
        f"default {DEFAULT_MAX_DEPTH}) cuts the tree: a node there that has children shows "
        'none and "truncated":true.',
    )
    def explain_why(
        self,
        fact: Annotated[str, Arg('The Prolog term to explain (e.g. "risky(deploy_v3)")')],
        max_depth: Annotated[
            int | None, Arg("Optional maximum proof tree depth (truncates deeper levels)")
        ] = None,
        memory: MemoryArg = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.Explanation]:
        """The first proof of ``fact`` as explain_why's JSON (``proof_tree`` null when
        none); structured: the same proof flat (see ``outputs.Explanation``).

        ``fact`` is echoed verbatim; it must be callable and pass the sandbox
        as a query does.  A negative ``max_depth`` is ``InvalidArguments``.
        """
        if max_depth is not None and max_depth < 0:
            raise InvalidArguments(f"max_depth must be 0 or more, not {max_depth}")
        goal = parse_term(fact, "fact")
        require_callable(goal, "fact")
        check_goal(goal)
        kb = self._target(memory, as_of)
        depth = DEFAULT_MAX_DEPTH if max_depth is None else max_depth
        steps = kb.explain(goal, self._limits, depth)
        tree = build_tree(steps) if steps else None
        nodes = [] if tree is None else flat_nodes(tree)
        structured: outputs.Explanation = {
            "fact": fact,
            "proven": tree is not None,
            "nodes": cast(list[outputs.ProofNode], nodes),
        }
        return Reply(encode_explanation(fact, tree), structured)


def _scope_atom(scope: str) -> Atom:
    """The scope argument read as one atom, else ``InvalidArguments``."""
    try:
        term = parse_term(scope, "scope")
    except InputSyntaxError as error:
        raise InvalidArguments(f"scope must be an atom: {error.message}") from None
    if not isinstance(term, Atom):
        raise InvalidArguments("scope must be an atom (e.g. deployment)")
    return term
