"""The machine's bundles: what earlier calls made, for later calls to use."""

from __future__ import annotations

from hypothesis.stateful import Bundle

Predicate = tuple[str, int]
"""A predicate as name and arity."""

facts = Bundle("facts")
"""Facts the case stored (or tried to): the text of each."""
predicates = Bundle("predicates")
"""Predicates that were given (or meant to be given) clauses: ``Predicate`` values."""
