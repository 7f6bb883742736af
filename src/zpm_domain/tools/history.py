"""The time tools (``zpm_domain.history``): ``history`` (what changed in a
memory, when, by whom, with which tool; the changes feed), ``diff_memory``
(what changed between two moments) and ``revert_memory`` (back to a
moment, as one change)."""

from __future__ import annotations

import functools
from typing import Annotated, cast

from zpm_domain.constraints import functional
from zpm_domain.constraints.policy import Policy
from zpm_domain.errors import ConstraintViolated, InvalidArguments
from zpm_domain.history.cursor import Cursor, Moment
from zpm_domain.history.diff import diff
from zpm_domain.history.events import Event
from zpm_domain.history.past import as_of
from zpm_domain.history.recent import answer
from zpm_domain.history.revert import MAX_LISTED, plan_revert
from zpm_domain.history.timeline import Question
from zpm_domain.prolog.writer import indicator_text
from zpm_domain.stored.handles import is_handle
from zpm_domain.stored.provenance import iso_time
from zpm_domain.tools import history_outputs
from zpm_domain.tools.definition import CHANGE, QUERY, Arg, MemoryArg, Reply, ToolGroup, tool
from zpm_domain.tools.inputs import parse_indicator

MAX_LIMIT = 1000
DEFAULT_LIMIT = 50
ORDERS = ("newest", "oldest")


