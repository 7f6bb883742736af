"""The sandbox check: may this goal (or rule body) run?

The check walks the control constructs and meta-predicate arguments of a
goal (``zpm_domain.prolog.allowlist.meta_spec``) and refuses any reachable call to a
``DENIED`` predicate, including closures such as ``maplist(shell, L)``
(``shell/1``) or ``call(halt)``.  Variables are left to the engine, which
refuses denied predicates reached at run time.
"""

from __future__ import annotations

from zpm_domain.prolog.allowlist import is_denied, meta_spec
from zpm_domain.prolog.errors import SandboxViolation
from zpm_domain.prolog.terms import Atom, Struct, Term


def check_goal(goal: Term) -> None:
    """Raise ``SandboxViolation`` if ``goal`` can reach a denied predicate.

    Non-callable goals (numbers, strings) pass: calling them is an ISO type
    error that the engine reports.
    """
    stack: list[tuple[Term, int]] = [(goal, 0)]
    while stack:
        term, extra = stack.pop()
        if isinstance(term, Struct):
            name, args = term.name, term.args
        elif isinstance(term, Atom):
            name, args = term.name, ()
        else:
            continue
        arity = len(args) + extra
        if is_denied(name, arity):
            raise SandboxViolation(name, arity)
        if extra:
            continue  # a closure: its own arguments are data
        if name == ":" and len(args) == 2:
            stack.append((args[1], 0))
            continue
        spec = meta_spec(name, arity)
        if spec is None:
            continue
        for arg, added in zip(args, spec):
            if added >= 0:
                stack.append((_strip_carets(arg) if name in _CARET_META else arg, added))


_CARET_META = frozenset({"bagof", "setof", "aggregate_all"})


def _strip_carets(goal: Term) -> Term:
    """``V^G`` in bagof/setof/aggregate_all is the goal ``G`` with ``V`` existential."""
    while isinstance(goal, Struct) and goal.name == "^" and len(goal.args) == 2:
        goal = goal.args[1]
    return goal
