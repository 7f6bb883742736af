"""A memory's client-stored state by handle: what a merge compares.

A fork keeps its *fork point* (the state it started from, or was last
merged at) as this state in JSON, beside it: each stored clause's handle,
text and supports, and the handles its withdrawal records took.  A merge
compares it with the fork's state now (:func:`state_of`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from zpm_domain.clauses import Clause
from zpm_domain.handles import is_handle
from zpm_domain.memory import Image
from zpm_domain.withdrawals import Withdrawal
from zpm_domain.writer import render_clause

FORMAT = 1


@dataclass(frozen=True, slots=True)
class Held:
    """A clause a memory stores (its text; the clause itself when at hand),
    with the supports that hold it (a plain copy: ``plain``, no assumptions)."""

    text: str
    plain: bool
    assumptions: tuple[str, ...]
    clause: Clause | None = None


@dataclass
class State:
    """Stored clauses by handle, in clause order (then the defeated ones);
    withdrawal records by the handle of the clause each withdrew."""

    held: dict[int, Held] = field(default_factory=dict)
    withdrawn: dict[int, Withdrawal | None] = field(default_factory=dict)

    def to_json(self) -> str:
        entries = [[h, x.text, x.plain, list(x.assumptions)] for h, x in self.held.items()]
        record = {"format": FORMAT, "held": entries, "withdrawn": list(self.withdrawn)}
        return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"

    @classmethod
    def from_json(cls, text: str) -> State:
        """The state :meth:`to_json` wrote; ``ValueError`` when it is not one."""
        record = json.loads(text)
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise ValueError("not a fork point")
        state = cls()
        for entry in record.get("held", []):
            handle, text, plain, names = entry
            valid = isinstance(text, str) and isinstance(plain, bool) and isinstance(names, list)
            if not is_handle(handle) or not valid or not all(isinstance(n, str) for n in names):
                raise ValueError(f"not a stored clause: {entry!r}")
            state.held[handle] = Held(text, plain, tuple(names))
        for handle in record.get("withdrawn", []):
            if not is_handle(handle):
                raise ValueError(f"not a handle: {handle!r}")
            state.withdrawn[handle] = None
        return state


def state_of(image: Image) -> State:
    """The state of a memory's :meth:`~zpm_domain.memory.Memory.image`."""
    supports, history, defeated = image.held()
    state = State()
    texts = [*image.texts, *(render_clause(clause) for clause in defeated)]
    for clause, text in zip([*image.clauses, *defeated], texts, strict=True):
        if clause.handle is None or clause.handle in state.held:
            continue
        support = supports.get(id(clause))
        plain = True if support is None else support.plain
        names = () if support is None else tuple(support.assumptions)
        state.held[clause.handle] = Held(text, plain, names, clause)
    for withdrawal in history:
        assert withdrawal.clause.handle is not None
        state.withdrawn[withdrawal.clause.handle] = withdrawal
    return state
