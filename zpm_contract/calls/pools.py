"""The small pools that plain arguments are drawn from.

Memories and snapshots come from small pools (``MEMORY_NAMES``,
``SNAPSHOT_NAMES``) so that mounts, restores and qualified goals meet what
earlier calls created; a few names that never exist (``ghost``, ``nope``)
exercise the error paths.  So do assumption names, rename targets, sample
sizes, limits and echo messages.
"""

from __future__ import annotations

from hypothesis import strategies as st

MEMORY_NAMES = ("alpha", "beta")
"""Memories the machine creates and mounts besides ``default``."""
SNAPSHOT_NAMES = ("s1", "s2", "before_refactor", "before-refactor", "v1.2", "S1")
"""Snapshot names: with ``_``, ``-`` and an inner dot; ``S1`` and ``s1`` differ only
in case, so whichever is saved second is refused."""

memory_names = st.sampled_from([*MEMORY_NAMES, *MEMORY_NAMES, "default", "ghost"])
"""Names for create/mount/unmount: mostly the pool; ``default`` (always mounted,
reserved) and ``ghost`` (never created) now and then."""
fork_names = st.sampled_from(["fork_a", "fork_a", "fork_b"])
"""Names the machine forks memories under (``fork_memory``, ``merge_memory``)."""
memory_targets = st.sampled_from([None, None, None, None, "default", "alpha", "alpha", "beta"])
"""The ``memory`` argument of knowledge and snapshot tools (``None``: left out)."""
qualifiers = st.sampled_from([None, None, None, None, "default", "alpha", "alpha", "beta", "ghost"])
"""The ``m`` of a cross-memory goal ``m:G`` (``None``: an unqualified goal)."""
scopes = st.sampled_from([None, "project", "global"])
modes = st.sampled_from([None, "rw", "rw", "ro"])
snapshot_names = st.sampled_from(SNAPSHOT_NAMES)
restored_names = st.sampled_from([*SNAPSHOT_NAMES, "nope"])
"""Names to restore: the pool, and ``nope``, never saved."""
sample_sizes = st.sampled_from([None, 0, 1, 2, 50, -3, 100])
match_limits = st.sampled_from([None, None, 1, 2, 3, 0, 1001])
"""``matching``'s limit: mostly small, so pages and truncation occur; some out of range."""

ASSUMPTION_NAMES = ("infra_a", "infra_b", "plan", "h1")
"""Assumptions the machine makes: shared between facts, and matched by ``GLOBS``."""
assumption_names = st.sampled_from([*ASSUMPTION_NAMES, "never_made"])
globs = st.sampled_from(["infra_*", "h?", "*", "infra_?", "none_*", "p*n"])
rename_targets = st.sampled_from(["renamed_a", "renamed_b", "renamed_a", "q", "likes"])
"""New names for rename_predicate: mostly fresh, sometimes taken (a collision)."""
reference_scopes = st.sampled_from([None, None, "default", "alpha", "__all__", "ghost"])


echo_messages = st.sampled_from(
    ["hello", "", " ", "héllo wörld ✓", "two\nlines", "tab\there", "'quoted' \"both\"", "x" * 300]
)
"""``echo`` messages: empty, blank, non-ASCII, control characters, quotes, long."""
