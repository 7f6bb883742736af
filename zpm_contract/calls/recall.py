"""Keyword searches, predicate descriptions and declarations."""

from __future__ import annotations

from hypothesis import strategies as st

search_queries = st.sampled_from(
    [
        "tea",
        "hello world",
        "likes tea",
        "item two words",
        "link 3",
        "capital",
        "don x1",
        "reach r1 r2",
        "renamed likes",
        "who shelf",
        "HELLO",
        "meaning",
    ]
)
"""``search_facts`` queries: words of the generated facts' atoms, strings, predicate
names and of ``DESCRIPTIONS``, whole, as prefixes and in other cases."""
search_limits = st.sampled_from([None, None, 1, 2, 3, 0, 101])
search_cursors = st.sampled_from([None, None, 0, 1, 2, 5, -1])
search_memories = st.sampled_from([None, None, None, "default", "alpha", "beta", "ghost"])


CONSTRAINED = ("likes", "link", "item", "p")
"""The predicates the machine declares functional (``capital/2`` is, in its knowledge file)."""
DESCRIPTIONS = ("who likes whom", "items on the shelf", "the meaning of p", "")
"""Descriptions given to predicates (the empty one removes a description)."""
vocabulary = st.sampled_from([("shelf_item", 2), ("atom_length", 2)])
"""Predicates described without clauses (vocabulary first), and a built-in (refused)."""
