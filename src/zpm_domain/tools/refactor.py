"""find_predicate_references and rename_predicate (see ``zpm_domain.stored.references``
for what counts as a call, ``zpm_domain.changes.renaming`` for what a rename changes)."""

from __future__ import annotations

import json
import re
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Annotated, Any, cast

from zpm_domain.changes.describe import moved
from zpm_domain.changes.mutations import Mutation
from zpm_domain.changes.renaming import RenamePlan, RenamePredicate, plan_rename
from zpm_domain.errors import InvalidArguments, RenameRefused
from zpm_domain.memory import call_context
from zpm_domain.memory.conflicts import retried
from zpm_domain.memory.memory import Memory
from zpm_domain.memory.mounts import Memories
from zpm_domain.prolog.allowlist import is_protected
from zpm_domain.prolog.errors import PermissionDenied
from zpm_domain.prolog.terms import Term, indicator
from zpm_domain.prolog.writer import Renderer
from zpm_domain.stored.clauses import DENIALS
from zpm_domain.stored.references import calls, denied
from zpm_domain.tools import outputs
from zpm_domain.tools.definition import CHANGE, QUERY, Arg, Reply, ToolGroup, tool
from zpm_domain.tools.moments import AsOfArg, all_reading

ALL = "__all__"
_NAME = re.compile(r"[a-z][A-Za-z0-9_]*\Z")

ISO_OPERATORS = frozenset(
    (name, int(arity))
    for name, arity in (
        item.rsplit("/", 1)
        for item in r"""=/2 ,/2 ;/2 is/2 ->/2 \=/2 ==/2 \==/2 =../2 @</2 @>/2 @=</2 @>=/2 </2
        >/2 =</2 >=/2 +/2 -/2 */2 //2 :-/2 :-/1 \+/1 !/0""".split()
    )
)
"""The names no rename may take or give (the spec's list)."""