class HistoryTools(ToolGroup):
    @tool(
        QUERY,
        "What changed in a memory: each change with when, who (client), which tool and the "
        "cursor after it; about one clause (handle), one predicate or everything. With "
        "since (a cursor or a time), the changes feed: every change after it, oldest first, "
        "and next_cursor to ask from next time.",
        details="Changes are kept across saves, restores and imports. Events: stored, "
        "assumed, held plainly, support taken, removed, withdrawn, described, renamed, "
        "assumption retracted, reverted, merged, saved, restored, imported, forked, "
        "started. A predicate's history follows it through renames. Times are ISO 8601 "
        "(UTC when no zone is given), to the second.",
    )
    def history(
        self,
        memory: MemoryArg = None,
        handle: Annotated[
            int | None, Arg("Only the changes of the clause with this handle")
        ] = None,
        predicate: Annotated[
            str | None, Arg('Only the changes of this predicate, as name/arity (e.g. "owner/2")')
        ] = None,
        client: Annotated[str | None, Arg("Only the changes this client made")] = None,
        tool: Annotated[str | None, Arg("Only the changes this tool made")] = None,
        since: Annotated[
            str | None,
            Arg("A cursor or an ISO 8601 time: only what changed after it, oldest first"),
        ] = None,
        until: Annotated[
            str | None,
            Arg(
                "A cursor (itself included) or an ISO 8601 time (excluded): only what changed "
                "up to it"
            ),
        ] = None,
        order: Annotated[
            str | None,
            Arg('"newest" first or "oldest" first (default newest; oldest with since)'),
        ] = None,
        limit: Annotated[
            int | None,
            Arg(f"How many changes to return, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"),
        ] = None,
        cursor: Annotated[
            str | None, Arg("Where to continue: the next_cursor of the previous page")
        ] = None,
    ) -> Reply[history_outputs.History]:
        """One page of events in the order asked.  Without ``since``,
        ``next_cursor`` continues the page (``null`` on the last); with it,
        it is where to ask from next time: after the last event returned,
        or where the memory stands when nothing more is there."""
        take = DEFAULT_LIMIT if limit is None else limit
        if not 1 <= take <= MAX_LIMIT:
            raise InvalidArguments(f"limit must be from 1 to {MAX_LIMIT}, not {take}")
        if order is not None and order not in ORDERS:
            raise InvalidArguments(f'order must be "newest" or "oldest", not {order!r}')
        if handle is not None and not is_handle(handle):
            raise InvalidArguments(
                f"handle must be a clause handle: a positive integer below 2^53, not {handle}"
            )
        start = None if since is None else Moment.parse(since, "since")
        question = Question(
            handle=handle,
            key=None if predicate is None else parse_indicator(predicate),
            client=client,
            tool=tool,
            since=start,
            until=None if until is None else Moment.parse(until, "until"),
            newest_first=(order or ("oldest" if since is not None else "newest")) == "newest",
            page=None if cursor is None else Cursor.parse(cursor, "cursor"),
            limit=take,
        )
        line, chosen = answer(self.context.memories.resolve(memory), question)
        events = [_event(event) for event in chosen.events]
        if chosen.more:
            following: str | None = chosen.events[-1].cursor.text
        elif start is not None:
            following = line.now.text
        else:
            following = None
        return Reply.of(
            {
                "events": events,
                "count": len(events),
                "next_cursor": following,
                "now": line.now.text,
            }
        )

    @tool(
        QUERY,
        "What changed in a memory between two moments (each a cursor or an ISO 8601 time; "
        "until defaults to now), net: clauses stored, removed, withdrawn or renamed, "
        "supports given or taken, descriptions changed.",
        details="The changes are listed as zpm forks diff lists a fork's, in the order a "
        "merge would apply them.",
        cli_aliases=("diff",),
    )
    def diff_memory(
        self,
        since: Annotated[str, Arg("The earlier moment: a cursor from history or a time")],
        until: Annotated[
            str | None, Arg("The later moment: a cursor or a time (default: now)")
        ] = None,
        memory: MemoryArg = None,
    ) -> Reply[history_outputs.MemoryDiff]:
        kb = self.context.memories.resolve(memory)
        before = as_of(kb, Moment.parse(since, "since"))
        after = kb if until is None else as_of(kb, Moment.parse(until, "until"))
        found = diff(before, after)
        return Reply.of(
            cast(
                history_outputs.MemoryDiff,
                {
                    "memory": kb.name,
                    "since": str(before.batches),
                    "until": str(after.batches),
                    **found,
                },
            )
        )

    @tool(
        CHANGE,
        "Bring a memory back to a moment (a cursor from history or an ISO 8601 time): "
        "clauses, their order, supports and descriptions as they were then. A dry run by "
        "default, listing what it would store, remove and withdraw; with dry_run false, "
        "one change, which history shows as a revert and which can itself be reverted.",
        details="Applied, the memory starts afresh from its state then, as a restore does: "
        "the order of clauses, predicates and assumptions too. A clause a knowledge file "
        "has made static since cannot come back: it is listed in skipped.",
        cli_aliases=("revert",),
    )
    def revert_memory(
        self,
        to: Annotated[str, Arg("The moment to go back to: a cursor from history or a time")],
        dry_run: Annotated[bool | None, Arg("Only list what it would do (default true)")] = None,
        memory: MemoryArg = None,
    ) -> Reply[history_outputs.Reverted]:
        moment = Moment.parse(to, "to")
        kb = self.context.memories.resolve(memory)
        rehearse = dry_run is not False
        with kb.writing():
            then = as_of(kb, moment)
            planned = plan_revert(kb, then)
            back = [] if then is kb else functional.brought_back(kb, then, then.descriptions)
            refused = [c for c in back if c.policy is Policy.REFUSE]
            if refused and not rehearse:
                raise ConstraintViolated(refused[0].refusal(), refused[0].replacing())
            made = (
                [] if then is kb else kb.check_integrity(planned.mutations, rehearse=True).foreseen
            )
            forbidden = [v for v in made if v.policy is Policy.REFUSE]
            if forbidden and not rehearse:
                refusal = (
                    forbidden[0].refusal(len(forbidden) - 1).replace("the write", "the revert")
                )
                raise ConstraintViolated(refusal, forbidden[0].replacing())
            if not rehearse and then is not kb:
                kb.revert_to(then.locked_image(), then.batches)
            stands = kb.batches
        report = {
            "memory": kb.name,
            "to": str(then.batches),
            "dry_run": rehearse,
            "applied": planned.applied,
            "operations": planned.operations[:MAX_LISTED],
            "skipped": planned.skipped[:MAX_LISTED],
            "now": str(stands),
        }
        if back:
            report["constraints"] = [conflict.row() for conflict in back]
        if made:
            report["violations"] = [violation.row() for violation in made]
        return Reply.of(cast(history_outputs.Reverted, report))


def _event(event: Event) -> history_outputs.HistoryEvent:
    key = event.key
    return {
        "cursor": event.cursor.text,
        "at": iso_time(event.ts),
        "event": cast(history_outputs.Kind, event.kind),
        "text": event.text,
        "predicate": None if key is None else _indicator(key),
        "handles": list(event.handles),
        "tool": event.tool,
        "client": event.client,
    }


@functools.lru_cache(maxsize=1024)
def _indicator(key: tuple[str, int]) -> str:
    """``name/arity`` as Prolog text (a history names few predicates, often)."""
    return indicator_text(key[0], key[1])
