"""Compile clauses and goals into solver code (see ``code`` for the instruction set).

Two inputs, one compiler:

* a stored clause (domain terms with named ``Var`` s) compiles once, when it is
  added, into head templates and body code over numbered slots;
* a runtime goal (a meta-call: ``call/N``, ``findall/3``, the query itself)
  compiles each time it is called; its terms are runtime terms and are used
  as they are.

A goal position that is neither a variable nor callable makes the whole goal
a ``type_error(callable, Goal)`` (SWI-Prolog checks the control constructs
``,``, ``;``, ``->``, ``*->``, ``\\+`` and ``M:G`` of a body as a whole).
Arguments of ``call/1``, ``findall/3``, ``once/1`` … are compiled in place
when they are well-formed and known, otherwise at run time, so their errors
happen when (and only if) they run.

Names resolve, in order: control constructs, refused predicates (``DENIED``),
Python built-ins (``runtime.BUILTINS``), the library (for names on the
allow-list, or everything when compiling the library itself), and last the
namespace's own predicates.  Library meta-predicates called from a user
namespace get their goal arguments qualified with that namespace, so the
closures run where they were written.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from zpm_adapters.engine_python import code as op
from zpm_adapters.engine_python.code import Code
from zpm_adapters.engine_python.runtime import (
    BUILTINS,
    Ref,
    RTerm,
    context,
    deref,
    to_runtime,
    type_error,
)
from zpm_adapters.engine_python.store import Namespace, arg_key
from zpm_adapters.engine_python.templates import Slot, TStruct
from zpm_domain.builtins import ALLOWED, DENIED, META_ARGS
from zpm_domain.clauses import Clause
from zpm_domain.terms import Atom, Struct, Term, Var

_META_CALL = ("<meta-call>", 1)


class CClause:
    """A compiled clause; ``clause`` is the domain clause as it was added."""

    __slots__ = ("clause", "head", "nvars", "body", "fresh", "key")

    def __init__(
        self,
        clause: Clause,
        head: tuple[Any, ...],
        nvars: int,
        body: Code | None,
        fresh: tuple[int, ...],
        key: object | None,
    ) -> None:
        self.clause = clause
        self.head = head
        self.nvars = nvars
        self.body = body
        self.fresh = fresh
        self.key = key

    def __repr__(self) -> str:
        return f"<CClause {self.clause!r}>"


def to_template(term: Term, varmap: dict[int, int]) -> Any:
    """Template of a domain term; ``varmap`` numbers variables (``id(Var) -> slot``)."""
    if isinstance(term, Var):
        return Slot(_slot(term, varmap))
    if not isinstance(term, Struct) or _ground(term):
        return term
    values: list[Any] = []
    stack: list[tuple[Term, bool]] = [(term, False)]
    while stack:
        t, done = stack.pop()
        if isinstance(t, Struct):
            if done:
                n = len(t.args)
                args = tuple(values[len(values) - n :])
                del values[len(values) - n :]
                if any(type(a) is Slot or type(a) is TStruct for a in args):
                    values.append(TStruct(t.name, args))
                else:
                    values.append(t)  # ground: shared as it is
            else:
                stack.append((t, True))
                stack.extend((a, False) for a in reversed(t.args))
        elif isinstance(t, Var):
            values.append(Slot(_slot(t, varmap)))
        else:
            values.append(t)
    return values[0]


def _ground(term: Term) -> bool:
    stack = [term]
    pop, push = stack.pop, stack.extend
    while stack:
        t = pop()
        if type(t) is Struct:
            push(t.args)
        elif type(t) is Var:
            return False
    return True


def _slot(var: Var, varmap: dict[int, int]) -> int:
    i = varmap.get(id(var))
    if i is None:
        i = varmap[id(var)] = len(varmap)
    return i


def compile_clause(clause: Clause, ns: Namespace, system: Namespace | None) -> CClause:
    """Compile a stored clause of namespace ``ns``.

    Raises ``PrologThrow`` (``type_error(callable, Body)``) for a body with a
    non-callable goal.
    """
    head = clause.head
    varmap: dict[int, int] = {}
    args: tuple[Term, ...] = head.args if isinstance(head, Struct) else ()
    head_t = tuple(to_template(a, varmap) for a in args)
    n_head = len(varmap)
    body: Code | None = None
    if clause.body is not Atom("true"):
        body = _Compiler(ns, system, varmap).compile(clause.body)
    key = None
    if args and not isinstance(args[0], Var):
        key = arg_key(args[0])
    fresh = tuple(range(n_head, len(varmap)))
    return CClause(clause, head_t, len(varmap), body, fresh, key)


def compile_goal(
    goal: RTerm, ns: Namespace, system: Namespace | None, ctx: tuple[str, int] = _META_CALL
) -> Code:
    """Compile a runtime goal of namespace ``ns``.

    Raises ``PrologThrow`` with ``type_error(callable, Goal)`` (context
    ``ctx``) when a goal position is not callable.
    """
    return _Compiler(ns, system, None, ctx).compile(goal)


def well_formed(goal: Any, runtime: bool) -> bool:
    """True when every goal position of ``goal``'s control structure is a
    variable or callable (and every module of ``M:G`` an atom or variable)."""
    stack = [goal]
    while stack:
        t = stack.pop()
        if runtime:
            t = deref(t)
        if type(t) is Atom or type(t) is Ref or type(t) is Var:
            continue
        if type(t) is not Struct:
            return False
        name, n = t.name, len(t.args)
        if n == 2 and name in (",", ";", "->", "*->"):
            stack.extend(t.args)
        elif n == 1 and name == "\\+":
            stack.append(t.args[0])
        elif n == 2 and name == ":":
            m = deref(t.args[0]) if runtime else t.args[0]
            if type(m) not in (Atom, Ref, Var):
                return False
            stack.append(t.args[1])
    return True


class _Compiler:
    """One compilation: domain mode when ``varmap`` is given, runtime mode otherwise."""

    def __init__(
        self,
        ns: Namespace,
        system: Namespace | None,
        varmap: dict[int, int] | None,
        ctx: tuple[str, int] = _META_CALL,
    ) -> None:
        self.ctx = ctx
        self.ns = ns
        self.system = system
        self.varmap = varmap
        self.runtime = varmap is None
        self.qualify = system is not None and ns is not system

    def tmpl(self, t: Any) -> Any:
        return t if self.varmap is None else to_template(t, self.varmap)

    def compile(self, goal: Any) -> Code:
        top = deref(goal) if self.runtime else goal
        qualified = type(top) is Struct and top.name == ":" and len(top.args) == 2
        if not qualified and not well_formed(goal, self.runtime):
            self._raise_not_callable(goal)
        root: Code = []
        codes = [root]
        stack: list[tuple[Any, Code]] = [(goal, root)]
        while stack:
            t, out = stack.pop()
            if self.runtime:
                t = deref(t)
            if type(t) is Ref or type(t) is Var:
                out.append((op.META, self.tmpl(t), (), self.ns, _META_CALL))
                continue
            if type(t) is Atom:
                name, args = t.name, ()
            else:
                name, args = t.name, t.args
            n = len(args)
            sub = self._control(name, n, args, out, stack, codes)
            if sub:
                continue
            out.append(self._call(name, args))
        for c in codes:
            if not c:
                c.append((op.TRUE,))
        return root

    def _raise_not_callable(self, goal: Any) -> None:
        term = goal if self.runtime else to_runtime(goal)
        m = deref(term)
        if type(m) is Struct and m.name == ":" and len(m.args) == 2:
            mod = deref(m.args[0])
            if type(mod) is not Atom and type(mod) is not Ref:
                raise type_error("module", mod, _ctx(self.ctx))
        _find_bad_module(term, self.ctx)
        raise type_error("callable", term, _ctx(self.ctx))

    def _new(self, codes: list[Code]) -> Code:
        c: Code = []
        codes.append(c)
        return c

    def _inline(self, goal: Any) -> bool:
        g = deref(goal) if self.runtime else goal
        return type(g) is not Ref and type(g) is not Var and well_formed(g, self.runtime)

    def _control(
        self,
        name: str,
        n: int,
        args: tuple[Any, ...],
        out: Code,
        stack: list[tuple[Any, Code]],
        codes: list[Code],
    ) -> bool:
        """Compile a control construct into ``out``; False if ``name/n`` is not one."""
        if n == 0:
            if name == "true":
                return True
            if name == "!":
                out.append((op.CUT,))
                return True
            if name in ("fail", "false"):
                out.append((op.FAIL,))
                return True
            return False
        if n == 2 and name == ",":
            stack.append((args[1], out))
            stack.append((args[0], out))
            return True
        if n == 2 and name == ";":
            left = deref(args[0]) if self.runtime else args[0]
            if type(left) is Struct and len(left.args) == 2 and left.name in ("->", "*->"):
                c, t, e = self._new(codes), self._new(codes), self._new(codes)
                kind = op.ITE if left.name == "->" else op.SOFT
                out.append((kind, c, t, e))
                stack.extend(((args[1], e), (left.args[1], t), (left.args[0], c)))
                return True
            a, b = self._new(codes), self._new(codes)
            out.append((op.OR, a, b))
            stack.extend(((args[1], b), (args[0], a)))
            return True
        if n == 2 and name in ("->", "*->"):
            c, t = self._new(codes), self._new(codes)
            out.append((op.ITE if name == "->" else op.SOFT, c, t, op.FAIL_CODE))
            stack.extend(((args[1], t), (args[0], c)))
            return True
        if n == 1 and name == "\\+":
            g = self._new(codes)
            out.append((op.NOT, g))
            stack.append((args[0], g))
            return True
        if n == 2 and name == ":":
            out.append((op.QUALIFIED, self.tmpl(args[0]), self.tmpl(args[1])))
            return True
        return self._meta(name, n, args, out, stack, codes)

    def _goal_code(
        self, goal: Any, ctx: tuple[str, int], stack: list[tuple[Any, Code]], codes: list[Code]
    ) -> Code:
        """Code that calls ``goal`` opaquely to cut: in place if possible, else at run time."""
        c = self._new(codes)
        if self._inline(goal):
            c.append((op.CALL1, self._new_into(goal, stack, codes)))
        else:
            c.append((op.META, self.tmpl(goal), (), self.ns, ctx))
        return c

    def _new_into(self, goal: Any, stack: list[tuple[Any, Code]], codes: list[Code]) -> Code:
        c = self._new(codes)
        stack.append((goal, c))
        return c

    def _meta(
        self,
        name: str,
        n: int,
        args: tuple[Any, ...],
        out: Code,
        stack: list[tuple[Any, Code]],
        codes: list[Code],
    ) -> bool:
        ns, tm = self.ns, self.tmpl
        if name == "call":
            if n == 1:
                if self._inline(args[0]):
                    out.append((op.CALL1, self._new_into(args[0], stack, codes)))
                else:
                    out.append((op.META, tm(args[0]), (), ns, _META_CALL))
            else:
                extra = tuple(tm(a) for a in args[1:])
                out.append((op.META, tm(args[0]), extra, ns, _META_CALL))
            return True
        if n == 1 and name == "not":
            out.append((op.NOT, self._goal_code(args[0], ("not", 1), stack, codes)))
            return True
        if n == 1 and name in ("once", "ignore"):
            cond = self._goal_code(args[0], (name, 1), stack, codes)
            otherwise = op.FAIL_CODE if name == "once" else op.TRUE_CODE
            out.append((op.ITE, cond, op.TRUE_CODE, otherwise))
            return True
        if n == 2 and name == "forall":
            inner = self._goal_code(args[0], ("forall", 2), stack, codes)
            inner.append((op.NOT, self._goal_code(args[1], ("forall", 2), stack, codes)))
            out.append((op.NOT, inner))
            return True
        if n == 2 and name == "^":
            out.extend(self._goal_code(args[1], ("^", 2), stack, codes))
            return True
        if name == "findall" and n in (3, 4):
            tail = tm(args[3]) if n == 4 else None
            out.append((op.FINDALL, tm(args[0]), tm(args[1]), tm(args[2]), tail, ns))
            return True
        if n == 3 and name in ("bagof", "setof"):
            out.append((op.BAGOF, tm(args[0]), tm(args[1]), tm(args[2]), name == "setof", ns))
            return True
        if n == 3 and name == "aggregate_all":
            out.append((op.AGGREGATE, tm(args[0]), tm(args[1]), tm(args[2]), ns))
            return True
        if n == 3 and name == "catch":
            out.append((op.CATCH, tm(args[0]), tm(args[1]), tm(args[2]), ns))
            return True
        if n == 1 and name == "throw":
            out.append((op.THROW, tm(args[0])))
            return True
        return False

    def _call(self, name: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
        n = len(args)
        key = (name, n)
        if key in DENIED:
            return (op.DENY, name, n)
        builtin = BUILTINS.get(key)
        if builtin is not None:
            if n == 2 and not self.runtime and builtin.deterministic:
                arith = self._arith(name, args, builtin.fn)
                if arith is not None:
                    return arith
            kind = op.DET if builtin.deterministic else op.NONDET
            return (kind, builtin.fn, *self._args(args, None), builtin)
        system = self.system
        pred = None
        if system is not None:
            if self.ns is system:
                pred = system.predicate(name, n)
            elif key in ALLOWED:
                pred = system.lookup(name, n)
                if pred is not None and self.qualify and key in META_ARGS:
                    return (op.CALL, pred, *self._args(args, META_ARGS[key]))
        if pred is None:
            if self.runtime:
                pred = self.ns.lookup(name, n)
                if pred is None:
                    return (op.UNDEFINED,)
            else:
                pred = self.ns.predicate(name, n)
        return (op.CALL, pred, *self._args(args, None))

    def _arith(self, name: str, args: tuple[Any, ...], fn: Any) -> tuple[Any, ...] | None:
        """An ARITH instruction for ``T is A+B``, ``A-B`` or an integer comparison, if it fits."""
        if name == "is":
            target, expr = args
            if not isinstance(target, Var) or not isinstance(expr, Struct):
                return None
            kind = op.ARITH_KINDS.get(expr.name)
            if kind is None or kind > 1 or len(expr.args) != 2:
                return None
            a, b = expr.args
            target_slot = _slot(target, self.varmap)  # type: ignore[arg-type]
        else:
            kind = op.ARITH_KINDS.get(name)
            if kind is None or kind < 2:
                return None
            a, b = args
            target_slot = -1
        operands = [_operand(x, self.varmap) for x in (a, b)]  # type: ignore[arg-type]
        if None in operands:
            return None
        (ai, ac), (bi, bc) = operands  # type: ignore[misc]
        tmpls = tuple(self.tmpl(x) for x in args)
        return (op.ARITH, kind, ai, ac, bi, bc, target_slot, fn, tmpls)

    def _args(self, args: tuple[Any, ...], meta: tuple[int, ...] | None) -> tuple[Any, ...]:
        """``(templates, mode, getter)`` for an argument list."""
        if meta is not None:
            module = Atom(self.ns.name)
            args = tuple(
                _qualify(module, a, self.runtime) if spec >= 0 else a
                for a, spec in zip(args, meta, strict=True)
            )
        if not args:
            return ((), op.ARGS_NONE, None)
        if self.runtime:
            return (args, op.ARGS_CONST, None)
        tmpls = tuple(self.tmpl(a) for a in args)
        if all(type(t) is Slot for t in tmpls):
            if len(tmpls) == 1:
                return (tmpls, op.ARGS_ONE, tmpls[0].i)
            return (tmpls, op.ARGS_GETTER, itemgetter(*(t.i for t in tmpls)))
        return (tmpls, op.ARGS_BUILD, None)


def _operand(t: Term, varmap: dict[int, int]) -> tuple[int, int] | None:
    """``(slot, 0)`` for a variable, ``(-1, n)`` for an integer, else None."""
    if isinstance(t, Var):
        return (_slot(t, varmap), 0)
    if type(t) is int:
        return (-1, t)
    return None


def _qualify(module: Atom, arg: Any, runtime: bool) -> Any:
    a = deref(arg) if runtime else arg
    if type(a) is Struct and a.name == ":" and len(a.args) == 2:
        return arg
    return Struct(":", (module, arg))


def _find_bad_module(term: RTerm, ctx: tuple[str, int]) -> None:
    stack = [term]
    while stack:
        t = deref(stack.pop())
        if type(t) is not Struct:
            continue
        if t.name in (",", ";", "->", "*->") and len(t.args) == 2:
            stack.extend(t.args)
        elif t.name == "\\+" and len(t.args) == 1:
            stack.append(t.args[0])
        elif t.name == ":" and len(t.args) == 2:
            m = deref(t.args[0])
            if type(m) is not Atom and type(m) is not Ref:
                raise type_error("module", m, _ctx(ctx))
            stack.append(t.args[1])


def _ctx(ctx: tuple[str, int]) -> RTerm:
    return context(*ctx)