class RefactorTools(ToolGroup):
    @property
    def _memories(self) -> Memories:
        return self.context.memories

    @tool(
        QUERY,
        "Locate all usage sites of a Prolog predicate within the knowledge base. Returns "
        "every clause body containing the target predicate, the count of direct facts "
        "matching the predicate's functor/arity, TMS assumptions referencing the predicate, "
        "and module-qualified references from other memory segments. Essential for safe "
        "refactoring and understanding predicate dependencies. A body contains the predicate "
        "where it calls it: as a goal, in a control construct, or as the goal or closure of "
        "a meta-predicate (findall/3, \\+, maplist/2...); the G of a denial neg(G), in a head "
        "or a body, is a use too; a call qualified with another memory (`other:p(X)`) is a "
        "cross-memory reference.",
    )
    def find_predicate_references(
        self,
        functor: Annotated[str, Arg('The predicate functor to search for (e.g. "task_status")')],
        arity: Annotated[
            int | None,
            Arg(
                "The arity of the predicate (optional; when omitted, matches all arities of "
                "the functor)"
            ),
        ] = None,
        memory: Annotated[
            str | None,
            Arg(
                'Memory segment to search: a named segment, "default" for the default memory, '
                'or "__all__" to scan every mounted memory (default: "default")'
            ),
        ] = None,
        include_cross_memory_refs: Annotated[
            bool | None,
            Arg(
                "Include module-qualified references from other memory segments in the "
                "response (default: true)"
            ),
        ] = None,
        as_of: AsOfArg = None,
    ) -> Reply[outputs.References]:
        """Scanned memories in ``list_memories`` order; within one, predicates in
        definition order and clauses in order."""
        _check_name(functor, "functor")
        _check_arity(arity)
        scanned = self._memories.mounted() if memory == ALL else [self._memories.resolve(memory)]
        scanned = all_reading(self._memories, scanned, as_of)
        found = _References(functor, arity)
        for kb in scanned:
            kb.sync()
            found.scan(kb)
        answer: outputs.References = {
            "target": functor if arity is None else f"{functor}/{arity}",
            "memory": memory or "default",
            "rules": cast(list[outputs.RuleSite], found.rules),
            "direct_facts_count": found.facts,
            "facts_referenced_in_assumptions": cast(list[outputs.AssumptionSite], found.assumed),
            "cross_memory_refs": cast(
                list[outputs.CrossMemoryRef],
                found.cross if include_cross_memory_refs is not False else [],
            ),
        }
        return Reply.of(answer)

    @tool(
        CHANGE,
        "Atomically rename a Prolog functor across all facts, rules, TMS justifications, and "
        "optionally cross-memory references in the knowledge base. A dry-run mode previews "
        "changes without mutation. Protects against self-renames, name collisions, ambiguous "
        "arities, and built-in functor corruption.",
    )
    def rename_predicate(
        self,
        old_functor: Annotated[
            str, Arg("The current functor name to rename (must be a valid Prolog atom)")
        ],
        new_functor: Annotated[
            str,
            Arg(
                "The new functor name (must be a valid Prolog atom and not already exist with "
                "the same arity)"
            ),
        ],
        arity: Annotated[
            int | None,
            Arg(
                "The arity of the functor to rename (required if multiple arities exist). If "
                "omitted and only one arity exists, that arity is used. If omitted and "
                "multiple arities exist, returns an error listing detected arities."
            ),
        ] = None,
        memory: Annotated[
            str | None,
            Arg(
                "The target memory segment (default: 'default'). Must be writable (not "
                "mounted read-only)."
            ),
        ] = None,
        dry_run: Annotated[
            bool | None,
            Arg(
                "Preview mode: returns the full impact report without mutating the KB "
                "(default: false)"
            ),
        ] = None,
        propagate_cross_memory_refs: Annotated[
            bool | None,
            Arg(
                "When true, rewrite qualified references (e.g., 'segment:old_functor/N') in "
                "all writable mounted memories (default: false). Cross-memory impact is always "
                "reported regardless of this flag."
            ),
        ] = None,
    ) -> Reply[outputs.Rename]:
        """One journal batch per memory changed (the home memory first, then the
        memories whose qualified calls are rewritten, by name).  A dry run takes
        the same steps up to the commits and reports the same answer."""
        _check_arity(arity)
        if arity is not None:
            _check_iso(old_functor, arity)
            _check_iso(new_functor, arity)
        _check_name(old_functor, "old_functor")
        _check_name(new_functor, "new_functor")
        if old_functor == new_functor:
            raise RenameRefused("old_functor and new_functor are identical: self-rename is a no-op")
        kb = self._memories.resolve(memory)
        if kb.read_only:
            raise RenameRefused(f"Cannot rename in read-only memory: {kb.name}")
        preview = bool(dry_run)
        with nullcontext() if preview else kb.writing():
            if preview:
                kb.sync()
            arity = _arity(kb, old_functor, arity)
            if arity is None:
                return _report(RenamePlan(), [])
            _check_iso(old_functor, arity)
            _check_iso(new_functor, arity)
            _check_renamable(kb, old_functor, new_functor, arity)
            plan = plan_rename(kb, old_functor, new_functor, arity, None)
            renames: list[Mutation] = []
            if plan.changes:
                renames.append(RenamePredicate(old_functor, new_functor, arity, None, plan))
            renames += moved(kb.descriptions, old_functor, new_functor, arity)
            notes: list[str] = []
            if not preview and renames:
                notes = kb.commit(renames).notes()
        others = [other for other in self._memories.mounted() if other is not kb]
        impact = []
        for done, other in enumerate(others):
            call_context.advance(done, len(others), "checking the other memories")
            impact.append(
                self._propagate(other, kb.name, old_functor, new_functor, arity, preview)
                if not other.read_only and propagate_cross_memory_refs
                else (other, _qualified_plan(other, kb.name, old_functor, new_functor, arity))
            )
        call_context.advance(len(others), len(others), "checking the other memories")
        return _report(plan, impact, bool(propagate_cross_memory_refs)).with_notes(*notes)

    def _propagate(
        self, other: Memory, home: str, old: str, new: str, arity: int, preview: bool
    ) -> tuple[Memory, RenamePlan]:
        """Rewrite ``other``'s qualified calls; the home memory has changed
        already, so a lost race for ``other``'s journal is retried here."""

        def rewrite() -> RenamePlan:
            with nullcontext() if preview else other.writing():
                plan = _qualified_plan(other, home, old, new, arity)
                if not preview and plan.changes:
                    other.commit([RenamePredicate(old, new, arity, home, plan)])
            return plan

        return other, retried(rewrite)


