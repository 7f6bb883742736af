"""Rules of forks: made of any memory, written in, changed on both sides, merged, deleted.

Forks ``fork_a`` and ``fork_b`` are made of any memory, written in and
merged after the same fact was changed in a fork and in its base, so merges
meet conflicts, won by either side for all or per handle; forks and named
memories are deleted (and may be made again).
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from zpm_contract.calls import clauses, pools
from zpm_contract.calls.arguments import with_memory, with_present
from zpm_contract.lockstep.bundles import facts
from zpm_contract.lockstep.case import DEFAULT, LockstepCase
from zpm_contract.rule_schedule import rule

SIDE_CHANGES = ("update", "update", "upsert", "unassert", "forget")
"""What ``change_both_sides`` does to a fact on each side."""


class ForkRules(LockstepCase):
    """fork_memory, writes in forks, merge_memory (with conflicts) and delete_memory."""

    @rule(weight=2, name=pools.fork_names, base=pools.memory_targets)
    def fork_memory(self, name: str, base: str | None) -> None:
        """Fork ``default``, a named memory or a fork (names from a small pool:
        taken ones are refused)."""
        arguments = with_present(name=name, **{"from": base})
        if not self.apply("fork_memory", arguments).is_error:
            self.mounted.add(name)
            self.fork_bases[name] = base or DEFAULT

    @rule(
        weight=2,
        name=pools.fork_names,
        fact=facts,
        tool=st.sampled_from(["remember_fact", "assert", "unassert", "assume_fact", "forget"]),
    )
    def fork_write(self, name: str, fact: str, tool: str) -> None:
        """A write in a fork (refused when the fork does not exist)."""
        if tool == "assert":
            self.apply("assert", {"sentence": fact, "context": name})
        elif tool == "unassert":
            self.apply("unassert", {"sentence": clauses.open_call(fact), "context": name})
        elif tool == "assume_fact":
            self.apply("assume_fact", {"fact": fact, "assumption": "plan", "memory": name})
        elif tool == "forget":
            self.apply("forget_fact", {"fact": fact, "memory": name})
        else:
            self.apply(tool, {"fact": fact, "memory": name})

    @rule(
        weight=2,
        target=facts,
        name=pools.fork_names,
        fact=facts,
        base=pools.memory_targets,
        changes=st.tuples(st.sampled_from(SIDE_CHANGES), st.sampled_from(SIDE_CHANGES)),
        values=st.tuples(clauses.constants, clauses.constants),
        then=st.sampled_from([None, "merge", "merge", "merge"]),
        data=st.data(),
    )
    def change_both_sides(
        self,
        name: str,
        fact: str,
        base: str | None,
        changes: tuple[str, str],
        values: tuple[str, str],
        then: str | None,
        data: st.DataObject,
    ) -> str:
        """The same fact changed in a fork and in the memory it was forked
        from (``update_fact`` or ``upsert_fact`` to another last argument,
        ``unassert``, ``forget_fact``), so that merges meet conflicts; a fork
        that does not exist yet is made first, of a memory that holds the
        fact.  Then, most of the time, a merge."""
        if name not in self.fork_bases:
            self.apply("remember_fact", with_memory({"fact": fact}, base))
            self._added(fact, base)
            self.fork_memory(name, base)
        origin = self.fork_bases.get(name, DEFAULT)
        for memory, change, value in zip((origin, name), changes, values):
            new = _revalued(fact, value)
            if change == "update":
                self.apply("update_fact", {"old_fact": fact, "new_fact": new, "memory": memory})
            elif change == "upsert":
                self.apply("upsert_fact", {"fact": new, "memory": memory})
            elif change == "unassert":
                self.apply("unassert", {"sentence": fact, "context": memory})
            else:
                self.apply("forget_fact", {"fact": fact, "memory": memory})
            self._added(new, None if memory == DEFAULT else memory)
        if then is not None:
            self._merge(name, data)
        return _revalued(fact, values[1])

    @rule(weight=2, name=st.one_of(pools.fork_names, pools.memory_names), data=st.data())
    def merge_memory(self, name: str, data: st.DataObject) -> None:
        """Merge a fork into its base, or preview it (see ``_merge``); a
        memory that is not a fork, or an unknown name, is refused."""
        self._merge(name, data)

    def _merge(self, name: str, data: st.DataObject) -> None:
        """``merge_memory`` of ``name``, a dry run or not, with or without a
        side that wins every conflict, and with or without a winner per
        conflict (the handles of a preview's conflicts, or one that is none)."""
        dry_run = data.draw(st.booleans(), label="dry_run")
        prefer = data.draw(st.sampled_from([None, None, "base", "fork"]), label="prefer")
        resolve = data.draw(
            st.sampled_from([None, None, None, "first", "all", "stray"]), label="resolve"
        )
        arguments = with_present(name=name, dry_run=dry_run or None, prefer=prefer)
        if resolve is not None:
            preview = self.apply("merge_memory", {"name": name, "dry_run": True})
            handles = [] if preview.is_error else _conflict_handles(preview.text)
            if resolve == "first":
                handles = handles[:1]
            sides = data.draw(
                st.lists(
                    st.sampled_from(["base", "fork"]),
                    min_size=len(handles),
                    max_size=len(handles),
                ),
                label="sides",
            )
            pairs = [f"{h}-{side}" for h, side in zip(handles, sides)]
            arguments["resolve"] = "[42-fork]" if resolve == "stray" else f"[{', '.join(pairs)}]"
        self.apply("merge_memory", arguments)

    @rule(
        weight=3,
        unmount_first=st.sampled_from([True, True, True, False]),
        scope=st.sampled_from([None, None, None, "project", "global"]),
        data=st.data(),
    )
    def delete_memory(self, unmount_first: bool, scope: str | None, data: st.DataObject) -> None:
        """Delete a fork (one the machine made, or another name) or a named memory, unmounted
        first or not (refused while it is mounted, while forks were made from
        it, and for ``default``); a deleted name may be created or forked again."""
        names = [*sorted(self.fork_bases), *pools.MEMORY_NAMES, "fork_b", DEFAULT, "ghost"]
        name = data.draw(st.sampled_from(names), label="name")
        if unmount_first and not self.apply("unmount_memory", {"name": name}).is_error:
            self.mounted.discard(name)
        if not self.apply("delete_memory", with_present(name=name, scope=scope)).is_error:
            self.mounted.discard(name)
            self.fork_bases.pop(name, None)
            self._forget_moments(name)


def _revalued(fact: str, value: str) -> str:
    """``fact`` with ``value`` as its last argument (the same predicate and
    first argument: another value for the same key); a ``link/2`` fact keeps
    its order (``reach/2`` over ``link/2`` must end), a one-argument fact is
    kept as it is."""
    name, _, rest = fact.partition("(")
    args = rest[:-1].split(", ")
    if len(args) < 2:
        return fact
    if name == "link":
        return f"link({args[0]}, {int(args[0]) + 4})"
    return f"{name}({', '.join([*args[:-1], value])})"


def _conflict_handles(text: str) -> list[int]:
    """The handles of the conflicts a ``merge_memory`` answer lists."""
    return [conflict["handle"] for conflict in json.loads(text)["conflicts"]]
