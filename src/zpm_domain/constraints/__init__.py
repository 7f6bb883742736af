"""Constraints a memory's writes keep: declared functional predicates (the
last argument a function of the others), each with a policy for a write
that would break it (``refuse``, ``supersede`` or ``keep``)."""