@dataclass
class _References:
    """The uses of ``functor`` (of ``arity``, or of any arity when ``None``)
    found so far, in find_predicate_references' shape.  A denial
    ``neg(G)`` whose ``G`` names the predicate uses it: a denial fact counts
    as a fact of it, a denial rule is listed among the rules, and the
    assumptions of a denial fact are listed with its own."""

    functor: str
    arity: int | None
    rules: list[dict[str, Any]] = field(default_factory=list)
    cross: list[dict[str, Any]] = field(default_factory=list)
    assumed: list[dict[str, Any]] = field(default_factory=list)
    facts: int = 0
    renderer: Renderer = field(default_factory=Renderer)

    def names(self, key: tuple[str, int]) -> bool:
        return key[0] == self.functor and self.arity in (None, key[1])

    def denies(self, head: Term) -> bool:
        """Whether ``head`` is a denial of the predicate: ``neg(G)``, ``G`` naming it."""
        goal = denied(head)
        return goal is not None and self.names(indicator(goal))

    def scan(self, kb: Memory) -> None:
        """Add the uses in ``kb``: predicates in definition order, clauses in order."""
        for info in kb.predicates():
            targeted = self.names(info.key)
            denials = info.key == DENIALS
            for clause in kb.clauses(*info.key):
                denies = denials and self.denies(clause.head)
                if clause.is_fact:
                    self.facts += targeted or denies
                else:
                    self._rule(kb, clause.head, clause.body, denies)
            if targeted or denials:
                for support in kb.supported(info.key):
                    if targeted or self.denies(support.fact):
                        fact = self.renderer.render(support.fact)
                        self.assumed.extend(
                            {"assumption": name, "fact": fact, "memory": kb.name}
                            for name in support.assumptions
                        )

    def _rule(self, kb: Memory, head: Term, body: Term, denies: bool) -> None:
        """List the rule ``head :- body`` of ``kb`` where it uses the predicate:
        among ``rules`` when its head denies it or its body calls it in
        ``kb``, among ``cross`` once per other memory its body calls it in."""
        qualifiers = {c.qualifier: None for c in calls(body) if self.names((c.name, c.arity))}
        local = denies or None in qualifiers or kb.name in qualifiers
        if not local and not qualifiers:
            return
        text = {"head": self.renderer.render(head), "body": self.renderer.render(body)}
        if local:
            self.rules.append({**text, "memory": kb.name})
        for qualifier in qualifiers:
            if qualifier not in (None, kb.name):
                self.cross.append({**text, "memory": kb.name, "qualifier": qualifier})


def _qualified_plan(memory: Memory, home: str, old: str, new: str, arity: int) -> RenamePlan:
    memory.sync()
    return plan_rename(memory, old, new, arity, home)


def _report(
    plan: RenamePlan, impact: list[tuple[Memory, RenamePlan]], propagate: bool = False
) -> Reply[outputs.Rename]:
    renderer = Renderer()
    rewritten: list[outputs.RewrittenMemory] = []
    warnings: list[outputs.UnchangedMemory] = []
    skipped: list[outputs.UnchangedMemory] = []
    for memory, found in impact:
        refs = len(found.rules)
        if not refs:
            continue
        if memory.read_only:
            skipped.append({"memory": memory.name, "refs": refs, "reason": "read-only"})
        elif propagate:
            rewritten.append({"memory": memory.name, "rules_updated": refs})
        else:
            reason = "propagate_cross_memory_refs=false"
            warnings.append({"memory": memory.name, "refs": refs, "reason": reason})
    answer: outputs.Rename = {
        "renamed_facts": plan.renamed_facts,
        "rewritten_rule_bodies": len(plan.rules),
        "affected_rule_ids": [renderer.render(rule.head) for rule in plan.rules],
        "cross_memory_impact": {
            "rewritten": rewritten,
            "warnings": warnings,
            "skipped_readonly": skipped,
        },
        "is_error": False,
    }
    return Reply(json.dumps(answer, ensure_ascii=False), answer)


def _arity(memory: Memory, name: str, arity: int | None) -> int | None:
    """The arity to rename: the given one, else the only one ``name`` has
    clauses with (``None`` when it has none)."""
    if arity is not None:
        return arity
    found = sorted(i.arity for i in memory.predicates() if i.name == name and i.clause_count)
    if len(found) > 1:
        listed = ", ".join(str(n) for n in found)
        raise RenameRefused(
            f"Ambiguous arity for {name}; detected arities: {listed}. Specify arity parameter."
        )
    if not found:
        for operator, operator_arity in sorted(ISO_OPERATORS):
            if operator == name:
                _check_iso(name, operator_arity)
        return None
    return found[0]


def _check_renamable(memory: Memory, old: str, new: str, arity: int) -> None:
    for name in (old, new):
        if is_protected(name, arity):
            raise PermissionDenied.builtin(name, arity)
    files = memory.file_clauses(old, arity)
    if files:
        raise PermissionDenied(
            f"Cannot rename {old}/{arity}: it has clauses from knowledge file {files[0][1]}, "
            "and tools do not change knowledge files"
        )
    if memory.clauses(new, arity):
        raise RenameRefused(
            f"Cannot rename: {new}/{arity} already exists in memory '{memory.name}'"
        )


def _check_iso(name: str, arity: int) -> None:
    if (name, arity) in ISO_OPERATORS:
        raise RenameRefused(f"Cannot rename ISO operator: {name}/{arity}")


def _check_name(name: str, what: str) -> None:
    if not _NAME.match(name):
        raise InvalidArguments(
            f"{what} must be a plain Prolog name (a lowercase letter, then letters, digits "
            f"or underscores), not {name!r}"
        )


def _check_arity(arity: int | None) -> None:
    if arity is not None and arity < 0:
        raise InvalidArguments(f"arity must be 0 or more, not {arity}")
