"""Where a rule body calls a predicate, and the body with those calls renamed.

A body *calls* ``name/arity`` at each goal position holding a term of that
name and arity: the body itself, the parts of control constructs, and the
goal arguments of meta-predicates (``zpm_domain.prolog.allowlist.meta_spec``:
``findall/3``'s goal, ``\\+``'s, ``call/N``'s, ``V^G`` in ``bagof/3``...).
A closure counts with the arguments its meta-predicate adds:
``maplist(check, L)`` calls ``check/1``.  Data positions do not count
(``X = task_status(a, b)`` calls nothing), nor do goals that are variables.

Each call has a *qualifier*: the memory named by the innermost ``M:G``
around it (an atom ``M``), or ``None`` for an unqualified call, which runs in
the memory that holds the rule.  A qualifier that is not an atom leaves the
qualifier of the goal as it was.

A *denial* is a clause whose head is ``neg(G)`` (``clauses.DENIALS``): it
denies ``G``.  A body goal ``neg(G)`` calls ``neg/1`` and, like a
meta-argument, ``G`` with the same qualifier: ``m:neg(flies(X))`` calls
``neg/1`` and ``flies/1`` in ``m``, and a rename of ``flies/1`` renames the
``flies(X)`` inside.  A variable ``G`` calls nothing.  ``denied`` gives the
``G`` of a denial's head, for the tools that count it as a use of ``G``'s
predicate.

Both walks are iterative, so bodies of any depth are fine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from zpm_domain.prolog.allowlist import meta_spec
from zpm_domain.prolog.terms import Atom, Struct, Term, Var, indicator
from zpm_domain.stored.clauses import DENIALS

Qualifier = str | None


@dataclass(frozen=True, slots=True)
class Call:
    """One call of a body: the predicate called and its qualifier."""

    name: str
    arity: int
    qualifier: Qualifier


Rename = Callable[[Call], str | None]
"""Decides, for a call, the predicate name to call instead (``None``: keep it)."""


def denied(head: Term) -> Atom | Struct | None:
    """The ``G`` of a denial head ``neg(G)``, as written (``neg(m:p)``
    gives ``m:p``); ``None`` for any other head, and when ``G`` is not
    callable (a variable, a number)."""
    if isinstance(head, Struct) and indicator(head) == DENIALS:
        goal = head.args[0]
        if isinstance(goal, (Atom, Struct)):
            return goal
    return None


def calls(body: Term) -> list[Call]:
    """Every call of ``body``, in reading order."""
    found: list[Call] = []

    def record(call: Call) -> str | None:
        found.append(call)
        return None

    _walk(body, record)
    return found


def calls_variable(body: Term) -> bool:
    """Whether ``body`` has a goal that is a variable, or is qualified by
    one (``M:G`` with ``M`` a variable): a call of any predicate."""
    found: list[None] = []
    _walk(body, lambda _call: None, lambda: found.append(None))
    return bool(found)


def rename_calls(body: Term, rename: Rename) -> Term:
    """``body`` with each call that ``rename`` maps renamed (same arguments);
    ``body`` itself when nothing changes."""
    return _walk(body, rename)


def _walk(body: Term, visit: Rename, variable: Callable[[], None] | None = None) -> Term:
    """Visit every call of ``body`` in reading order and rebuild it with the
    renames ``visit`` asks for (unchanged parts are kept, not copied);
    ``variable`` is called for each goal that is a variable or qualified by
    one."""
    # Work items: ("goal", term, extra, qualifier), ("data", term), or
    # ("build", struct, changed-count-before) after a compound's arguments.
    out: list[Term] = []
    stack: list[tuple[object, ...]] = [("goal", body, 0, None)]
    while stack:
        item = stack.pop()
        kind = item[0]
        if kind == "data":
            out.append(item[1])  # type: ignore[arg-type]
            continue
        if kind == "build":
            struct = item[1]
            assert isinstance(struct, Struct)
            count = len(struct.args)
            args = tuple(out[len(out) - count :])
            del out[len(out) - count :]
            same = all(new is old for new, old in zip(args, struct.args))
            out.append(struct if same else Struct(struct.name, args))
            continue
        term, extra, qualifier = item[1], item[2], item[3]
        assert isinstance(extra, int) and (qualifier is None or isinstance(qualifier, str))
        if isinstance(term, Atom):
            new_name = visit(Call(term.name, extra, qualifier))
            out.append(term if new_name is None else Atom(new_name))
            continue
        if not isinstance(term, Struct):
            if isinstance(term, Var) and variable is not None:
                variable()
            out.append(term)  # type: ignore[arg-type]
            continue
        arity = len(term.args) + extra
        if extra == 0 and term.name == ":" and len(term.args) == 2:
            module, goal = term.args
            if isinstance(module, Var) and variable is not None:
                variable()
            inner = module.name if isinstance(module, Atom) else qualifier
            stack.append(("build", term))
            stack.append(("goal", goal, 0, inner))
            stack.append(("data", module))
            continue
        if extra == 0 and indicator(term) == DENIALS:
            new_name = visit(Call(*DENIALS, qualifier))
            stack.append(("build", term if new_name is None else Struct(new_name, term.args)))
            stack.append(("goal", term.args[0], 0, qualifier))
            continue
        spec = meta_spec(term.name, arity) if extra == 0 else None
        if spec is None:
            new_name = visit(Call(term.name, arity, qualifier))
            out.append(term if new_name is None else Struct(new_name, term.args))
            continue
        stack.append(("build", term))
        for arg, added in reversed(list(zip(term.args, spec))):
            stack.append(("data", arg) if added < 0 else ("goal", arg, added, qualifier))
    return out[0]
