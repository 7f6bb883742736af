"""A memory's knowledge files (``.zpm/kb/*.pl``, or a memory's ``knowledge.pl``):
loading them, and the clauses and declarations they gave it.

Its clauses are monotonic: no tool removes or changes them.  Their
predicate is static unless the file declares it with
``:- dynamic(Name/Arity)`` first, as in ISO/SWI-Prolog; then tools may add
clauses to it.  Directives are
never executed: ``dynamic`` and ``discontiguous`` are understood, a
``module/2`` header is accepted (a memory is a namespace of its own), every
other directive is skipped with a warning.  A clause that does not read, that
defines a built-in, or whose body calls something outside the allow-list is
skipped with a warning naming the file and line; the rest of the file loads.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial

from zpm_domain.beliefs.defeat import Defeats
from zpm_domain.constraints.declared import Constraints, Functional, Integrity
from zpm_domain.constraints.policy import NAMES, Policy, check_integrity_policy
from zpm_domain.errors import InvalidArguments, InvalidClause
from zpm_domain.ports.engine import Engine
from zpm_domain.prolog.allowlist import is_protected
from zpm_domain.prolog.errors import PermissionDenied, SandboxViolation
from zpm_domain.prolog.reader import read_clauses
from zpm_domain.prolog.sandbox import check_goal
from zpm_domain.prolog.terms import Atom, Struct, Term, indicator_of, list_items
from zpm_domain.stored.clauses import DENIALS, Clause
from zpm_domain.stored.descriptions import INTEGRITY
from zpm_domain.stored.handles import UNRECORDED, FileNumbering
from zpm_domain.stored.provenance import Provenance

log = logging.getLogger("zpm")

Key = tuple[str, int]


class KnowledgeFiles:
    """What the knowledge files gave one memory, in the engine namespace
    ``namespace``: their clauses (monotonic: no tool removes or changes
    them), which predicates are static, and the functional declarations
    (into ``defeats``).  An engine keeps a predicate's file clauses before
    the clauses tools stored.

    ``memory_id`` is the id whose handles the files' clauses take (a fork's
    are its base's, see ``zpm_domain.stored.handles``); set it before loading.
    """

    def __init__(
        self, engine: Engine, namespace: str, defeats: Defeats, constraints: Constraints
    ) -> None:
        self._engine = engine
        self._namespace = namespace
        self._defeats = defeats
        self._constraints = constraints
        self.memory_id = UNRECORDED
        self._wheres: dict[Key, list[str]] = {}
        self._static: set[Key] = set()
        self._declared_dynamic: set[Key] = set()
        self._numbering = FileNumbering()
        self._positions: dict[str, int] = {}
        self._names: dict[str, str] = {}

    def load(self, text: str, label: str, name: str | None = None) -> list[str]:
        """Load knowledge file ``text``, read from ``label`` and named ``name``
        in handles and provenance (``label`` when ``None``); returns the
        warnings (also logged)."""
        self._names[label] = name or label
        return consult_text(self, text, label)

    # -- reading ----------------------------------------------------------------
    def is_static(self, key: Key) -> bool:
        """Whether the files define ``key`` without declaring it dynamic (tools
        may not change it)."""
        return key in self._static

    def count(self, key: Key) -> int:
        """How many clauses of ``key`` the files gave."""
        return len(self._wheres.get(key, ()))

    def keys(self) -> list[Key]:
        """The predicates the files gave clauses to, in first-loaded order."""
        return list(self._wheres)

    def clauses(self, key: Key) -> list[tuple[Clause, str]]:
        """The file clauses of ``key`` with their ``file:line`` (read lazily
        from the engine: the stored clauses after them are not read)."""
        wheres = self._wheres.get(key, [])
        return list(zip(self._engine.iter_clauses(self._namespace, *key), wheres))

    def facts(self, key: Key) -> list[Clause]:
        """The file clauses of ``key``, without their places."""
        return [clause for clause, _ in self.clauses(key)]

    # -- loading ----------------------------------------------------------------
    def add_clause(self, clause: Clause, label: str, line: int) -> None:
        """Add the clause at ``line`` of knowledge file ``label``.

        Its predicate is static, unless the file declared it dynamic first
        (then tools may add clauses to it); denials (``neg/1``) are always
        dynamic, so clients may add denials beside the files' own.  Its
        handle comes from the file's name and the clause's position in it.
        """
        key = clause.key
        if is_protected(*key):
            raise PermissionDenied.builtin(*key)
        name = self._names.get(label, label)
        position = self._positions.get(name, 0)
        handle = self._numbering.handle(self.memory_id, name, position)
        clause = clause.stamped(handle, Provenance.of_file(name, line))
        if key == DENIALS and key not in self._declared_dynamic:
            self.declare_dynamic(*key)
        self._engine.add_clause(self._namespace, clause, static=True)
        self._positions[name] = position + 1
        self._wheres.setdefault(key, []).append(f"{label}:{line}")
        if key not in self._declared_dynamic:
            self._static.add(key)

    def declare_dynamic(self, name: str, arity: int) -> None:
        """A knowledge file's ``:- dynamic(name/arity)``."""
        if is_protected(name, arity):
            raise PermissionDenied.builtin(name, arity)
        if (name, arity) in self._static:
            raise PermissionDenied.static(name, arity)
        self._declared_dynamic.add((name, arity))
        self._engine.declare_dynamic(self._namespace, name, arity)

    def declare_functional(
        self, name: str, arity: int, label: str, line: int, policy: Policy | None = None
    ) -> None:
        """A knowledge file's ``:- functional(name/arity)`` (or
        ``functional(name/arity, Policy)``) at ``line`` of ``label``: the
        predicate is dynamic, its facts are defeated as
        ``zpm_domain.beliefs.defeat`` says, and the facts tools store follow
        ``policy`` (``None``: the memory's default) among themselves
        (``zpm_domain.constraints``)."""
        if arity == 0:
            raise InvalidClause(f"{name}/0 cannot be functional: it has no argument")
        self.declare_dynamic(name, arity)
        where = f"{self._names.get(label, label)}:{line}"
        self._defeats.declare(name, arity, where)
        self._constraints.declare(Functional((name, arity), policy, where))

    def declare_policy(self, name: str, arity: int, label: str, line: int, policy: Policy) -> None:
        """A knowledge file's ``:- policy(integrity_violation/N, Policy)`` at
        ``line`` of ``label``: a write that makes that integrity rule find a
        violation it did not find follows ``policy`` (``refuse`` or ``keep``;
        ``zpm_domain.constraints.integrity``)."""
        if name != INTEGRITY:
            raise InvalidClause(
                f"policy/2 declares the policy of an integrity rule ({INTEGRITY}/N); "
                f"declare {name}/{arity} with functional/2"
            )
        check_integrity_policy(policy)
        where = f"{self._names.get(label, label)}:{line}"
        self._constraints.declare_integrity(Integrity((name, arity), policy, where))


