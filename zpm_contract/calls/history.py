"""The arguments of ``history``: limits, orders, moments, clients and tools."""

from __future__ import annotations

from hypothesis import strategies as st

history_limits = st.sampled_from([None, None, 1, 2, 5, 0])
history_orders = st.sampled_from([None, None, "newest", "oldest", "sideways"])
history_moments = st.sampled_from(
    ["0", "1", "2.1", "3", "99999", "2025-12-01T10:42:11Z", "2025-12-01T10:42:12", "soon"]
)
"""Moments ``history`` is asked from or until besides the cursors answers gave:
the start, early batches and events, one far ahead (refused), the time every
server tells (``lockstep.case.CLOCK``) and the second after it, and a mistake."""
history_clients = st.sampled_from([None, None, None, "zpm-lockstep", "someone"])
history_tools = st.sampled_from([None, None, None, "remember_fact", "assert", "merge_memory"])
