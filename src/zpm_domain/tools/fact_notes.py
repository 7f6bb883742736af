"""The note on a stored fact that holds variables.

In Prolog a name that starts with a capital letter is a variable, so
``owner(payments, Alice)`` stores a fact that holds for every value in
``Alice``'s place: ``owner(payments, bob)`` is true afterwards.  People write
names that way, so every tool that stores a fact (remember_fact,
assume_fact, upsert_fact, update_fact's new fact, ``assert``) adds this note
to its answer, naming the variables and how to write a constant instead.

Variables whose name starts with ``_`` (``_``, ``_Who``) are left out: the
underscore is how Prolog marks a variable on purpose, so ``likes(_, tea)``
("everyone likes tea") gets no note.  Rules get none either: variables are
what rules are made of.
"""

from __future__ import annotations

from collections.abc import Iterable

from zpm_domain.prolog.terms import Atom, Term, Var, variables
from zpm_domain.prolog.writer import render


def variables_note(fact: Term) -> str | None:
    """The note for ``fact`` as stored, ``None`` when it holds no variable
    written with a capital letter.  Names appear in order of first
    appearance; the example constant is the first one's."""
    return open_variables_note(variables(fact))


def open_variables_note(open_variables: Iterable[Var]) -> str | None:
    """The note naming ``open_variables``, the variables a stored fact keeps
    (those named with ``_`` and unnamed ones left out); ``None`` when none remains."""
    names = [v.name for v in open_variables if v.name is not None and not v.name.startswith("_")]
    if not names:
        return None
    first = names[0]
    quoted, lower = render(Atom(first)), render(Atom(first.lower()))
    if len(names) == 1:
        return (
            f"{first} is a variable (a name that starts with a capital letter is one), so "
            f"the stored fact holds for any value in its place. For a constant, write "
            f"{quoted} (quoted) or {lower}."
        )
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return (
        f"{listed} are variables (a name that starts with a capital letter is one), so "
        f"the stored fact holds for any values in their place. For constants, write them "
        f"quoted ({quoted}) or in lowercase ({lower})."
    )
