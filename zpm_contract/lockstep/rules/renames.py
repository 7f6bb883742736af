"""Rules of references and renames: find_predicate_references and rename_predicate."""

from __future__ import annotations

from hypothesis import strategies as st

from zpm_contract.calls import pools
from zpm_contract.calls.arguments import with_present
from zpm_contract.lockstep.bundles import Predicate, predicates
from zpm_contract.lockstep.case import DEFAULT, LockstepCase
from zpm_contract.rule_schedule import rule


class RenameRules(LockstepCase):
    """References (one memory, ``__all__``) and renames (dry runs, propagation, collisions)."""

    @rule(
        weight=2,
        predicate=predicates,
        with_arity=st.booleans(),
        scope=pools.reference_scopes,
        cross=st.sampled_from([None, True, False]),
    )
    def references(
        self, predicate: Predicate, with_arity: bool, scope: str | None, cross: bool | None
    ) -> None:
        arguments = with_present(
            functor=predicate[0],
            arity=predicate[1] if with_arity else None,
            memory=scope,
            include_cross_memory_refs=cross,
        )
        self.apply("find_predicate_references", arguments)

    @rule(
        weight=2,
        target=predicates,
        predicate=predicates,
        data=st.data(),
        new=pools.rename_targets,
        with_arity=st.booleans(),
        dry_run=st.sampled_from([None, False, False, True]),
        propagate=st.sampled_from([None, False, True]),
        memory=pools.memory_targets,
    )
    def rename_predicate(
        self,
        predicate: Predicate,
        data: st.DataObject,
        new: str,
        with_arity: bool,
        dry_run: bool | None,
        propagate: bool | None,
        memory: str | None,
    ) -> Predicate:
        """Rename a known predicate, with or without a dry run and propagation
        to the memories that call it qualified; then ask who calls the new name.
        Half the time, a predicate of facts and rules is renamed when there is one."""
        take_mixed: bool = bool(self.mixed) and data.draw(st.booleans(), label="mixed")
        if take_mixed:
            predicate = data.draw(st.sampled_from(sorted(self.mixed)), label="predicate")
        name, arity = predicate
        arguments = with_present(
            old_functor=name,
            new_functor=new,
            arity=arity if with_arity else None,
            memory=memory,
            dry_run=dry_run,
            propagate_cross_memory_refs=propagate,
        )
        if not self.apply("rename_predicate", arguments).is_error and not dry_run:
            self.populated[memory or DEFAULT].add((new, arity))
            for other in self._memories():
                self.populated[other or DEFAULT].add((new, arity))
        references = {"functor": new, "arity": arity, "memory": "__all__"}
        self.apply("find_predicate_references", references)
        return (new, arity)
