"""Rules of the history: history, moments remembered and read ``as_of`` later, reverts and diffs.

A moment is where a mounted memory stood, with what reads of it answered
there (schema, assumptions, a search, a listing); asked again ``as_of`` its
cursor later, across every change and restart, and again plainly after a
revert to it, each must answer as then (``WrongPast`` otherwise).
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from zpm_contract.calls import clauses, history, pools, recall
from zpm_contract.calls.arguments import with_context, with_memory, with_present
from zpm_contract.lockstep.case import DEFAULT, LockstepCase, Remembered
from zpm_contract.lockstep.comparison import describe
from zpm_contract.lockstep.failures import Call, WrongPast
from zpm_contract.rule_schedule import rule
from zpm_contract.server import ToolOutcome


class HistoryRules(LockstepCase):
    """The history of a memory, and its past: read ``as_of``, reverted to, diffed."""

    @rule(
        weight=3,
        data=st.data(),
        memory=pools.memory_targets,
        limit=history.history_limits,
        order=history.history_orders,
        client=history.history_clients,
        tool=history.history_tools,
    )
    def ask_history(
        self,
        data: st.DataObject,
        memory: str | None,
        limit: int | None,
        order: str | None,
        client: str | None,
        tool: str | None,
    ) -> None:
        """``history`` of a memory: whole, of a predicate given clauses, or of
        a handle an answer named, by a client or a tool; from and until a
        cursor an earlier answer gave or another moment; then, now and then,
        the page or the feed after it."""
        about = data.draw(st.sampled_from(["all", "all", "predicate", "handle"]))
        known = sorted({p for predicates in self.populated.values() for p in predicates})
        predicate = handle = None
        if about == "predicate" and known:
            name, arity = data.draw(st.sampled_from(known))
            predicate = f"{name}/{arity}"
        elif about == "handle":
            handle = data.draw(st.sampled_from([*self.history_handles, 42]))
        moments = st.one_of(
            st.none(), st.sampled_from(self.cursors or ["1"]), history.history_moments
        )
        since, until = data.draw(moments), data.draw(st.one_of(st.none(), moments))
        arguments = with_memory(
            with_present(
                predicate=predicate,
                handle=handle,
                client=client,
                tool=tool,
                since=since,
                until=until,
                order=order,
                limit=limit,
            ),
            memory,
        )
        answer = self.apply("history", arguments)
        following = self._heard(answer)
        if following is not None and data.draw(st.booleans()):
            self.apply("history", {**arguments, "since" if since else "cursor": following})

    @rule(weight=2, memory=pools.memory_targets, data=st.data())
    def remember_moment(self, memory: str | None, data: st.DataObject) -> None:
        """Remember where a mounted memory stands and what reads that see
        only it answer there: its schema, its assumptions, a search, and the
        listing of a predicate given clauses (handles and provenance)."""
        name = memory or DEFAULT
        if name not in (DEFAULT, *self.mounted):
            return
        stands = self.apply("history", with_memory({"limit": 1}, memory))
        if stands.is_error:
            return
        reads: list[Call] = [
            ("get_knowledge_schema", with_memory({}, memory)),
            ("list_assumptions", with_memory({}, memory)),
            ("search_facts", {"query": data.draw(recall.search_queries), "memory": name}),
        ]
        known = sorted(self.populated.get(name, set()))
        if known:
            predicate = data.draw(st.sampled_from(known))
            pattern = clauses.call_of(*predicate)
            reads.append(("matching", with_context({"pattern": pattern, "limit": 1000}, memory)))
        answers = tuple(self.apply(tool, arguments) for tool, arguments in reads)
        cursor = json.loads(stands.text)["now"]
        self.moments = [*self.moments, Remembered(name, cursor, tuple(reads), answers)][-6:]

    @rule(weight=3, when=LockstepCase._reach, data=st.data())
    def ask_as_of(self, data: st.DataObject) -> None:
        """Ask the reads of a remembered moment ``as_of`` its cursor (the
        memory still mounted, never deleted since): each must answer as it
        did then, after whatever changed, restarts included."""
        live = [m for m in self.moments if m.memory in (DEFAULT, *self.mounted)]
        if not live:
            return
        moment = data.draw(st.sampled_from(live))
        for (tool, arguments), then in zip(moment.reads, moment.answers, strict=True):
            now = self.apply(tool, {**arguments, "as_of": moment.cursor})
            if now != then:
                raise self._failed(
                    WrongPast(
                        f"step {self.step}: {describe(tool, arguments)} as_of {moment.cursor} "
                        f"of memory {moment.memory}\n  then: {then}\n  as_of: {now}\n"
                        + self._calls_so_far()
                    )
                )

    @rule(weight=2, data=st.data(), dry_run=st.sampled_from([None, True, False, False]))
    def revert_memory(self, data: st.DataObject, dry_run: bool | None) -> None:
        """Revert a mounted memory to a remembered moment: applied, the reads
        of the moment answer now as they did then (``WrongPast`` otherwise);
        or to another moment of any memory (ahead, a time, a mistake)."""
        live = [m for m in self.moments if m.memory in (DEFAULT, *self.mounted)]
        if not live or data.draw(st.integers(0, 3)) == 0:
            memory = data.draw(pools.memory_targets)
            to = data.draw(
                st.one_of(st.sampled_from(self.cursors or ["1"]), history.history_moments)
            )
            arguments = with_present(to=to, dry_run=dry_run, memory=memory)
            self.apply("revert_memory", arguments)
            return
        moment = data.draw(st.sampled_from(live))
        arguments = with_present(to=moment.cursor, dry_run=dry_run)
        answer = self.apply("revert_memory", with_memory(arguments, moment.memory))
        if answer.is_error or dry_run is not False:
            return
        for (tool, question), then in zip(moment.reads, moment.answers, strict=True):
            now = self.apply(tool, question)
            if now != then:
                raise self._failed(
                    WrongPast(
                        f"step {self.step}: {describe(tool, question)} after a revert to "
                        f"{moment.cursor} of memory {moment.memory}\n  then: {then}\n"
                        f"  now: {now}\n" + self._calls_so_far()
                    )
                )

    @rule(weight=2, memory=pools.memory_targets, data=st.data())
    def diff_memory(self, memory: str | None, data: st.DataObject) -> None:
        """What changed in a memory between two moments: remembered cursors,
        others, times and mistakes, until now or until another."""
        moments = st.one_of(st.sampled_from(self.cursors or ["1"]), history.history_moments)
        since, until = data.draw(moments), data.draw(st.one_of(st.none(), moments))
        arguments = with_memory(with_present(since=since, until=until), memory)
        self.apply("diff_memory", arguments)

    def _heard(self, answer: ToolOutcome) -> str | None:
        """Keep the cursors and handles a ``history`` answer gave; its next cursor."""
        if answer.is_error:
            return None
        found = json.loads(answer.text)
        self.cursors = sorted({*self.cursors, found["now"]})[-8:]
        for event in found["events"][:3]:
            self.history_handles = sorted({*self.history_handles, *event["handles"]})[-8:]
        following: str | None = found["next_cursor"]
        return following
