"""Unification of domain terms, for deciding what a mutation will touch.

The domain computes the effect of a mutation (which clause a retract removes,
what an update asserts) *before* journaling it, so it needs its own small
unifier over domain terms.  It uses the occurs check, so it always
terminates and never builds cyclic terms.
"""

from __future__ import annotations

from zpm_domain.prolog.terms import Struct, Term, Var, terms_equal

Bindings = dict[int, tuple[Var, Term]]
"""``id(var) -> (var, value)``; values may contain other bound variables."""


def walk(term: Term, bindings: Bindings) -> Term:
    while isinstance(term, Var):
        bound = bindings.get(id(term))
        if bound is None:
            return term
        term = bound[1]
    return term


def unify(a: Term, b: Term, bindings: Bindings | None = None) -> Bindings | None:
    """Unify ``a`` and ``b`` (occurs check on); the extended bindings or ``None``.

    The input ``bindings`` is not modified.
    """
    env: Bindings = dict(bindings) if bindings else {}
    stack: list[tuple[Term, Term]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        x, y = walk(x, env), walk(y, env)
        if x is y:
            continue
        if isinstance(x, Var):
            if _occurs(x, y, env):
                return None
            env[id(x)] = (x, y)
        elif isinstance(y, Var):
            if _occurs(y, x, env):
                return None
            env[id(y)] = (y, x)
        elif isinstance(x, Struct):
            if not isinstance(y, Struct) or x.name != y.name or len(x.args) != len(y.args):
                return None
            stack.extend(zip(x.args, y.args))
        elif not terms_equal(x, y):
            return None
    return env


def _occurs(var: Var, term: Term, env: Bindings) -> bool:
    stack: list[Term] = [term]
    while stack:
        t = walk(stack.pop(), env)
        if t is var:
            return True
        if isinstance(t, Struct):
            stack.extend(t.args)
    return False


def substitute(term: Term, bindings: Bindings) -> Term:
    """``term`` with every bound variable replaced by its (resolved) value."""
    out: list[Term] = []
    stack: list[tuple[Term, bool]] = [(term, False)]
    while stack:
        t, done = stack.pop()
        if not done:
            t = walk(t, bindings)
        if isinstance(t, Struct):
            if done:
                n = len(t.args)
                args = tuple(out[len(out) - n :])
                del out[len(out) - n :]
                out.append(Struct(t.name, args))
            else:
                stack.append((t, True))
                stack.extend((arg, False) for arg in reversed(t.args))
        else:
            out.append(t)
    return out[0]
