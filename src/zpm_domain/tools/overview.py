"""get_kb_overview: one call that says what the default memory holds (in a
session that works on its own fork, ``zpm serve --fork``: that fork).

The answer is the spec's first description of the tool: predicates with
sample clauses, assumptions, snapshots, persistence health and mounts, as
compact JSON of at most 64 KiB.  A described predicate's entry ends with its
``description`` and ``arguments`` (``zpm_domain.stored.descriptions``); every other
entry is exactly the spec's.  When the whole answer would be larger, the
number of samples is lowered for every predicate alike (to the largest
number that fits); only when no samples at all still do not fit are
predicates left out, from the last one, and ``truncated`` is true whenever
anything was cut.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any, cast

from zpm_domain.memory import call_context
from zpm_domain.memory.memory import Memory
from zpm_domain.stored.clauses import render_clause
from zpm_domain.stored.descriptions import Description
from zpm_domain.tools import outputs
from zpm_domain.tools.definition import QUERY, Arg, Reply, ToolGroup, tool
from zpm_domain.tools.query import is_user_visible

BUDGET_BYTES = 64 * 1024
DEFAULT_SAMPLES = 2
MAX_SAMPLES = 50


class OverviewTools(ToolGroup):
    @tool(
        QUERY,
        "Return a single-call JSON snapshot of the default knowledge base: file-loaded static "
        "and asserted user predicates (with functor, arity, kind, clause count, and sample "
        "clauses as Prolog term strings), the active assumptions, persisted snapshots "
        "metadata, persistence layer health, and mounted memory segments. Replaces the "
        "chained sequence of `get_knowledge_schema` + `list_assumptions` + `list_snapshots` "
        "+ `get_persistence_status` + `list_memories` with one round-trip. Read-only; the "
        "tool has no memory selector.",
    )
    def get_kb_overview(
        self,
        sample_size: Annotated[
            int | None, Arg("Number of sample clauses per predicate (default: 2, max: 50)")
        ] = None,
    ) -> Reply[outputs.Overview]:
        """Clamps ``sample_size`` to 0..50 (absent: 2), then fits the 64 KiB budget."""
        wanted = DEFAULT_SAMPLES if sample_size is None else max(0, min(MAX_SAMPLES, sample_size))
        memories = self.context.memories
        memory = memories.resolve(None)  # default, or the session's own fork
        memory.sync()
        predicates = _predicates(memory)
        names = sorted(memory.assumptions())
        assumptions: outputs.AssumptionsSummary = {"count": len(names), "names": names}
        mounts: outputs.MountsSummary = {
            "available": True,
            "count": len(memories.mounted()),
            "items": [
                {"name": m.name, "scope": m.scope, "mode": m.mode}
                for m in sorted(memories.mounted(), key=lambda m: m.name)
            ],
        }

        def build(samples: int, kept: int, truncated: bool) -> Reply[outputs.Overview]:
            entries = [p.entry(samples) for p in predicates[:kept]]
            return Reply.of(
                {
                    "predicates": cast(list[outputs.OverviewPredicate], entries),
                    "assumptions": assumptions,
                    "snapshots": cast(outputs.SnapshotsSummary, _snapshots(memory)),
                    "persistence": cast(outputs.PersistenceSummary, _persistence(memory)),
                    "mounts": mounts,
                    "truncated": truncated,
                }
            )

        whole = build(wanted, len(predicates), False)
        if _fits(whole):
            return whole
        samples = _largest(wanted - 1, lambda n: _fits(build(n, len(predicates), True)))
        if samples is not None:
            return build(samples, len(predicates), True)
        kept = _largest(len(predicates) - 1, lambda n: _fits(build(0, n, True))) or 0
        return build(0, kept, True)


class _Predicate:
    """A listed predicate: its first clauses rendered, its count and kind, and
    its description (shown after the samples, only when it has one)."""

    def __init__(
        self,
        name: str,
        arity: int,
        first: list[str],
        count: int,
        facts: int,
        description: Description | None,
    ) -> None:
        self.name = name
        self.arity = arity
        self.first = first
        self.count = count
        rules = count - facts
        self.kind = "both" if facts and rules else "rule" if rules else "fact"
        self.described = {} if description is None else description.as_json()

    def entry(self, samples: int) -> dict[str, Any]:
        return {
            "functor": self.name,
            "arity": self.arity,
            "kind": self.kind,
            "count": self.count,
            "samples": self.first[:samples],
            **self.described,
        }


def _predicates(memory: Memory) -> list[_Predicate]:
    found = []
    infos = memory.predicates()
    for done, info in enumerate(infos):
        call_context.advance(done, len(infos), "listing the predicates")
        if not is_user_visible(info.name):
            continue
        clauses = memory.clauses(info.name, info.arity)
        if clauses:
            first = [render_clause(c) for c in clauses[:MAX_SAMPLES]]
            facts = sum(1 for c in clauses if c.is_fact)
            description = memory.description_of(info.name, info.arity)
            found.append(_Predicate(info.name, info.arity, first, len(clauses), facts, description))
    call_context.advance(len(infos), len(infos), "listing the predicates")
    return found


def _snapshots(memory: Memory) -> dict[str, Any]:
    infos = memory.snapshot_infos()
    if not infos:
        return {"count": 0, "latest": None, "latest_at": None}
    latest = max(infos, key=lambda info: (info.written, info.name))
    at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(latest.written))
    return {"count": len(infos), "latest": latest.name, "latest_at": at}


def _persistence(memory: Memory) -> dict[str, Any]:
    status = memory.status()
    return {"wal_pending": status.journal_records, "healthy": status.status == "active"}


def _fits(reply: Reply[outputs.Overview]) -> bool:
    return len(reply.text.encode("utf-8")) <= BUDGET_BYTES


def _largest(high: int, ok: Callable[[int], bool]) -> int | None:
    """The largest ``n`` in ``0..high`` with ``ok(n)`` (``ok`` is monotonic), or ``None``."""
    low, best = 0, None
    while low <= high:
        middle = (low + high) // 2
        if ok(middle):
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best
