"""``subsumes_term/2`` and ``unifiable/3``, as SWI-Prolog 9 implements them.

Both unify their arguments (``runtime.unify``: cyclic terms allowed, no
occurs check), look at the bindings that made, and undo them.

``unifiable(X, Y, U)`` reads the substitution off the trail, newest binding
first, as SWI-Prolog does: ``unifiable(f(X, Y, Z), f(a, b, c), U)`` gives
``U = [Z=c, Y=b, X=a]``.  Each element is ``Var = Value`` with ``Value`` what
the variable was bound to (another variable when two variables were
unified; the younger is bound to the older).  A plain variable as first or
second argument gives the single equation ``[X=Y]`` (``[]`` when ``X`` and
``Y`` are the same variable).
"""

from __future__ import annotations

from zpm_adapters.engine_python.builtins._support import Machine, make_list
from zpm_adapters.engine_python.builtins.terms import term_variables
from zpm_adapters.engine_python.runtime import Ref, RTerm, deref, det, rstruct
from zpm_domain.prolog.terms import NIL


@det("subsumes_term", 2)
def subsumes_term(m: Machine, args: tuple[RTerm, ...]) -> bool:
    """``General`` subsumes ``Specific``: they unify without binding a
    variable of ``Specific`` (SWI: the variables of ``Specific`` must still
    be distinct unbound variables after the unification)."""
    general, specific = args
    variables = term_variables(m, specific)
    trail = m.trail
    mark = trail.mark()
    ok = m.unify(general, specific)
    if ok:
        seen: set[int] = set()
        for var in variables:
            v = deref(var)
            if type(v) is not Ref or v.id in seen:
                ok = False
                break
            seen.add(v.id)
    trail.undo(mark)
    return ok


def _equation(var: RTerm, value: RTerm) -> RTerm:
    return rstruct("=", (var, value))


@det("unifiable", 3)
def unifiable(m: Machine, args: tuple[RTerm, ...]) -> bool:
    x, y = deref(args[0]), deref(args[1])
    if type(x) is Ref:
        if x is y:
            return m.unify(args[2], NIL)
        return m.unify(args[2], make_list([_equation(x, y)]))
    if type(y) is Ref:
        return m.unify(args[2], make_list([_equation(y, x)]))
    trail = m.trail
    mark = trail.mark()
    if not m.unify(x, y):
        trail.undo(mark)
        return False
    bound = trail.cells[mark:]
    equations = [_equation(var, var.ref) for var in reversed(bound)]  # type: ignore[arg-type]
    trail.undo(mark)
    return m.unify(args[2], make_list(equations))
