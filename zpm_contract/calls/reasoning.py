"""The reasoning tools' rules and arguments: path/2 shapes, integrity rules, scopes, depths."""

from __future__ import annotations

from hypothesis import strategies as st

PATH_RULES: dict[str, list[tuple[str, str]]] = {
    "right": [("path(X, Y)", "likes(X, Y)"), ("path(X, Y)", "likes(X, Z), path(Z, Y)")],
    "left": [("path(X, Y)", "path(X, Z), likes(Z, Y)"), ("path(X, Y)", "likes(X, Y)")],
    "double": [("path(X, Y)", "likes(X, Y)"), ("path(X, Y)", "path(X, Z), path(Z, Y)")],
    "links": [("path(X, Y)", "reach(X, Y)"), ("path(X, Y)", "likes(X, Z), path(Z, Y)")],
}
"""Definitions of ``path/2`` for trace_dependency; ``likes/2`` facts hold any
constants, so their graphs are often cyclic."""

VIOLATION_RULES: list[tuple[str, str]] = [
    ("integrity_violation(X)", "p(X), \\+ q(X)"),
    ("integrity_violation(likes, X)", "likes(X, X)"),
    ("integrity_violation(items, X)", "item(X, _, _)"),
]
"""``integrity_violation/1,2`` rules over the generated facts."""

violation_scopes = st.sampled_from([None, None, "likes", "items", "nope", "f(x)"])
"""verify_consistency scopes: none, the rules', one without rules, one that is no atom."""
max_depths = st.sampled_from([None, None, 0, 1, 2])
"""explain_why depth limits (``None``: left out)."""
