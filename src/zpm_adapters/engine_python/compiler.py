"""Compile goals into solver code (see ``code`` for the instruction set).

Two inputs, one compiler:

* the body of a stored clause (domain terms with named ``Var`` s) compiles
  once, when it is added (see ``cclause``), into code over numbered slots;
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
in the library namespace only its primitives (``runtime.INTERNAL``),
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
from zpm_adapters.engine_python.arith_inline import arith_instruction
from zpm_adapters.engine_python.builtins.reflection import REFLECTION
from zpm_adapters.engine_python.code import Code
from zpm_adapters.engine_python.goals import (
    META_CALL,
    Ctx,
    ctx_term,
    cyclic_qualification,
    find_bad_module,
    well_formed,
)
from zpm_adapters.engine_python.runtime import (
    BUILTINS,
    INTERNAL,
    Ref,
    RTerm,
    deref,
    to_runtime,
    type_error,
)
from zpm_adapters.engine_python.store import Namespace
from zpm_adapters.engine_python.templates import Slot, to_template
from zpm_domain.prolog.allowlist import ALLOWED, DENIED, META_ARGS
from zpm_domain.prolog.terms import Atom, Struct, Var


def compile_goal(
    goal: RTerm, ns: Namespace, system: Namespace | None, ctx: Ctx = META_CALL
) -> Code:
    """Compile a runtime goal of namespace ``ns``.

    Raises ``PrologThrow`` with ``type_error(callable, Goal)`` (context
    ``ctx``) when a goal position is not callable, and ``type_error(
    acyclic_term, Goal)`` for a goal that is only module qualifications
    around itself (``G = m:G``).
    """
    compiler = BodyCompiler(ns, system, None, ctx)
    g = deref(goal)
    if type(g) is Struct and g.name == ":" and len(g.args) == 2 and cyclic_qualification(g):
        raise type_error("acyclic_term", g, ctx_term(META_CALL))
    if type(g) is Struct and g.name not in _CONSTRUCTS:
        return [compiler._call(g.name, g.args)]  # a plain call: nothing to check
    return compiler.compile(goal)


_CONSTRUCTS = frozenset(
    {",", ";", "->", "*->", "\\+", ":", "call", "not", "once", "ignore", "forall", "^"}
    | {"findall", "bagof", "setof", "aggregate_all", "catch", "throw", "setup_call_cleanup"}
)
"""Names the compiler treats specially (at some arity)."""


_FORALL: Ctx = ("$apply", "forall", 2)
CUT_TO = ("$zpm_mi_cut_to", 1)
"""``'$zpm_mi_cut_to'(B)``: cut back to choicepoint height ``B`` (library only)."""


class BodyCompiler:
    """One compilation: domain mode when ``varmap`` is given, runtime mode otherwise."""

    def __init__(
        self,
        ns: Namespace,
        system: Namespace | None,
        varmap: dict[int, int] | None,
        ctx: Ctx = META_CALL,
        owner: Ctx | None = None,
    ) -> None:
        self.ctx = ctx
        self.owner = owner
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
                ctx = self.ctx if t is top else META_CALL
                out.append((op.META, self.tmpl(t), (), self.ns, ctx))
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

    def _call_ctx(self, arity: int) -> Ctx:
        """Error context of ``call/N``: the library predicate that calls, or
        ``call/N`` (beyond ``call/8``, which SWI-Prolog compiles into its caller:
        the meta-call's)."""
        if self.owner is not None:
            return self.owner
        return ("system", "call", arity) if arity <= 8 else META_CALL

    def _raise_not_callable(self, goal: Any) -> None:
        term = goal if self.runtime else to_runtime(goal)
        m = deref(term)
        if type(m) is Struct and m.name == ":" and len(m.args) == 2:
            mod = deref(m.args[0])
            if type(mod) is not Atom and type(mod) is not Ref:
                raise type_error("module", mod, ctx_term(self.ctx))
        find_bad_module(term, self.ctx)
        raise type_error("callable", term, ctx_term(self.ctx))

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
        self, goal: Any, ctx: Ctx, stack: list[tuple[Any, Code]], codes: list[Code]
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
                    out.append((op.META, tm(args[0]), (), ns, self._call_ctx(1)))
            else:
                extra = tuple(tm(a) for a in args[1:])
                out.append((op.META, tm(args[0]), extra, ns, self._call_ctx(n)))
            return True
        if n == 1 and name == "not":
            out.append((op.NOT, self._goal_code(args[0], ("system", "not", 1), stack, codes)))
            return True
        if n == 1 and name in ("once", "ignore"):
            cond = self._goal_code(args[0], ("system", name, 1), stack, codes)
            otherwise = op.FAIL_CODE if name == "once" else op.TRUE_CODE
            out.append((op.ITE, cond, op.TRUE_CODE, otherwise))
            return True
        if n == 2 and name == "forall":
            inner = self._goal_code(args[0], _FORALL, stack, codes)
            inner.append((op.NOT, self._goal_code(args[1], _FORALL, stack, codes)))
            out.append((op.NOT, inner))
            return True
        if n == 2 and name == "^":
            out.extend(self._goal_code(args[1], ("system", "^", 2), stack, codes))
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
        if n == 3 and name == "setup_call_cleanup":
            out.append((op.SCC, tm(args[0]), tm(args[1]), tm(args[2]), ns))
            return True
        return False

    def _call(self, name: str, args: tuple[Any, ...]) -> tuple[Any, ...]:
        n = len(args)
        key = (name, n)
        if key in DENIED:
            return (op.DENY, name, n)
        if self.ns is self.system:
            special = self._internal(key, args)
            if special is not None:
                return special
        reflect = REFLECTION.get(key)
        if reflect is not None:
            return (op.REFLECT, reflect, *self._args(args, None), self.ns)
        builtin = BUILTINS.get(key)
        if builtin is not None:
            if n == 2 and not self.runtime and builtin.deterministic:
                arith = arith_instruction(name, args, builtin.fn, self.varmap)  # type: ignore[arg-type]
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

    def _internal(self, key: tuple[str, int], args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """A library-only primitive (``runtime.INTERNAL``, and the cut to a saved
        choicepoint height), or ``None``."""
        if key == CUT_TO:
            return (op.CUT_TO, self.tmpl(args[0]))
        internal = INTERNAL.get(key)
        if internal is None:
            return None
        kind = op.DET if internal.deterministic else op.NONDET
        return (kind, internal.fn, *self._args(args, None), internal)

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


def _qualify(module: Atom, arg: Any, runtime: bool) -> Any:
    a = deref(arg) if runtime else arg
    if type(a) is Struct and a.name == ":" and len(a.args) == 2:
        return arg
    return Struct(":", (module, arg))