def consult_text(files: KnowledgeFiles, text: str, source: str) -> list[str]:
    """Load the clauses of ``text`` into ``files``; returns the warnings (also logged)."""
    warnings: list[str] = []

    def warn(line: int, message: str) -> None:
        warning = f"{source}:{line}: {message}"
        warnings.append(warning)
        log.warning("%s", warning)

    for item in read_clauses(text):
        if item.error is not None:
            warn(item.error.line, f"syntax error: {item.error.message}")
            continue
        term = item.term
        assert term is not None
        if isinstance(term, Struct) and term.name == ":-" and len(term.args) == 1:
            _directive(files, term.args[0], partial(warn, item.line), source, item.line)
            continue
        if isinstance(term, Struct) and term.name in ("-->", "?-"):
            warn(item.line, f"skipped: {term.name} clauses are not supported")
            continue
        clause = Clause.from_term(term)
        if not isinstance(clause.head, (Atom, Struct)):
            warn(item.line, "skipped: a clause head must be an atom or a compound term")
            continue
        try:
            check_goal(clause.body)
            files.add_clause(clause, source, item.line)
        except (PermissionDenied, SandboxViolation) as exc:
            warn(item.line, f"skipped: {exc.message}")
    return warnings


def _directive(
    files: KnowledgeFiles, goal: Term, warn: Callable[[str], None], label: str, line: int
) -> None:
    if isinstance(goal, Struct) and len(goal.args) == 1 and goal.name == "dynamic":
        for spec in _indicators(goal.args[0]):
            if spec is None:
                warn("skipped: dynamic/1 expects Name/Arity indicators")
                continue
            try:
                files.declare_dynamic(*spec)
            except PermissionDenied as exc:
                warn(f"skipped: {exc.message}")
        return
    if isinstance(goal, Struct) and len(goal.args) in (1, 2) and goal.name == "functional":
        policy = None
        if len(goal.args) == 2:
            named = goal.args[1]
            if not isinstance(named, Atom) or named.name not in NAMES:
                warn(f"skipped: the policy of functional/2 is one of {', '.join(NAMES)}")
                return
            policy = Policy(named.name)
        for spec in _indicators(goal.args[0]):
            if spec is None:
                warn(f"skipped: functional/{len(goal.args)} expects Name/Arity indicators")
                continue
            try:
                files.declare_functional(*spec, label, line, policy)
            except (PermissionDenied, InvalidClause) as exc:
                warn(f"skipped: {exc.message}")
        return
    if isinstance(goal, Struct) and len(goal.args) == 2 and goal.name == "policy":
        named = goal.args[1]
        if not isinstance(named, Atom) or named.name not in NAMES:
            warn(f"skipped: the policy of policy/2 is one of {', '.join(NAMES)}")
            return
        for spec in _indicators(goal.args[0]):
            if spec is None:
                warn("skipped: policy/2 expects Name/Arity indicators")
                continue
            try:
                files.declare_policy(*spec, label, line, Policy(named.name))
            except (InvalidClause, InvalidArguments) as exc:
                warn(f"skipped: {exc.message}")
        return
    if isinstance(goal, Struct) and goal.name == "discontiguous" and len(goal.args) == 1:
        return
    if isinstance(goal, Struct) and goal.name == "module" and len(goal.args) == 2:
        return  # a memory is a namespace of its own already
    warn(
        "skipped a directive: knowledge files may only declare dynamic and functional "
        "predicates and integrity rules' policies"
    )


def _indicators(spec: Term) -> list[tuple[str, int] | None]:
    """``a/1``, ``(a/1, b/2)`` or ``[a/1, b/2]`` as (name, arity) pairs."""
    out: list[tuple[str, int] | None] = []
    stack: list[Term] = [spec]
    while stack:
        t = stack.pop()
        if isinstance(t, Struct) and t.name == "," and len(t.args) == 2:
            stack.extend(reversed(t.args))
        elif isinstance(t, Struct) and t.name == "[|]":
            items, _ = list_items(t)
            stack.extend(reversed(items))
        else:
            out.append(indicator_of(t))
    return out
