"""The snapshot section of a memory's supports (``assumptions``): written from
its :class:`~zpm_domain.beliefs.supports.Beliefs` (:func:`section`) and read
back (:class:`BeliefsImage`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from zpm_domain.beliefs.supports import Beliefs, Support
from zpm_domain.errors import PrologSyntaxError
from zpm_domain.prolog.reader import read_term
from zpm_domain.prolog.terms import Term
from zpm_domain.prolog.writer import render
from zpm_domain.stored.clauses import Clause
from zpm_domain.stored.sections import SectionDamaged

SECTION = "assumptions"
"""The snapshot section holding the supports (see :func:`section`)."""


def section(beliefs: Beliefs) -> list[str]:
    """The snapshot section of ``beliefs``: one JSON line per assumption, in
    first-seen order (``{"assumption": name}``), then one per supported
    fact, in the order first supported (``{"fact": text, "plain": bool,
    "assumptions": [...]}``)."""
    lines = [json.dumps({"assumption": name}) for name in beliefs.assumptions()]
    for support in beliefs.supports():
        entry = {
            "fact": render(support.fact),
            "plain": support.plain,
            "assumptions": support.assumptions,
        }
        lines.append(json.dumps(entry, ensure_ascii=False))
    return lines


@dataclass(frozen=True)
class BeliefsImage:
    """An assumptions section read back, ready to load into a :class:`Beliefs`."""

    names: list[str]
    supports: list[Support]

    @classmethod
    def read(cls, lines: list[str]) -> BeliefsImage:
        """Read a section written by :func:`section`; ``SectionDamaged`` if it does not."""
        names: list[str] = []
        supports: list[Support] = []
        for number, line in enumerate(lines, start=1):
            try:
                entry = json.loads(line)
                if "assumption" in entry:
                    names.append(_text(entry["assumption"]))
                    continue
                fact = read_term(_text(entry["fact"]))
                assumed = [_text(a) for a in entry["assumptions"]]
                plain = entry["plain"]
            except (ValueError, KeyError, TypeError, PrologSyntaxError) as error:
                raise SectionDamaged(number, f"does not read ({error})") from None
            if not isinstance(plain, bool) or not assumed or not set(assumed) <= set(names):
                raise SectionDamaged(number, "not a supported fact of a listed assumption")
            supports.append(Support(fact, plain, assumed))
        return cls(names, supports)

    def load_into(self, beliefs: Beliefs, stored: Callable[[Term], Clause | None]) -> None:
        """Make ``beliefs`` hold these supports (their facts are stored already);
        ``stored`` gives the clause that holds a fact as the memory loaded it,
        or ``None`` when the memory did not load it."""
        loaded = (
            (support, clause)
            for support in self.supports
            if (clause := stored(support.fact)) is not None
        )
        beliefs.load(self.names, loaded)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("a string was expected")
    return value
