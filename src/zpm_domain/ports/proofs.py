"""Proof trees: from an engine's flat list of proof steps to explain_why's JSON.

An engine proves a goal and hands back its first proof as a pre-order list
of :class:`ProofStep` (``Engine.explain``).  :func:`build_tree` nests them
into :class:`ProofNode` s and :func:`encode_explanation` writes the tool's
text.  Both are iterative: a proof ten thousand levels deep costs no Python
recursion (``json.dumps`` of such a nest raises ``RecursionError``).

Texts (architecture §8.12): a node's ``goal`` is the instantiated goal,
every unnamed variable numbered ``_G<n>`` over the whole answer in pre-order;
``rule_applied`` is ``"fact"`` for a stored fact, the stored clause as it was
written (its variable names kept) for a rule, and ``"builtin"`` for a
built-in, a negation or a control construct at the root.  A node cut off at
the depth limit that has children gets ``"children":[]`` followed by
``"truncated":true``.

The verb tools show the same trees as *justifications*: each node that a
stored clause proved also names that clause's ``handle`` (after
``rule_applied``); built-in and negation nodes have none (:func:`build_tree`
with ``handle_of``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from zpm_domain.prolog.terms import Term
from zpm_domain.prolog.writer import Renderer
from zpm_domain.stored.clauses import Clause

DEFAULT_MAX_DEPTH = 100_000
"""explain_why's depth limit when the caller gives none (the root is depth 0)."""

FACT = "fact"
BUILTIN = "builtin"


@dataclass(frozen=True, slots=True)
class ProofStep:
    """One node of a proof, in pre-order.

    ``goal`` is the instantiated goal (``M:G`` when proved in memory ``M``
    through a qualification); ``clause`` the stored clause that proved it
    (``None`` for a built-in, and for a stored fact an engine need not name:
    ``fact`` says so); ``truncated`` marks a step at the depth limit whose
    children were left out.  All steps of one proof share their variables
    (they come from one answer).
    """

    depth: int
    goal: Term
    clause: Clause | None
    truncated: bool = False
    fact: bool = False


@dataclass(slots=True)
class ProofNode:
    """One node of the tree explain_why shows."""

    goal: str
    rule_applied: str
    children: list[ProofNode] = field(default_factory=list)
    truncated: bool = False
    handle: int | None = None


def build_tree(
    steps: Sequence[ProofStep],
    renderer: Renderer | None = None,
    handle_of: Callable[[ProofStep], int | None] | None = None,
) -> ProofNode:
    """Nest pre-order ``steps`` (the first at depth 0) into a tree; goals are
    rendered with ``renderer`` (a fresh one by default: ``_G`` numbering
    starts with the tree), and ``handle_of`` names each node's clause handle.

    Raises ``ValueError`` when the depths do not describe a tree (a step
    deeper than one below its predecessor, or a second root).
    """
    if not steps or steps[0].depth != 0:
        raise ValueError("a proof starts with its root at depth 0")
    renderer = renderer or Renderer()
    rules: dict[int, str] = {}
    path: list[ProofNode] = []
    root: ProofNode | None = None
    for step in steps:
        if step.depth > len(path) or (step.depth == 0 and root is not None):
            raise ValueError(f"step at depth {step.depth} has no parent")
        rule = FACT if step.fact else _rule_text(step.clause, rules)
        node = ProofNode(renderer.render(step.goal), rule)
        node.truncated = step.truncated
        if handle_of is not None:
            node.handle = handle_of(step)
        del path[step.depth :]
        if path:
            path[-1].children.append(node)
        else:
            root = node
        path.append(node)
    assert root is not None
    return root


def _rule_text(clause: Clause | None, cache: dict[int, str]) -> str:
    if clause is None:
        return BUILTIN
    if clause.is_fact:
        return FACT
    text = cache.get(id(clause))
    if text is None:
        text = cache[id(clause)] = Renderer().render(clause.as_term())
    return text


def encode_explanation(fact: str, tree: ProofNode | None) -> str:
    """explain_why's text: ``{"fact":...,"proven":...,"proof_tree":...}``, compact."""
    if tree is None:
        return f'{{"fact":{_string(fact)},"proven":false,"proof_tree":null}}'
    return f'{{"fact":{_string(fact)},"proven":true,"proof_tree":{encode_tree(tree)}}}'


def flat_nodes(root: ProofNode) -> list[dict[str, Any]]:
    """The nodes of a tree in pre-order, each with its ``id`` (its index) and
    its ``parent``'s (``None`` for the root); walked without recursion."""
    nodes: list[dict[str, Any]] = []
    stack: list[tuple[ProofNode, int | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        own = len(nodes)
        shown: dict[str, Any] = {
            "id": own,
            "parent": parent,
            "goal": node.goal,
            "rule_applied": node.rule_applied,
        }
        if node.handle is not None:
            shown["handle"] = node.handle
        shown["truncated"] = node.truncated
        nodes.append(shown)
        stack.extend((child, own) for child in reversed(node.children))
    return nodes


def encode_tree(root: ProofNode) -> str:
    """The compact JSON of a tree, written without recursion:
    ``{"goal":G,"rule_applied":R,"children":[...]}`` (``"handle":H`` after
    ``rule_applied`` when the node has one; ``,"truncated":true`` after the
    children of a truncated node)."""
    parts: list[str] = []
    rules: dict[str, str] = {}  # rule text -> its JSON (many nodes share a clause)
    stack: list[ProofNode | str] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        rule = rules.get(item.rule_applied)
        if rule is None:
            rule = rules[item.rule_applied] = _string(item.rule_applied)
        handle = "" if item.handle is None else f',"handle":{item.handle}'
        parts.append(f'{{"goal":{_string(item.goal)},"rule_applied":{rule}{handle},"children":[')
        stack.append('],"truncated":true}' if item.truncated else "]}")
        children = item.children
        for i in range(len(children) - 1, -1, -1):
            stack.append(children[i])
            if i:
                stack.append(",")
    return "".join(parts)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
